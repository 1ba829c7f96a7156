package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// SafeRelease: the holder is paused past its TTL, another client
// acquires, and the first one's late release must leave the second one's
// lock as it was (see nexthold.go). The pause falls before the release
// and, in turn, at every boundary between its commands.

func init() {
	register(Property{
		id: "safe-release", order: 100, Scenario: safeRelease,
		breaks: "a release sent after the holder's TTL ran out freed the next holder's lock",
	}, func(tm sim.Timing) floors {
		// A, paused, holds with the Short TTL; B acquires only once it
		// has run out (at least once: the other boundaries are not
		// counted).
		return floors{Holds: tm.Short}
	})
}

// safeRelease: at each boundary of its release in turn, A is paused until
// its TTL has passed and B has acquired; then A finishes its release, and C
// checks whether B's lock survived. A lock that renews itself runs out too:
// its renewals are paused with A.
func safeRelease(newRun func(string) *harness.Run) harness.Outcome {
	n := harness.CountOps(newRun).Release
	last, res := harness.LateAtEachBoundary(newRun, n, "release", func(_ *harness.Run, a *harness.Client, la strategy.Lock) func() {
		return func() { a.Release(la) }
	}, func(l harness.LateRun) *harness.Outcome {
		if !l.Broke.IsZero() {
			res := l.R.BreaksRule(l.Broke.Rule, mPausedTTLResumed.New(l.At, l.Broke.Msg))
			return &res
		}
		freed := harness.WhoFreed(l.R, l.Held, "release")
		if l.C.TryAcquire(l.R.Tm.Long) != nil {
			res := l.R.BreaksRule(history.OneHolder, mPausedTTLResumed.New(l.At, freed))
			return &res
		}
		return nil
	})
	switch {
	case res != nil:
		return *res
	case n <= 1:
		return last.Holds(mSafeReleaseOne.New())
	}
	return last.Holds(mSafeReleaseHolds.New(n, n))
}

// safe-release's messages.
var (
	mSafeReleaseOne = msg.Define("safe-release.holds-one", nil,
		"A's late release, paused before its one command until B had acquired, left B's lock in place")
	mSafeReleaseHolds = msg.Define("safe-release.holds", msg.K(msg.Count, msg.Count),
		"A's late release, paused at each of the {0} boundaries of its {1}-command release in turn, left B's lock in place")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("safe-release.scenario", nil,
		"the holder A is paused past its TTL (before its release, then at each boundary between the release's commands in turn), and B acquires; then A's release goes on one command at a time, with B paused: the suite reads K (its value and its `PTTL`) before and after each command, and C tries to acquire at each boundary")
	_ = msg.Define("safe-release.must", nil,
		"B's lock stays as B took it: not deleted, not overwritten, its expiry neither removed nor pushed back; C never gets in")
)
