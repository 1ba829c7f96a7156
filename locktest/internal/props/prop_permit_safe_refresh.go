package props

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// PermitSafeRefresh: safe-refresh for a permit. A holder is paused past
// its TTL, before its Refresh and then at each boundary between its
// commands in turn, while the other permits are taken and W takes its
// own; the late Refresh, taken on one command at a time, must fail and
// let nobody take one permit more than N. The shape of
// redis-semaphore's issue 175, a refresh that took an expired permit
// again when there was room.

func init() {
	register(Property{
		id: "permit-safe-refresh", order: 1122, Kind: strategy.Semaphore,
		Scenario: modeLate(strategy.Semaphore, "refresh", modeLateMsgs{
			na: mRefreshNA, claimed: mPermitRefreshClaimed, holds: mPermitRefreshHolds,
		}),
		breaks: "a Refresh of a permit sent after its TTL ran out took it back from its next holder, let one holder too many in, or, paused inside, kept the permit past its TTL",
	}, func(tm sim.Timing) floors {
		// A, paused, holds with the Short TTL; W takes its permit only
		// once it has run out (at least once: the other boundaries are
		// not counted).
		return floors{Holds: tm.Short}
	})
}

// permit-safe-refresh's messages.
var (
	mPermitRefreshClaimed = msg.Define("permit-safe-refresh.claimed", msg.K(msg.Sub),
		"A was paused {0} until the TTL of its permit ran out and W took it; A's late Refresh then reported success: one holder more than the semaphore allows")
	mPermitRefreshHolds = msg.Define("permit-safe-refresh.holds", msg.K(msg.Count),
		"A's late Refresh of its permit, paused at each of its {0} {0|boundary|boundaries} in turn until W took the permit, failed and let nobody hold one more than the semaphore has")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("permit-safe-refresh.scenario", nil,
		"a holder is paused past its TTL (before its Refresh, then at each boundary between the Refresh's commands in turn) while the other permits are taken and a waiter takes its own; then the Refresh goes on one command at a time, and another client tries for a permit after each")
	_ = msg.Define("permit-safe-refresh.must", nil,
		"the waiter gets the permit once the holder's TTL has passed; the late Refresh fails, and nobody holds one more than N")
)
