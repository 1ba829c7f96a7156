package props

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderRenewAfterRelease, PermitRenewAfterRelease: renew-after-release
// for a read lock and for a permit. A takes its hold in the mode with
// renewed-overrun's TTL and does nothing for that TTL; what its lock sends
// on its keys meanwhile, it sends of its own accord (a watchdog). Once A's
// Release has returned, the lock must send nothing more on its keys for
// a TTL and Short more. A lock that sent nothing while A held is n/a, as
// the mutex's is: it does not renew itself (Redisson's read watchdog
// that renewed on after the final unlock, PR 7251, is the break).

func init() {
	register(Property{
		id: "reader-renew-after-release", order: 1037, Kind: strategy.ReadWrite,
		Scenario:   modeRenew(strategy.ReadWrite),
		breaks:     "the lock sent a command on its keys after a reader's Release had returned: a renewal, or a watchdog, of the read lock outlived the release",
		Structural: true,
	}, renewFloor)
	register(Property{
		id: "permit-renew-after-release", order: 1127, Kind: strategy.Semaphore,
		Scenario:   modeRenew(strategy.Semaphore),
		breaks:     "the lock sent a command on its keys after a permit's Release had returned: a renewal, or a watchdog, of the permit outlived the release",
		Structural: true,
	}, renewFloor)
}

// renewFloor is renew-after-release's floor in every mode: A holds for
// its TTL (and, renewing, until its next renewal), then the suite
// watches for a TTL and Short more.
func renewFloor(tm sim.Timing) floors {
	d := 2*tm.RenewedTTL() + tm.Short
	return floors{Any: d, Holds: d}
}

// modeRenew is renew-after-release in kind's mode: A, alone, takes a
// read lock or one permit.
func modeRenew(kind strategy.Kind) Scenario {
	return func(newRun func(string) *harness.Run) harness.Outcome {
		m, res := modeOf(newRun, kind)
		if res != nil {
			return *res
		}
		r := newRun("")
		a := r.NewClient("A", 0)
		h, ok := m.Take(a, r.Tm.RenewedTTL())
		if !ok {
			r.Fail(harness.MsgFailNotFree.New("A"))
		}
		return renewWatched(r, a, func() { a.ReleaseHeld(h) })
	}
}

// The table of the docs: what the scenario does, and what must hold.
var (
	_ = msg.Define("reader-renew-after-release.scenario", nil,
		"a reader does nothing for its TTL while the suite lists what its lock sends of its own accord (renewals); then it releases, and the suite watches its commands for a TTL more")
	_ = msg.Define("reader-renew-after-release.must", nil,
		"once the reader's Release has returned, the lock sends no command on its keys: no renewal outlives the release")
	_ = msg.Define("permit-renew-after-release.scenario", nil,
		"a holder of one permit does nothing for its TTL while the suite lists what its lock sends of its own accord (renewals); then it releases, and the suite watches its commands for a TTL more")
	_ = msg.Define("permit-renew-after-release.must", nil,
		"once the permit's Release has returned, the lock sends no command on its keys: no renewal outlives the release")
)
