package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderDoubleRelease: double-release for a reader. A reader releases its
// read lock twice: beside another reader, whose hold must keep a writer
// out; and once a writer holds the lock, which must keep a reader and
// another writer out. The second release runs one command at a time, the
// others trying after each; the judge finds a grant beside a valid hold
// (OneHolder). The shape of a count of readers decremented once per
// release, whoever releases.

func init() {
	register(Property{
		id: "reader-double-release", order: 1034, Scenario: readerDoubleRelease, Kind: strategy.ReadWrite,
		breaks: "a reader's second release let a writer in beside another reader, or a reader or a writer in beside the writer",
	}, func(tm sim.Timing) floors {
		// Every hold has the Long TTL, which never runs out: nothing to
		// wait for.
		return floors{}
	})
}

// readerDoubleRelease: A and B read, and A releases twice; W must be
// refused the write lock while B holds its read lock. Then A reads and
// releases, W writes, and A releases again; R must be refused a read and
// X the write lock while W holds it.
func readerDoubleRelease(newRun func(string) *harness.Run) harness.Outcome {
	m, res := modeOf(newRun, strategy.ReadWrite)
	if res != nil {
		return *res
	}
	n := m.CountOps(newRun, false).Release
	second := func(a *harness.Client, h sim.Held, probe func() *harness.Outcome) *harness.Outcome {
		p := a.PauseInside(0, n, "second release", func() { a.ReleaseHeld(h) })
		if !p.Reached {
			return probe() // it sent nothing
		}
		return harness.StepLate(p, probe)
	}

	r := newRun("/beside")
	a, w := r.NewClient("A", 0), r.NewClient("W", 0)
	ha, ok := m.Take(a, r.Tm.Long)
	if !ok {
		r.Fail(harness.MsgFailNotFree.New("A"))
	}
	release, _ := m.Beside(r, "B")
	a.ReleaseHeld(ha)
	if res := second(a, ha, func() *harness.Outcome {
		return harness.Refused(w, history.Exclusive, 0, mReaderTwiceBeside.New())
	}); res != nil {
		return *res
	}
	release()
	r.Shutdown()

	r = newRun("/writer")
	a, w = r.NewClient("A", 0), r.NewClient("W", 0)
	if ha, ok = m.Take(a, r.Tm.Long); !ok {
		r.Fail(harness.MsgFailNotFree.New("A"))
	}
	a.ReleaseHeld(ha)
	if _, ok := w.TryMode(history.Exclusive, 0, r.Tm.Long); !ok {
		return r.NotApplicable(mReaderTwiceNA.New())
	}
	rd, x := r.NewClient("R", 0), r.NewClient("X", 0)
	if res := second(a, ha, func() *harness.Outcome {
		if res := harness.Refused(rd, history.Shared, 0, mReaderTwiceRead.New()); res != nil {
			return res
		}
		return harness.Refused(x, history.Exclusive, 0, mReaderTwiceWrite.New())
	}); res != nil {
		return *res
	}
	return r.Holds(mReaderTwiceHolds.New())
}

// reader-double-release's messages.
var (
	mReaderTwiceBeside = msg.Define("reader-double-release.beside", nil,
		"A released its read lock twice while B held its own, and W took the lock to write beside B")
	mReaderTwiceNA = msg.Define("reader-double-release.n/a", nil,
		"A's release of its read lock did not let W write, so no writer holds the lock between A's two releases")
	mReaderTwiceRead = msg.Define("reader-double-release.read-in", nil,
		"A released its read lock, W took the lock to write, and after A's second release R got a read lock while W held the write lock")
	mReaderTwiceWrite = msg.Define("reader-double-release.write-in", nil,
		"A released its read lock, W took the lock to write, and after A's second release X took the write lock while W held it")
	mReaderTwiceHolds = msg.Define("reader-double-release.holds", nil,
		"A's second release of its read lock let no writer in beside B's read lock, and neither a reader nor a writer in beside W's write lock")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-double-release.scenario", nil,
		"a reader releases its read lock twice: beside another reader, and once a writer holds the lock; the second release runs one command at a time, and the others try after each")
	_ = msg.Define("reader-double-release.must", nil,
		"no writer gets in beside the other reader, and neither a reader nor a writer beside the writer")
)
