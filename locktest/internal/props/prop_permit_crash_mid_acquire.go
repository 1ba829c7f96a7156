package props

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// PermitCrashMidAcquire: crash-mid-acquire for a permit. A client dies
// between the commands of its acquire of a permit, at each boundary in
// turn, on a free semaphore and taking the last permit; once its TTL has
// passed, every permit must be taken, and no more.

func init() {
	register(Property{
		id: "permit-crash-mid-acquire", order: 1112, Kind: strategy.Semaphore,
		Scenario: modeCrashMid(strategy.Semaphore, "acquire", modeCrashMsgs{
			died: mPermitMidAcquireDied, diedBeside: mPermitMidAcquireLast,
			one: mPermitMidAcquireOne, holds: mPermitMidAcquireHolds,
		}),
		breaks:     "a client that died between the commands of its acquire of a permit kept it past its TTL, or let one holder too many in",
		Structural: true,
	}, func(tm sim.Timing) floors {
		// The waits after a crash depend on which commands were sent,
		// and there is none without a boundary: no certain floor.
		return floors{}
	})
}

// permit-crash-mid-acquire's messages.
var (
	mPermitMidAcquireDied = msg.Define("permit-crash-mid-acquire.died", msg.K(msg.Sub),
		"A died {0}, taking a permit of a free semaphore")
	mPermitMidAcquireLast = msg.Define("permit-crash-mid-acquire.died-last", msg.K(msg.Sub),
		"A died {0}, taking the last permit")
	mPermitMidAcquireOne = msg.Define("permit-crash-mid-acquire.n/a", msg.K(msg.Count, msg.Count),
		"an acquire of a permit sends {0} {0|command|commands} on a free semaphore and {1} for the last permit: there is no boundary between commands to die at")
	mPermitMidAcquireHolds = msg.Define("permit-crash-mid-acquire.holds", nil,
		"wherever A died inside its acquire of a permit, once its TTL had passed every permit could be taken, and no more")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("permit-crash-mid-acquire.scenario", nil,
		"a client dies between the commands of its acquire of a permit, at each boundary in turn, on a free semaphore and taking the last permit")
	_ = msg.Define("permit-crash-mid-acquire.must", nil,
		"once its TTL has passed, a waiter gets the last permit, and nobody one more")
)
