package props

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderCrashMidRelease: crash-mid-release for a reader. A reader dies
// between the commands of its release, at each boundary in turn, alone
// and beside another reader; once its TTL has passed, what it left must
// let a reader in and keep a writer out while that reader holds, and let
// the writer in once it has gone.

func init() {
	register(Property{
		id: "reader-crash-mid-release", order: 1024, Kind: strategy.ReadWrite,
		Scenario: modeCrashMid(strategy.ReadWrite, "release", modeCrashMsgs{
			died: mReaderMidReleaseDied, diedBeside: mReaderMidReleaseBeside,
			one: mReaderMidReleaseOne, holds: mReaderMidReleaseHolds,
		}),
		breaks:     "a reader that died between the commands of its release left what kept a writer out past its TTL, or let a reader and a writer in together",
		Structural: true,
	}, func(tm sim.Timing) floors {
		// Whether W waits for A's TTL depends on which of the release's
		// commands ran: no certain floor.
		return floors{}
	})
}

// reader-crash-mid-release's messages.
var (
	mReaderMidReleaseDied = msg.Define("reader-crash-mid-release.died", msg.K(msg.Sub),
		"A, the only reader, died {0}")
	mReaderMidReleaseBeside = msg.Define("reader-crash-mid-release.died-beside", msg.K(msg.Sub),
		"A died {0}, beside B's read lock")
	mReaderMidReleaseOne = msg.Define("reader-crash-mid-release.n/a", msg.K(msg.Count, msg.Count),
		"a reader's release sends {0} {0|command|commands} alone and {1} beside another reader: there is no boundary between commands to die at")
	mReaderMidReleaseHolds = msg.Define("reader-crash-mid-release.holds", nil,
		"wherever A died inside the release of its read lock, once its TTL had passed a reader got in and kept a writer out, and the writer got in once that reader had gone")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-crash-mid-release.scenario", nil,
		"a reader dies between the commands of its release, at each boundary in turn, alone and beside another reader")
	_ = msg.Define("reader-crash-mid-release.must", nil,
		"once its TTL has passed, a reader gets in and keeps a writer out, which gets in once that reader has gone")
)
