package props

import (
	"fmt"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderSafeRelease: safe-release for a reader. A reader is paused past
// its TTL, before its release and then at each boundary between its
// commands in turn, and a writer takes the lock; the reader's late
// release, taken on one command at a time, must let nobody in beside the
// writer: a reader R and a writer X try after each command, and the judge
// finds a grant beside W's valid hold (OneHolder). The shape of a count
// of readers that a late release takes below zero, which lets the next
// reader hold without the lock.

func init() {
	register(Property{
		id: "reader-safe-release", order: 1032, Kind: strategy.ReadWrite,
		Scenario: modeLate(strategy.ReadWrite, "release", modeLateMsgs{holds: mReaderLateHolds}),
		breaks:   "a reader's release sent after its TTL ran out let a reader or a writer in beside the writer that held the lock, or, paused inside, kept the writer out past its TTL",
	}, func(tm sim.Timing) floors {
		// A, paused, reads with the Short TTL; W writes only once it has
		// run out (at least once: the other boundaries are not counted).
		return floors{Holds: tm.Short}
	})
}

// modeLateMsgs are what a late-operation property of a kind says: that
// the lock cannot be refreshed, that a late Refresh claimed the lock,
// and that it holds.
type modeLateMsgs struct{ na, claimed, holds *msg.Def }

// modeLate is safe-release (op "release") or safe-refresh ("refresh")
// in kind's mode: at each boundary of its op in turn, A, holding in the
// mode with the Short TTL, is paused until its TTL has passed and the
// kind's others have taken the lock over (KindMode.TakeOver); then A's
// op goes on one command at a time, and after each nobody may get in
// beside W (KindMode.Intruders). A late Refresh must fail.
func modeLate(kind strategy.Kind, op string, ms modeLateMsgs) Scenario {
	return func(newRun func(string) *harness.Run) harness.Outcome {
		m, res := modeOf(newRun, kind)
		if res != nil {
			return *res
		}
		ops := m.CountOps(newRun, false)
		n := ops.Release
		if op == "refresh" {
			if !ops.Refresher {
				return newRun("/none").NotApplicable(ms.na.New())
			}
			n = ops.Refresh
		}
		var last *harness.Run
		for k := range max(n, 1) {
			r := newRun(fmt.Sprintf("/boundary-%d", k))
			last = r
			a := r.NewClient("A", 0)
			ha, ok := m.Take(a, r.Tm.Short)
			if !ok {
				r.Fail(harness.MsgFailNotFree.New("A"))
			}
			var err error // the late Refresh's
			late := func() { a.ReleaseHeld(ha) }
			if op == "refresh" {
				rf, ok := ha.L.(strategy.Refresher)
				if !ok {
					r.Fail(mSafeRefreshNotRefresher.New())
				}
				late = func() { err = a.Refresh(rf, 3*r.Tm.Long) }
			}
			p := a.PauseInside(k, n, op, late)
			if !p.Reached {
				r.Shutdown()
				continue
			}
			at := harness.Boundary(k, n, op)
			if res := m.TakeOver(r, p, at); res != nil {
				return *res
			}
			if res := harness.StepLate(p, m.Intruders(r, at, op)); res != nil {
				return *res
			}
			if op == "refresh" && err == nil {
				// A's late Refresh reported success beside W's hold: a
				// hold of A's again from its return (OneHolder).
				return r.BreaksRuleOf(history.OneHolder, m.Permits, ms.claimed.New(at))
			}
			r.Shutdown()
		}
		return last.Holds(ms.holds.New(max(n, 1)))
	}
}

// reader-safe-release's messages.
var (
	mReaderLateHolds = msg.Define("reader-safe-release.holds", msg.K(msg.Count),
		"A's late release of its read lock, paused at each of its {0} {0|boundary|boundaries} in turn until W wrote, let neither a reader nor a writer in beside W")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-safe-release.scenario", nil,
		"a reader is paused past its TTL (before its release, then at each boundary between the release's commands in turn), and a writer takes the lock; then the reader's release goes on one command at a time, and a reader and a writer try after each")
	_ = msg.Define("reader-safe-release.must", nil,
		"the writer gets in once the reader's TTL has passed, and then neither gets in beside it")
)
