package props

import (
	"fmt"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// CrashMidAcquire: a client dies between the commands of its acquire,
// after each command in turn; a waiter must still get the lock.

func init() {
	register(Property{
		id: "crash-mid-acquire", order: 50, Scenario: crashMidAcquire,
		breaks:     "a client that died between the commands of its acquire left a lock nobody could acquire",
		Structural: true,
	}, func(tm sim.Timing) floors {
		// It begins by making a stale lock (makeStale), whatever the
		// lock: the waits after a crash depend on which commands were
		// sent, not counted.
		return floors{Any: tm.Short + tm.StaleAfter(), Holds: tm.Short + tm.StaleAfter()}
	})
}

// crashMidAcquire: for every way an acquire can go, and every point between
// two of its commands, A dies there; B must still get the lock.
func crashMidAcquire(newRun func(string) *harness.Run) harness.Outcome {
	stale := harness.MakeStale(newRun)
	split := false
	var last *harness.Run
	for _, path := range harness.Probe(newRun, stale) {
		for k := 1; k < path.Commands; k++ {
			split = true
			r := newRun(fmt.Sprintf("/%s-%d", path.Name, k))
			last = r
			if path.Stale {
				stale.Restore(r)
			}
			a, b := r.NewClient("A", 0), r.NewClient("B", 0)
			a.CrashAfterNext(k)
			if l := a.TryAcquire(r.Tm.Short); l != nil {
				a.Crash(harness.MsgCrashHolding.New())
			}
			wait := r.Tm.Short + r.Tm.Slack
			r.Note(mBWaitsTTL.New(wait, r.Tm.Short))
			since := r.Rec.Now()
			if b.WaitFree(r.Tm.Short, wait, r.Tm.Short+r.Tm.StaleAfter()) == nil {
				m := mMidAcquireFree
				if path.Stale {
					m = mMidAcquireStale
				}
				return r.BreaksUnfreed("B", since, wait-r.Tm.Poll, m.New(k, path.Commands, wait))
			}
			r.Shutdown()
		}
	}
	if !split {
		r := newRun("/none")
		return r.NotApplicable(mMidAcquireOne.New())
	}
	return last.Holds(mMidAcquireHolds.New())
}

// crash-mid-acquire's messages.
var (
	mMidAcquireFree = msg.Define("crash-mid-acquire.breaks-free", msg.K(msg.Count, msg.Count, msg.Duration),
		"A died after command {0} of {1} of its acquire on a free lock, and B still could not acquire it {2} later")
	mMidAcquireStale = msg.Define("crash-mid-acquire.breaks-stale", msg.K(msg.Count, msg.Count, msg.Duration),
		"A died after command {0} of {1} of its acquire on a stale lock, and B still could not acquire it {2} later")
	mMidAcquireOne = msg.Define("crash-mid-acquire.n/a", nil,
		"a successful acquire sends a single command, on a free key and on a stale lock: there is no boundary between commands to die at")
	mMidAcquireHolds = msg.Define("crash-mid-acquire.holds", nil,
		"wherever A died inside its acquire, B got the lock within the TTL")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("crash-mid-acquire.scenario", nil,
		"a client dies between the commands of its acquire, at each boundary in turn")
	_ = msg.Define("crash-mid-acquire.must", nil,
		"a waiter still gets the lock")
)
