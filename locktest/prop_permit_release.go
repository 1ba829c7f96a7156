package locktest

import (
	"fmt"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
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
	register(property{
		id: "permit-release-exact", order: 1120, scenario: permitReleaseExact, kind: strategy.Semaphore,
		breaks: "a repeated or late release gave back a permit its holder no longer held",
	}, func(tm timing) floors {
		// A's Short TTL runs out before the late release.
		return floors{holds: tm.Short}
	})
}

// fill has clients H1…Hk take a permit each with the Long TTL; it returns
// them, and the first that was refused (nil when none was).
func fill(r *run, k int) (hs []*client, helds []held, refused *client) {
	for i := range k {
		c := r.client(fmt.Sprintf("H%d", i+1))
		if c == nil {
			c = r.newClient(fmt.Sprintf("H%d", i+1), 0)
		}
		h, ok := c.tryMode(history.Permit, 1, r.tm.Long)
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
func lastPermit(r *run, a *client, n int, ttl time.Duration) (hs []*client, helds []held, ha held, res *outcome) {
	hs, helds, no := fill(r, n-1)
	if no != nil {
		res := r.breaksFreeRefusedOf(no.name, n, mBoundRefused.New(no.name, len(hs), n))
		return nil, nil, held{}, &res
	}
	ha, ok := a.tryMode(history.Permit, 1, ttl)
	if !ok {
		res := r.breaksFreeRefusedOf(a.name, n, mBoundRefused.New(a.name, n-1, n))
		return nil, nil, held{}, &res
	}
	return hs, helds, ha, nil
}

// permitReleaseExact: H1…HN-1 hold a permit, A the last; A releases it
// twice; Y takes the permit A gave back, and X must be refused. Then,
// every permit free, A takes one with the Short TTL and lets it run out;
// H1…HN take every permit; A releases late, and X must be refused.
func permitReleaseExact(newRun func(string) *run) outcome {
	r := newRun("")
	a := r.newClient("A", 0)
	n := a.permits()
	if n == 0 {
		return r.notApplicable(mNotSemaphore.New())
	}
	x, y := r.newClient("X", 0), r.newClient("Y", 0)
	r.promisePermits(n, mExactBreaks.Lacking())
	hs, helds, ha, res := lastPermit(r, a, n, r.tm.Long)
	if res != nil {
		return *res
	}
	a.releaseHeld(ha)
	a.releaseHeld(ha)
	hy, ok := y.tryMode(history.Permit, 1, r.tm.Long)
	if !ok {
		return r.breaksFreeRefusedOf("Y", n, mBoundRefused.New("Y", n-1, n))
	}
	if _, ok := x.tryMode(history.Permit, 1, r.tm.Long); ok {
		return r.breaksRuleOf(history.OneHolder, n, mExactTwice.New(n))
	}
	for i, c := range hs {
		c.releaseHeld(helds[i])
	}
	y.releaseHeld(hy)

	ha, ok = a.tryMode(history.Permit, 1, r.tm.Short)
	if !ok {
		return r.breaksFreeRefusedOf("A", n, mBoundRefused.New("A", 0, n))
	}
	time.Sleep(r.tm.outlast(r.tm.Short))
	hs, helds, no := fill(r, n)
	if no != nil {
		// A's permit did not come back with its TTL (permit-crash-recovery
		// says so): no late release to stage.
		return r.holds(mExactHoldsTwice.New(n))
	}
	a.releaseHeld(ha)
	if _, ok := x.tryMode(history.Permit, 1, r.tm.Long); ok {
		return r.breaksRuleOf(history.OneHolder, n, mExactLate.New(n))
	}
	for i, c := range hs {
		c.releaseHeld(helds[i])
	}
	return r.holds(mExactHolds.New(n))
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
