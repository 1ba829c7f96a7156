package props

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderSafeRefresh: safe-refresh for a reader. A reader is paused past
// its TTL, before its Refresh and then at each boundary between its
// commands in turn, and a writer takes the lock; the reader's late
// Refresh, taken on one command at a time, must fail and let nobody in
// beside the writer.

func init() {
	register(Property{
		id: "reader-safe-refresh", order: 1035, Kind: strategy.ReadWrite,
		Scenario: modeLate(strategy.ReadWrite, "refresh", modeLateMsgs{
			na: mRefreshNA, claimed: mReaderRefreshClaimed, holds: mReaderRefreshHolds,
		}),
		breaks: "a reader's Refresh sent after its TTL ran out claimed the lock from the writer that held it, let a reader or a writer in beside it, or, paused inside, kept the writer out past its TTL",
	}, func(tm sim.Timing) floors {
		// A, paused, reads with the Short TTL; W writes only once it has
		// run out (at least once: the other boundaries are not counted).
		return floors{Holds: tm.Short}
	})
}

// reader-safe-refresh's messages.
var (
	mReaderRefreshClaimed = msg.Define("reader-safe-refresh.claimed", msg.K(msg.Sub),
		"A was paused {0} until the TTL of its read lock ran out and W took the lock to write; A's late Refresh then reported success: A would go on reading while W writes")
	mReaderRefreshHolds = msg.Define("reader-safe-refresh.holds", msg.K(msg.Count),
		"A's late Refresh of its read lock, paused at each of its {0} {0|boundary|boundaries} in turn until W wrote, failed and let neither a reader nor a writer in beside W")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-safe-refresh.scenario", nil,
		"a reader is paused past its TTL (before its Refresh, then at each boundary between the Refresh's commands in turn), and a writer takes the lock; then the reader's Refresh goes on one command at a time, and a reader and a writer try after each")
	_ = msg.Define("reader-safe-refresh.must", nil,
		"the writer gets in once the reader's TTL has passed; the late Refresh fails, and neither gets in beside the writer")
)
