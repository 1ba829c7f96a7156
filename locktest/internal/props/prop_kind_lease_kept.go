package props

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderLeaseKept, PermitLeaseKept: lease-kept for a reader and for a
// permit. While A, alive and not paused, holds its read lock (alone) or
// the last permit (the others held by H1…HN-1), nobody may take what A's
// hold forbids before the TTL A asked for has passed: B tries to write,
// or for one permit more, with A's TTL, then C alone with a tenth of it,
// as lease-kept's probes do. A grant beside A's valid hold is a break the
// judge finds among the holds (history.OneHolder, over the permits). A
// lock that can be refreshed goes through it again, A's lease given by
// Refresh.

func init() {
	register(Property{
		id: "reader-lease-kept", order: 1028, Kind: strategy.ReadWrite,
		Scenario: modeLeaseKept(strategy.ReadWrite, mReaderKeptBreaks, mReaderKeptHolds),
		breaks:   "a writer got in before the TTL a reader, alive and not paused, had asked for had passed",
	}, keptFloor)
	register(Property{
		id: "permit-lease-kept", order: 1117, Kind: strategy.Semaphore,
		Scenario: modeLeaseKept(strategy.Semaphore, mPermitKeptBreaks, mPermitKeptHolds),
		breaks:   "a permit more than N was taken before the TTL a holder, alive and not paused, had asked for had passed",
	}, keptFloor)
}

// keptFloor is lease-kept's floor in every mode: A holds for kept; B and
// C probe until keptTolerance before its end.
func keptFloor(tm sim.Timing) floors { return floors{Holds: tm.Kept() - tm.KeptTolerance()} }

// modeLeaseKept is lease-kept in kind's mode (keptWay).
func modeLeaseKept(kind strategy.Kind, breaks, holds *msg.Def) Scenario {
	return func(newRun func(string) *harness.Run) harness.Outcome {
		m, res := modeOf(newRun, kind)
		if res != nil {
			return *res
		}
		return keptRounds(newRun, keptWay{mode: &m, breaks: breaks, holds: holds})
	}
}

// The lease-kept properties' messages of the kinds.
var (
	mReaderKeptBreaks = msg.Define("reader-lease-kept.breaks", msg.K(msg.Client, msg.Duration, msg.Sub, msg.Duration),
		"{0} took the lock to write {1} after {2}: A, reading, alive and not paused, lost its read lock at least {3} early")
	mReaderKeptHolds = msg.Define("reader-lease-kept.holds", msg.K(msg.Duration, msg.Duration, msg.Duration),
		"nobody took the lock to write while A read for {0} (B tried with the same TTL, then C with {1}, until {2} before its end)")
	mPermitKeptBreaks = msg.Define("permit-lease-kept.breaks", msg.K(msg.Client, msg.Duration, msg.Sub, msg.Duration),
		"{0} took a permit {1} after {2}, while the others held the rest: A, alive and not paused, lost its permit at least {3} early")
	mPermitKeptHolds = msg.Define("permit-lease-kept.holds", msg.K(msg.Duration, msg.Duration, msg.Duration),
		"nobody took a permit more while A held the last for {0} (B tried with the same TTL, then C with {1}, until {2} before its end)")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-lease-kept.scenario", nil,
		"a reader, alone, alive and not paused, holds a 300 ms read lease; two other clients try to write, one with the same TTL and one with a tenth of it, until 30 ms before the lease ends; then again with the lease given by a Refresh")
	_ = msg.Define("reader-lease-kept.must", nil,
		"nobody writes before the TTL the reader asked for has passed (tolerance: a tenth of the TTL, at least 20 ms)")
	_ = msg.Define("permit-lease-kept.scenario", nil,
		"the other permits held, a holder, alive and not paused, holds the last with a 300 ms lease; two other clients try for a permit, one with the same TTL and one with a tenth of it, until 30 ms before the lease ends; then again with the lease given by a Refresh")
	_ = msg.Define("permit-lease-kept.must", nil,
		"nobody takes a permit more than N before the TTL the holder asked for has passed (tolerance: a tenth of the TTL, at least 20 ms)")
)
