package locktest

import (
	"fmt"

	"github.com/locklab/locklab/internal/msg"
)

// CrashMidAcquire: a client dies between the commands of its acquire,
// after each command in turn; a waiter must still get the lock.

func init() {
	register(property{
		id: "crash-mid-acquire", order: 50, scenario: crashMidAcquire,
		breaks:     "a client that died between the commands of its acquire left a lock nobody could acquire",
		structural: true,
	}, func(tm timing) floors {
		// It begins by making a stale lock (makeStale), whatever the
		// lock: the waits after a crash depend on which commands were
		// sent, not counted.
		return floors{any: tm.Short + tm.staleAfter(), holds: tm.Short + tm.staleAfter()}
	})
}

// crashMidAcquire: for every way an acquire can go, and every point between
// two of its commands, A dies there; B must still get the lock.
func crashMidAcquire(newRun func(string) *run) outcome {
	stale := makeStale(newRun)
	split := false
	var last *run
	for _, path := range probe(newRun, stale) {
		for k := 1; k < path.commands; k++ {
			split = true
			r := newRun(fmt.Sprintf("/%s-%d", path.name, k))
			last = r
			if path.stale {
				r.restore(stale)
			}
			a, b := r.newClient("A", 0), r.newClient("B", 0)
			a.mu.Lock()
			a.crashAfter = a.sent + k
			a.mu.Unlock()
			if l := a.tryAcquire(r.tm.Short); l != nil {
				a.crash(mCrashHolding.New())
			}
			wait := r.tm.Short + r.tm.Slack
			r.note(mBWaitsTTL.New(wait, r.tm.Short))
			since := r.rec.now()
			if b.waitFree(r.tm.Short, wait, r.tm.Short+r.tm.staleAfter()) == nil {
				m := mMidAcquireFree
				if path.stale {
					m = mMidAcquireStale
				}
				return r.breaksUnfreed("B", since, wait-r.tm.Poll, m.New(k, path.commands, wait))
			}
			r.shutdown()
		}
	}
	if !split {
		r := newRun("/none")
		return r.notApplicable(mMidAcquireOne.New())
	}
	return last.holds(mMidAcquireHolds.New())
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
