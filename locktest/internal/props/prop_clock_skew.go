package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// ClockSkew: while the lock is held, a client whose clock runs ahead by
// more than the TTL tries to acquire it, and must fail.

func init() {
	register(Property{
		id: "clock-skew", order: 80, Scenario: clockSkew,
		breaks:     "a client whose clock ran ahead took a lock that was still held",
		Structural: true,
	}, func(tm sim.Timing) floors {
		// B, its clock 2*Long ahead, tries for 20*Poll and must not get
		// the lock A holds for Long.
		return floors{Holds: 20 * tm.Poll}
	})
}

// clockSkew: A holds the lock with a long TTL; B, whose clock runs ahead by
// twice that TTL, tries for a while and must not get in.
func clockSkew(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	a, b := r.NewClient("A", 0), r.NewClient("B", 2*r.Tm.Long)
	a.MustAcquire(r.Tm.Long)
	r.Det.Enter("A")
	before := r.ClockReads.Load()
	lb := b.Acquire(r.Tm.Long, 20*r.Tm.Poll)
	if lb != nil {
		r.Det.Enter("B")
		if r.ClockReads.Load() == before {
			return r.BreaksRule(history.OneHolder, mSkewNoClock.New(r.Tm.Long))
		}
		return r.BreaksRule(history.OneHolder, mSkewTook.New(2*r.Tm.Long, r.Tm.Long))
	}
	if r.ClockReads.Load() == before {
		return r.NeverReadsClock()
	}
	return r.Holds(mSkewHolds.New(2 * r.Tm.Long))
}

// clock-skew's messages.
var (
	mSkewNoClock = msg.Define("clock-skew.breaks-no-clock", msg.K(msg.Duration),
		"B took the lock A holds with {0} of its TTL left, without ever reading its clock: the skew played no part")
	mSkewTook = msg.Define("clock-skew.breaks", msg.K(msg.Duration, msg.Duration),
		"B, its clock {0} ahead, took the lock A holds with {1} of its TTL left")
	mSkewHolds = msg.Define("clock-skew.holds", msg.K(msg.Duration),
		"B's clock ran {0} ahead and it still could not take A's lock")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("clock-skew.scenario", nil,
		"a client whose clock runs ahead by more than the TTL tries to take a held lock")
	_ = msg.Define("clock-skew.must", nil,
		"it must fail")
)
