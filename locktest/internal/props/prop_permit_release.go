package props

import (
	"fmt"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// PermitReleaseExact: a release gives back its holder's own permit, once.
// A release repeated while the others hold theirs, and a late one, after
// the holder's TTL has passed and others took every permit, give back
// nothing: the judge finds N+1 holders granted if either did (OneHolder
// over the permits). The shapes of Redisson's issues 4086 (a release of
// an expired permit returned true) and 6343 (a partial release).
//
// A release by a client that never held a permit cannot be staged: a
// Lock is the only handle on a release.

func init() {
	register(Property{
		id: "permit-release-exact", order: 1120, Scenario: permitReleaseExact, Kind: strategy.Semaphore,
		breaks: "a repeated or late release gave back a permit its holder no longer held",
	}, func(tm sim.Timing) floors {
		// A's Short TTL runs out before the late release.
		return floors{Holds: tm.Short}
	})
}

// fill has clients H1…Hk take a permit each with the Long TTL; it returns
// them, and the first that was refused (nil when none was).
func fill(r *harness.Run, k int) (hs []*harness.Client, helds []sim.Held, refused *harness.Client) {
	for i := range k {
		c := r.Client(fmt.Sprintf("H%d", i+1))
		if c == nil {
			c = r.NewClient(fmt.Sprintf("H%d", i+1), 0)
		}
		h, ok := c.TryMode(history.Permit, 1, r.Tm.Long)
		if !ok {
			return hs, helds, c
		}
		hs, helds = append(hs, c), append(helds, h)
	}
	return hs, helds, nil
}

// lastPermit has H1…HN-1 take a permit each with the Long TTL, and then
// a the last one with ttl; a refusal is a free permit refused, the run's
// verdict.
func lastPermit(r *harness.Run, a *harness.Client, n int, ttl time.Duration) (hs []*harness.Client, helds []sim.Held, ha sim.Held, res *harness.Outcome) {
	hs, helds, no := fill(r, n-1)
	if no != nil {
		res := r.BreaksFreeRefusedOf(no.Name, n, mBoundRefused.New(no.Name, len(hs), n))
		return nil, nil, sim.Held{}, &res
	}
	ha, ok := a.TryMode(history.Permit, 1, ttl)
	if !ok {
		res := r.BreaksFreeRefusedOf(a.Name, n, mBoundRefused.New(a.Name, n-1, n))
		return nil, nil, sim.Held{}, &res
	}
	return hs, helds, ha, nil
}

// permitReleaseExact: H1…HN-1 hold a permit, A the last; A releases it
// twice; Y takes the permit A gave back, and X must be refused. Then,
// every permit free, A takes one with the Short TTL and lets it run out;
// H1…HN take every permit; A releases late, and X must be refused.
func permitReleaseExact(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	a := r.NewClient("A", 0)
	n := a.Permits()
	if n == 0 {
		return r.NotApplicable(sim.MsgNotSemaphore.New())
	}
	x, y := r.NewClient("X", 0), r.NewClient("Y", 0)
	r.PromisePermits(n, mExactBreaks.Lacking())
	hs, helds, ha, res := lastPermit(r, a, n, r.Tm.Long)
	if res != nil {
		return *res
	}
	a.ReleaseHeld(ha)
	a.ReleaseHeld(ha)
	hy, ok := y.TryMode(history.Permit, 1, r.Tm.Long)
	if !ok {
		return r.BreaksFreeRefusedOf("Y", n, mBoundRefused.New("Y", n-1, n))
	}
	if _, ok := x.TryMode(history.Permit, 1, r.Tm.Long); ok {
		return r.BreaksRuleOf(history.OneHolder, n, mExactTwice.New(n))
	}
	for i, c := range hs {
		c.ReleaseHeld(helds[i])
	}
	y.ReleaseHeld(hy)

	ha, ok = a.TryMode(history.Permit, 1, r.Tm.Short)
	if !ok {
		return r.BreaksFreeRefusedOf("A", n, mBoundRefused.New("A", 0, n))
	}
	time.Sleep(r.Tm.Outlast(r.Tm.Short))
	hs, helds, no := fill(r, n)
	if no != nil {
		// A's permit did not come back with its TTL (permit-crash-recovery
		// says so): no late release to stage.
		return r.Holds(mExactHoldsTwice.New(n))
	}
	a.ReleaseHeld(ha)
	if _, ok := x.TryMode(history.Permit, 1, r.Tm.Long); ok {
		return r.BreaksRuleOf(history.OneHolder, n, mExactLate.New(n))
	}
	for i, c := range hs {
		c.ReleaseHeld(helds[i])
	}
	return r.Holds(mExactHolds.New(n))
}

// permit-release-exact's messages.
var (
	mExactBreaks = msg.Define("permit-release-exact.breaks", msg.K(msg.Sub),
		"a release gave back a permit its holder no longer held: {0}")
	mExactTwice = msg.Define("permit-release-exact.twice", msg.K(msg.Count),
		"A released its permit twice while the others of the {0} were held, and both Y and X got one")
	mExactLate = msg.Define("permit-release-exact.late", msg.K(msg.Count),
		"A released its permit after its TTL, once the {0} permits were taken by others, and X got one more")
	mExactHoldsTwice = msg.Define("permit-release-exact.holds-twice", msg.K(msg.Count),
		"A's second release of one of the {0} permits gave back nothing; a late release could not be staged, A's permit not coming back with its TTL")
	mExactHolds = msg.Define("permit-release-exact.holds", msg.K(msg.Count),
		"of the {0} permits, a second release and a release after the TTL gave back nothing")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("permit-release-exact.scenario", nil,
		"a holder releases its permit twice, and once after its TTL, while the others are held")
	_ = msg.Define("permit-release-exact.must", nil,
		"never N+1 holders")
)
