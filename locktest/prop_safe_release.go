package locktest

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// SafeRelease: the holder is paused past its TTL, another client
// acquires, and the first one's late release must leave the second one's
// lock as it was (see nexthold.go). The pause falls before the release
// and, in turn, at every boundary between its commands.

func init() {
	register(property{
		id: "safe-release", order: 100, scenario: safeRelease,
		breaks: "a release sent after the holder's TTL ran out freed the next holder's lock",
	}, func(tm timing) floors {
		// A, paused, holds with the Short TTL; B acquires only once it
		// has run out (at least once: the other boundaries are not
		// counted).
		return floors{holds: tm.Short}
	})
}

// safeRelease: at each boundary of its release in turn, A is paused until
// its TTL has passed and B has acquired; then A finishes its release, and C
// checks whether B's lock survived. A lock that renews itself runs out too:
// its renewals are paused with A.
func safeRelease(newRun func(string) *run) outcome {
	n := countOps(newRun).release
	last, res := lateAtEachBoundary(newRun, n, "release", func(_ *run, a *client, la strategy.Lock) func() {
		return func() { a.release(la) }
	}, func(l lateRun) *outcome {
		if !l.broke.IsZero() {
			res := l.r.breaksRule(l.broke.rule, mPausedTTLResumed.New(l.at, l.broke.msg))
			return &res
		}
		freed := whoFreed(l.r, l.held, "release")
		if l.c.tryAcquire(l.r.tm.Long) != nil {
			res := l.r.breaksRule(history.OneHolder, mPausedTTLResumed.New(l.at, freed))
			return &res
		}
		return nil
	})
	switch {
	case res != nil:
		return *res
	case n <= 1:
		return last.holds(mSafeReleaseOne.New())
	}
	return last.holds(mSafeReleaseHolds.New(n, n))
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
