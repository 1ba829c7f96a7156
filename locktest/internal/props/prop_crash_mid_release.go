package props

import (
	"fmt"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// CrashMidRelease: a holder that dies between the commands of its
// release, at each boundary in turn, leaves a lock that still frees
// within its TTL.

func init() {
	register(Property{
		id: "crash-mid-release", order: 60, Scenario: crashMidRelease,
		breaks:     "a holder that died between the commands of its release left a lock that did not free within its TTL",
		Structural: true,
	}, func(tm sim.Timing) floors {
		// Whether B must wait for A's TTL depends on which of the
		// release's commands ran before A died: no certain floor.
		return floors{}
	})
}

// crashMidRelease: for every boundary between the commands of a release, A
// dies there; the lock must still free within its TTL.
func crashMidRelease(newRun func(string) *harness.Run) harness.Outcome {
	n := harness.CountOps(newRun).Release
	if n <= 1 {
		r := newRun("/none")
		return r.NotApplicable(mMidReleaseOne.New(n))
	}
	var last *harness.Run
	for k := 1; k < n; k++ {
		r := newRun(fmt.Sprintf("/boundary-%d", k))
		last = r
		a, b := r.NewClient("A", 0), r.NewClient("B", 0)
		la := a.MustAcquire(r.Tm.Short)
		a.CrashAfterNext(k)
		a.Release(la)
		wait := r.Tm.Short + r.Tm.Slack
		r.Note(mBWaitsATTL.New(wait, r.Tm.Short))
		since := r.Rec.Now()
		if b.WaitFree(r.Tm.Short, wait, r.Tm.Short+r.Tm.StaleAfter()) == nil {
			return r.BreaksUnfreed("B", since, wait-r.Tm.Poll, mMidReleaseBreaks.New(harness.Boundary(k, n, "release"), wait))
		}
		r.Shutdown()
	}
	return last.Holds(mMidReleaseHolds.New(n))
}

// crash-mid-release's messages.
var (
	mMidReleaseOne = msg.Define("crash-mid-release.n/a", msg.K(msg.Count),
		"a release sends {0} {0|command|commands}: there is no boundary between commands to die at")
	mBWaitsATTL = msg.Define("crash-mid-release.b-waits", msg.K(msg.Duration, msg.Duration),
		"B waits up to {0} (A's TTL {1} + slack)")
	mMidReleaseBreaks = msg.Define("crash-mid-release.breaks", msg.K(msg.Sub, msg.Duration),
		"A died {0}, and B still could not acquire the lock {1} later: the half-done release left a lock that does not expire")
	mMidReleaseHolds = msg.Define("crash-mid-release.holds", msg.K(msg.Count),
		"wherever A died inside its {0}-command release, the lock freed within its TTL")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("crash-mid-release.scenario", nil,
		"the holder dies between the commands of its release, at each boundary in turn")
	_ = msg.Define("crash-mid-release.must", nil,
		"the lock still frees within its TTL")
)
