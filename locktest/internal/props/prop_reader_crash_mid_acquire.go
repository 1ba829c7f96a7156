package props

import (
	"fmt"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderCrashMidAcquire: crash-mid-acquire for a reader. A reader dies
// between the commands of its acquire, at each boundary in turn, on a
// free lock and beside another reader; once its TTL has passed, what it
// left must let a reader in and keep a writer out while that reader
// holds, and let the writer in once it has gone.

func init() {
	register(Property{
		id: "reader-crash-mid-acquire", order: 1022, Kind: strategy.ReadWrite,
		Scenario: modeCrashMid(strategy.ReadWrite, "acquire", modeCrashMsgs{
			died: mReaderMidAcquireDied, diedBeside: mReaderMidAcquireBeside,
			one: mReaderMidAcquireOne, holds: mReaderMidAcquireHolds,
		}),
		breaks:     "a reader that died between the commands of its acquire left what kept a writer out past its TTL, or let a reader and a writer in together",
		Structural: true,
	}, func(tm sim.Timing) floors {
		// The waits after a crash depend on which commands were sent,
		// and there is none without a boundary: no certain floor.
		return floors{}
	})
}

// modeCrashMsgs are what a crash-mid property of a kind says: what A did
// (on a free lock, and beside the others), that the operation has no
// boundary, and that it holds.
type modeCrashMsgs struct{ died, diedBeside, one, holds *msg.Def }

// modeOf returns the mode of kind that the run's lock is taken in, or the
// n/a of a lock of another kind.
func modeOf(newRun func(string) *harness.Run, kind strategy.Kind) (harness.KindMode, *harness.Outcome) {
	r := newRun("/mode")
	m, na := harness.ModeOf(r.NewClient("P", 0), kind)
	if !na.IsZero() {
		res := r.NotApplicable(na)
		return m, &res
	}
	r.Shutdown()
	return m, nil
}

// modeCrashMid is crash-mid-acquire (op "acquire") or crash-mid-release
// ("release") in kind's mode: for each path (a free lock, then beside the
// others: another reader, or every permit but one held) and every
// boundary between two commands of A's op, A dies there, holding with the
// Short TTL; what it left must be free once that TTL has passed
// (KindMode.LeftFree).
func modeCrashMid(kind strategy.Kind, op string, ms modeCrashMsgs) Scenario {
	return func(newRun func(string) *harness.Run) harness.Outcome {
		m, res := modeOf(newRun, kind)
		if res != nil {
			return *res
		}
		var last *harness.Run
		counts := []int{}
		for _, beside := range []bool{false, true} {
			ops := m.CountOps(newRun, beside)
			n := ops.Acquire
			if op == "release" {
				n = ops.Release
			}
			counts = append(counts, n)
			for k := 1; k < n; k++ {
				path, died := "free", ms.died
				if beside {
					path, died = "beside", ms.diedBeside
				}
				r := newRun(fmt.Sprintf("/%s-%d", path, k))
				last = r
				release, held := func() {}, 0
				if beside {
					release, held = m.Beside(r, "B")
				}
				a := r.NewClient("A", 0)
				at := r.Rec.Now()
				if op == "acquire" {
					a.CrashAfterNext(k)
					if _, ok := m.Take(a, r.Tm.Short); ok {
						a.Crash(harness.MsgCrashHolding.New())
					}
				} else {
					h, ok := m.Take(a, r.Tm.Short)
					if !ok {
						r.Fail(harness.MsgFailNotFree.New("A"))
					}
					a.CrashAfterNext(k)
					a.ReleaseHeld(h)
				}
				release()
				if res := m.LeftFree(r, "A", at, r.Tm.Short, held, died.New(harness.Boundary(k, n, op))); res != nil {
					return *res
				}
				r.Shutdown()
			}
		}
		if last == nil {
			return newRun("/none").NotApplicable(ms.one.New(counts[0], counts[1]))
		}
		return last.Holds(ms.holds.New())
	}
}

// reader-crash-mid-acquire's messages.
var (
	mReaderMidAcquireDied = msg.Define("reader-crash-mid-acquire.died", msg.K(msg.Sub),
		"A died {0}, taking a read lock on a free lock")
	mReaderMidAcquireBeside = msg.Define("reader-crash-mid-acquire.died-beside", msg.K(msg.Sub),
		"A died {0}, taking a read lock beside B's")
	mReaderMidAcquireOne = msg.Define("reader-crash-mid-acquire.n/a", msg.K(msg.Count, msg.Count),
		"a reader's acquire sends {0} {0|command|commands} on a free lock and {1} beside another reader: there is no boundary between commands to die at")
	mReaderMidAcquireHolds = msg.Define("reader-crash-mid-acquire.holds", nil,
		"wherever A died inside its acquire of a read lock, once its TTL had passed a reader got in and kept a writer out, and the writer got in once that reader had gone")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-crash-mid-acquire.scenario", nil,
		"a reader dies between the commands of its acquire, at each boundary in turn, on a free lock and beside another reader")
	_ = msg.Define("reader-crash-mid-acquire.must", nil,
		"once its TTL has passed, a reader gets in and keeps a writer out, which gets in once that reader has gone")
)
