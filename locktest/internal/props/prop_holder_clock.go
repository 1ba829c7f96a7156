package props

import (
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// HolderClock: the holder's own clock runs ahead of the server's, then
// behind it, by more than the TTL. A lock whose expiry the holder's clock
// sets lives longer than asked (a crashed holder blocks everyone for the
// skew) or shorter (another client gets in while the holder works). n/a
// for a lock that never reads the client's clock.

func init() {
	register(Property{
		id: "holder-clock", order: 90, Scenario: holderClock,
		breaks:     "a holder whose clock ran ahead or behind got a lock that lived longer or shorter than asked",
		Structural: true,
	}, func(tm sim.Timing) floors {
		// Ahead: B waits out A's Short TTL. Behind: B polls until
		// keptTolerance before the end of A's kept TTL.
		return floors{Holds: tm.Short + tm.Kept() - tm.KeptTolerance()}
	})
}

// holderClock: A, its clock ahead by more than the TTL and the slack,
// acquires and crashes: B must get the lock within the TTL and the slack.
// Then A, its clock behind by more than its TTL, acquires and stays alive:
// nobody may acquire before that TTL has passed.
func holderClock(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("/ahead")
	ahead := 2 * (r.Tm.Short + r.Tm.Slack)
	a, b := r.NewClient("A", ahead), r.NewClient("B", 0)
	// A free lock, tried for the slack: a lock over several masters may
	// refuse a TTL this short when its round trips eat its validity.
	if a.WaitFree(r.Tm.Short, r.Tm.Slack, 0) == nil {
		r.Fail(harness.MsgFailNotFree.New("A"))
	}
	if r.ClockReads.Load() == 0 {
		return r.NeverReadsClock()
	}
	a.Crash(mCrashNeverReleases.New())
	wait := r.Tm.Short + r.Tm.Slack
	r.Note(mBWaitsTTL.New(wait, r.Tm.Short))
	if b.WaitFree(r.Tm.Short, wait, r.Tm.Short+r.Tm.StaleAfter()) == nil {
		return r.BreaksUnfreedBy("B", 0, mAheadOutlived.New(ahead, wait, r.Tm.Short))
	}
	r.Shutdown()

	r = newRun("/behind")
	ttl, tol := r.Tm.Kept(), r.Tm.KeptTolerance()
	behind := -2 * ttl
	a, b = r.NewClient("A", behind), r.NewClient("B", 0)
	asked := time.Now()
	if a.WaitFree(ttl, r.Tm.Slack, 0) == nil {
		r.Fail(harness.MsgFailNotFree.New("A"))
	}
	r.Det.Enter("A")
	until := asked.Add(ttl - tol)
	r.Note(mBehindPolls.New(-behind, ttl, tol))
	for time.Now().Before(until) {
		if b.TryAcquire(ttl) != nil {
			at := time.Since(asked)
			if at >= ttl {
				break // returned past A's TTL: proves nothing
			}
			r.Det.Enter("B")
			return r.BreaksRule(history.OneHolder, mBehindEarly.New(-behind, ttl))
		}
		time.Sleep(2 * r.Tm.Poll)
	}
	return r.Holds(mHolderClockHolds.New(ahead, -behind))
}

// holder-clock's messages.
var (
	mAheadOutlived = msg.Define("holder-clock.breaks-ahead", msg.K(msg.Duration, msg.Duration, msg.Duration),
		"A's clock ran {0} ahead when it acquired and crashed, and B still could not acquire the lock {1} later: A's clock set the lock's expiry, which outlived the TTL of {2} by the skew")
	mBehindPolls = msg.Define("holder-clock.behind", msg.K(msg.Duration, msg.Duration, msg.Duration),
		"A, its clock {0} behind, holds the lock for a TTL of {1}; B polls with the same TTL until {2} before its end")
	mBehindEarly = msg.Define("holder-clock.breaks-behind", msg.K(msg.Duration, msg.Duration),
		"A's clock ran {0} behind when it acquired for a TTL of {1}, and B acquired the lock before that TTL had passed, while A was alive and not paused: A's clock set the lock's expiry, which came early by the skew")
	mHolderClockHolds = msg.Define("holder-clock.holds", msg.K(msg.Duration, msg.Duration),
		"the lock lived as long as asked with A's clock {0} ahead (a crashed A's lock freed within its TTL and the slack) and {1} behind (nobody got in before its TTL)")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("holder-clock.scenario", nil,
		"the holder's own clock runs ahead of the server's by more than the TTL, then behind it: ahead, the holder acquires and crashes; behind, it acquires and stays alive")
	_ = msg.Define("holder-clock.must", nil,
		"ahead, a waiter gets the lock within the TTL and the slack; behind, nobody acquires before the TTL has passed; n/a for a lock that never reads the client's clock")
)
