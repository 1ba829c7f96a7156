package locktest

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// ClockSkew: while the lock is held, a client whose clock runs ahead by
// more than the TTL tries to acquire it, and must fail.

func init() {
	register(property{
		id: "clock-skew", order: 80, scenario: clockSkew,
		breaks:     "a client whose clock ran ahead took a lock that was still held",
		structural: true,
	}, func(tm timing) floors {
		// B, its clock 2*Long ahead, tries for 20*Poll and must not get
		// the lock A holds for Long.
		return floors{holds: 20 * tm.Poll}
	})
}

// clockSkew: A holds the lock with a long TTL; B, whose clock runs ahead by
// twice that TTL, tries for a while and must not get in.
func clockSkew(newRun func(string) *run) outcome {
	r := newRun("")
	a, b := r.newClient("A", 0), r.newClient("B", 2*r.tm.Long)
	a.mustAcquire(r.tm.Long)
	r.det.enter("A")
	before := r.clockReads.Load()
	lb := b.acquire(r.tm.Long, 20*r.tm.Poll)
	if lb != nil {
		r.det.enter("B")
		if r.clockReads.Load() == before {
			return r.breaksRule(history.OneHolder, mSkewNoClock.New(r.tm.Long))
		}
		return r.breaksRule(history.OneHolder, mSkewTook.New(2*r.tm.Long, r.tm.Long))
	}
	if r.clockReads.Load() == before {
		return r.neverReadsClock()
	}
	return r.holds(mSkewHolds.New(2 * r.tm.Long))
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
