package props

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// PermitCrashMidRelease: crash-mid-release for a permit. A holder dies
// between the commands of the release of its permit, at each boundary in
// turn, alone and holding the last permit; once its TTL has passed,
// every permit must be taken, and no more.

func init() {
	register(Property{
		id: "permit-crash-mid-release", order: 1114, Kind: strategy.Semaphore,
		Scenario: modeCrashMid(strategy.Semaphore, "release", modeCrashMsgs{
			died: mPermitMidReleaseDied, diedBeside: mPermitMidReleaseLast,
			one: mPermitMidReleaseOne, holds: mPermitMidReleaseHolds,
		}),
		breaks:     "a holder that died between the commands of the release of its permit kept it past its TTL, or let one holder too many in",
		Structural: true,
	}, func(tm sim.Timing) floors {
		// Whether W waits for A's TTL depends on which of the release's
		// commands ran: no certain floor.
		return floors{}
	})
}

// permit-crash-mid-release's messages.
var (
	mPermitMidReleaseDied = msg.Define("permit-crash-mid-release.died", msg.K(msg.Sub),
		"A, the only holder, died {0}")
	mPermitMidReleaseLast = msg.Define("permit-crash-mid-release.died-last", msg.K(msg.Sub),
		"A, holding the last permit, died {0}")
	mPermitMidReleaseOne = msg.Define("permit-crash-mid-release.n/a", msg.K(msg.Count, msg.Count),
		"the release of a permit sends {0} {0|command|commands} alone and {1} beside the other holders: there is no boundary between commands to die at")
	mPermitMidReleaseHolds = msg.Define("permit-crash-mid-release.holds", nil,
		"wherever A died inside the release of its permit, once its TTL had passed every permit could be taken, and no more")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("permit-crash-mid-release.scenario", nil,
		"a holder dies between the commands of the release of its permit, at each boundary in turn, alone and holding the last permit")
	_ = msg.Define("permit-crash-mid-release.must", nil,
		"once its TTL has passed, a waiter gets the last permit, and nobody one more")
)
