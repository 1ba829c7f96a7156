package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderOverrun: holder-overrun for a reader. A reader's work outlasts
// its TTL while a writer waits; the writer must not enter while the
// reader is still inside. Every read-write lock whose holds have no
// lease (strategy.Leased) breaks it, as every TTL mutex breaks
// holder-overrun: a reader cannot know that its read lock has expired.

func init() {
	register(Property{
		id: "reader-overrun", order: 1042, Scenario: readerOverrun, Kind: strategy.ReadWrite,
		breaks: "a reader whose work outlasted its TTL was still inside when a writer entered, or its read lock kept the writer out past its TTL; every read-write lock without a lease (strategy.Leased) breaks it",
	}, func(tm sim.Timing) floors {
		// W may write as soon as A's Short TTL runs out, or wait it out
		// twice with Slack; the verdict alone does not say which.
		return floors{}
	})
}

// readerOverrun: A reads with the Short TTL and works on past it, leaving
// as soon as its lease, if it has one, is lost; W waits to write, and
// must not enter while A is inside.
func readerOverrun(newRun func(string) *harness.Run) harness.Outcome {
	m, res := modeOf(newRun, strategy.ReadWrite)
	if res != nil {
		return *res
	}
	r := newRun("")
	a, w := r.NewClient("A", 0), r.NewClient("W", 0)
	ha, ok := m.Take(a, r.Tm.Short)
	if !ok {
		r.Fail(harness.MsgFailNotFree.New("A"))
	}
	r.Det.Enter("A")
	done := harness.WatchLease(r, "A", ha.L)
	r.Note(mReaderOverrunWorks.New(r.Tm.Short, r.Tm.Short+r.Tm.Slack))
	hw, wrote := harness.WaitMode(w, history.Exclusive, 0, r.Tm.Long, r.Tm.Short+r.Tm.Slack, r.Tm.Short+r.Tm.StaleAfter())
	if wrote {
		r.EnterPast("W", "A", ha.L)
		r.Det.Leave("W")
		w.ReleaseHeld(hw)
	}
	if !done() {
		r.Det.Leave("A")
	}
	if o, ok := r.Det.FirstOverlap(); ok {
		return r.BreaksRule(history.OneInside, mReaderOverrunBreaks.New(o))
	}
	if !wrote {
		// Kept by A's renewals, or never expiring at all? Without A, a
		// read lock that expires frees within its TTL.
		a.Crash(mCrashInsteadOfRelease.New())
		wait := r.Tm.Short + r.Tm.Slack
		since := r.Rec.Now()
		if _, ok := harness.WaitMode(w, history.Exclusive, 0, r.Tm.Long, wait, r.Tm.Short+r.Tm.StaleAfter()); !ok {
			// No other row of the kind waits on a live reader past its
			// TTL: a read lock that outlives it is this row's break.
			return r.BreaksUnfreed("W", since, wait-r.Tm.Poll, mReaderOverrunKept.New(wait, r.LifeLeft(r.Tm.Short, r.Rec.Now()-since)))
		}
	}
	return r.Holds(mReaderOverrunHolds.New())
}

// reader-overrun's messages.
var (
	mReaderOverrunWorks = msg.Define("reader-overrun.works", msg.K(msg.Duration, msg.Duration),
		"A keeps reading past its TTL ({0}); W waits up to {1} to write")
	mReaderOverrunBreaks = msg.Define("reader-overrun.breaks", msg.K(msg.Sub),
		"the TTL of A's read lock ran out while A worked, and W took the lock to write: {0}")
	mReaderOverrunKept = msg.Define("reader-overrun.kept", msg.K(msg.Duration, msg.Sub),
		"W could not write while A overran its read lock, nor {0} after A died: {1}")
	mReaderOverrunHolds = msg.Define("reader-overrun.holds", nil,
		"W did not enter while A, a reader, overran its TTL")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-overrun.scenario", nil,
		"a reader's work outlasts its TTL while a writer waits")
	_ = msg.Define("reader-overrun.must", nil,
		"the writer does not enter while the reader is still inside")
)
