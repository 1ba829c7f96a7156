package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// MultiAcquireAtomic: a weighted semaphore's TryAcquireN takes n permits
// or none. With one permit free, an acquire of two takes nothing: a
// single acquire after it still gets the free one (FreeRefused, else). An
// acquire of all N takes them all: a single acquire beside it is refused
// (OneHolder over the permits), and its release gives every one back.
// The shape of Redisson's issue 6343 (release(list) partial), at the
// acquire. Last, X and Y each ask for all N on a free semaphore, in every
// interleaving of their commands: exactly one gets them. An acquire that
// takes its permits one at a time and gives them back when refused
// keeps nothing, yet two of them can each take some and both be refused
// (FreeRefused), as the explorer found.

func init() {
	register(Property{
		id: "multi-acquire-atomic", order: 1130, Scenario: multiAcquireAtomic, Kind: strategy.Semaphore,
		breaks: "an acquire of several permits took some and not the others, or more than it asked",
	}, func(tm sim.Timing) floors {
		// The Long TTL, which never runs out: nothing to wait for.
		return floors{}
	})
}

// multiAcquireAtomic: H1…HN-1 take a permit each; X asks for two and must
// be refused; Y must take the last. All released, X takes N; Y must be
// refused; X releases, and H1…HN must take a permit each.
func multiAcquireAtomic(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	x := r.NewClient("X", 0)
	n := x.Permits()
	switch {
	case n == 0:
		return r.NotApplicable(sim.MsgNotSemaphore.New())
	case !isWeighted(x.S):
		return r.NotApplicable(mAtomicNotWeighted.New())
	case n < 2:
		return r.NotApplicable(mAtomicOnePermit.New())
	}
	y := r.NewClient("Y", 0)
	r.PromisePermits(n, mAtomicBreaks.Lacking())
	hs, helds, no := fill(r, n-1)
	if no != nil {
		return r.BreaksFreeRefusedOf(no.Name, n, mBoundRefused.New(no.Name, len(hs), n))
	}
	if _, ok := x.TryMode(history.Permit, 2, r.Tm.Long); ok {
		return r.BreaksRuleOf(history.OneHolder, n, mAtomicTooMany.New(n-1, n))
	}
	hy, ok := y.TryMode(history.Permit, 1, r.Tm.Long)
	if !ok {
		return r.BreaksFreeRefusedOf("Y", n, mAtomicPartial.New(n-1, n))
	}
	for i, c := range hs {
		c.ReleaseHeld(helds[i])
	}
	y.ReleaseHeld(hy)
	hx, ok := x.TryMode(history.Permit, n, r.Tm.Long)
	if !ok {
		return r.BreaksFreeRefusedOf("X", n, mAtomicAllRefused.New(n))
	}
	if _, ok := y.TryMode(history.Permit, 1, r.Tm.Long); ok {
		return r.BreaksRuleOf(history.OneHolder, n, mAtomicFewer.New(n))
	}
	x.ReleaseHeld(hx)
	hs, helds, no = fill(r, n)
	if no != nil {
		return r.BreaksFreeRefusedOf(no.Name, n, mAtomicKept.New(no.Name, n))
	}
	for i, c := range hs {
		c.ReleaseHeld(helds[i])
	}
	r.Shutdown()
	var last *harness.Run
	res, tries := harness.Interleavings(newRun, "/both-all", func(r *harness.Run, k int, prefix []int) ([]harness.Choice, *harness.Outcome) {
		last = r
		clients := []*harness.Client{r.NewClient("X", 0), r.NewClient("Y", 0)}
		won := []bool{false, false}
		trace := harness.Schedule(r, clients, func(i int) {
			_, won[i] = clients[i].TryMode(history.Permit, n, r.Tm.Long)
		}, prefix)
		switch {
		case won[0] && won[1]:
			res := r.BreaksRuleOf(history.OneHolder, n, mAtomicBothAll.New(n, k))
			return trace, &res
		case !won[0] && !won[1]:
			res := r.BreaksFreeRefusedOf("Y", n, mAtomicNeitherAll.New(n, k))
			return trace, &res
		}
		return trace, nil
	})
	if res != nil {
		return *res
	}
	return last.Holds(mAtomicHolds.New(n, tries))
}

// isWeighted says whether s takes several permits at once.
func isWeighted(s strategy.Strategy) bool {
	_, ok := s.(strategy.Weighted)
	return ok
}

// multi-acquire-atomic's messages.
var (
	mAtomicNotWeighted = msg.Define("multi-acquire-atomic.not-weighted", nil,
		"the semaphore takes one permit at a time (no strategy.Weighted)")
	mAtomicOnePermit = msg.Define("multi-acquire-atomic.one-permit", nil,
		"the semaphore has one permit: no acquire of several to stage")
	mAtomicBreaks = msg.Define("multi-acquire-atomic.breaks", msg.K(msg.Sub),
		"an acquire of several permits took more than the semaphore had free: {0}")
	mAtomicTooMany = msg.Define("multi-acquire-atomic.too-many", msg.K(msg.Count, msg.Count),
		"while {0} of the {1} permits were held, X got the two it asked for")
	mAtomicPartial = msg.Define("multi-acquire-atomic.partial", msg.K(msg.Count, msg.Count),
		"while {0} of the {1} permits were held, X asked for two and was refused, yet Y could not take the last: X's refused acquire kept some")
	mAtomicAllRefused = msg.Define("multi-acquire-atomic.all-refused", msg.K(msg.Count),
		"X could not take all {0} permits of the free semaphore")
	mAtomicFewer = msg.Define("multi-acquire-atomic.fewer", msg.K(msg.Count),
		"X took all {0} permits, and Y still got one: X took fewer than it asked")
	mAtomicKept = msg.Define("multi-acquire-atomic.kept", msg.K(msg.Client, msg.Count),
		"X released its {1} permits, and {0} still could not take one: the release gave back fewer than X took")
	mAtomicBothAll = msg.Define("multi-acquire-atomic.both-all", msg.K(msg.Count, msg.Count),
		"on a free semaphore of {0} permits, X and Y each asked for all of them, and both got them (interleaving {1} of their commands)")
	mAtomicNeitherAll = msg.Define("multi-acquire-atomic.neither-all", msg.K(msg.Count, msg.Count),
		"on a free semaphore of {0} permits, X and Y each asked for all of them, and neither got them (interleaving {1} of their commands): each took some, was refused the rest, and gave back what it took")
	mAtomicHolds = msg.Define("multi-acquire-atomic.holds", msg.K(msg.Count, msg.Count),
		"of the {0} permits, an acquire of two with one free took nothing, and an acquire of all took and gave back all; in each of the {1} interleavings of two acquires of all of them at once, exactly one got them")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("multi-acquire-atomic.scenario", nil,
		"a client asks for two permits with one free, then for all of them on a free semaphore; then two clients ask for all of them at once, in every interleaving of their commands")
	_ = msg.Define("multi-acquire-atomic.must", nil,
		"all or nothing, and exactly what was asked; of two asking for all at once, exactly one gets them")
)
