package props

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// PermitFaults: acquire-faults and release-faults for a permit. At each
// command of the acquire of a permit, and then of its release, in turn,
// the suite injects each fault of reader-faults. A permit the faulted
// acquire returns must count among the N, and its release give it back;
// whatever else the faulted call left must give its permit back once
// its TTL has passed, and let nobody take one more than N
// (KindMode.LeftFree).

func init() {
	register(Property{
		id: "permit-faults", order: 1125, Kind: strategy.Semaphore,
		Scenario: modeFaults(strategy.Semaphore, modeFaultMsgs{
			granted: mPermitFaultGranted, refused: mPermitFaultRefused, released: mPermitFaultReleased,
			none: mPermitFaultsNone, holds: mPermitFaultsHold,
		}),
		breaks: "an acquire or release of a permit that met an error reply, a lost reply or a dropped connection kept the permit past its TTL, or let one holder too many in",
	}, func(tm sim.Timing) floors {
		// At least a lost reply to the acquire's command, whose permit
		// W waits for until its Short TTL has passed; a break may come
		// at the first fault.
		return floors{Holds: tm.Short}
	})
}

// permit-faults' messages.
var (
	mPermitFaultGranted = msg.Define("permit-faults.granted", msg.K(msg.Sub),
		"with {0}, B's acquire returned a permit, which B then released")
	mPermitFaultRefused = msg.Define("permit-faults.refused", msg.K(msg.Sub, msg.Text),
		"with {0}, B's acquire of a permit failed ({1})")
	mPermitFaultReleased = msg.Define("permit-faults.released", msg.K(msg.Sub, msg.Text),
		"with {0}, B's release of its permit returned {1}")
	mPermitFaultsNone = msg.Define("permit-faults.n/a", nil,
		"the acquire and the release of a permit sent no command to fault")
	mPermitFaultsHold = msg.Define("permit-faults.holds", msg.K(msg.Count, msg.Count),
		"with {0} faults injected in turn at the commands of the acquire and the release of a permit ({1} commands), no permit was kept past its TTL and nobody held one more than the semaphore has")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("permit-faults.scenario", nil,
		"at each command of the acquire of a permit, then of its release, in turn, the suite answers the command with an error reply in Redis's place (`LOADING`, and `NOSCRIPT` for an `EVALSHA`), lets it run and drops the connection before the reply, or drops the connection before the command")
	_ = msg.Define("permit-faults.must", nil,
		"a permit the acquire returns counts among the N, and its release gives it back; once the holder's TTL has passed, whatever the faulted call left gives its permit back, and nobody holds one more than N")
)
