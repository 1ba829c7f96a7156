package props

import (
	"fmt"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderCrashRecovery: a reader crashes holding a read lock, beside a
// reader that goes on and then releases; once the crashed reader's TTL
// has passed, it must leave nothing behind: a reader that comes then
// still excludes a writer, and once it has gone the writer gets the lock
// within the slack. (A count of readers that outlives the lock lets the
// later reader hold without the lock, and a writer beside it.)
//
// PermitCrashRecovery: every permit of a semaphore is held, and one
// holder crashes; a waiter must get a permit within the crashed holder's
// TTL and the slack, while the others still hold theirs.

func init() {
	register(Property{
		id: "reader-crash-recovery", order: 1020, Scenario: readerCrashRecovery, Kind: strategy.ReadWrite,
		breaks: "a reader that crashed kept writers out once its TTL had passed, or left behind what let a reader and a writer in together",
	}, func(tm sim.Timing) floors {
		// A crashes holding with the Short TTL; W cannot write before it
		// has run out.
		return floors{Holds: tm.Short}
	})
	register(Property{
		id: "permit-crash-recovery", order: 1110, Scenario: permitCrashRecovery, Kind: strategy.Semaphore,
		breaks: "a holder that crashed kept its permit once its TTL had passed",
	}, func(tm sim.Timing) floors {
		// A crashes holding with the Short TTL; W cannot take its permit
		// before it has run out.
		return floors{Holds: tm.Short}
	})
}

// readerCrashRecovery: A reads with the Short TTL and crashes; B reads
// with the Long TTL and releases; once A's TTL has passed, C reads and W
// must be refused; C releases, and W must write within the slack.
func readerCrashRecovery(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	a := r.NewClient("A", 0)
	if !a.ReadWrite() {
		return r.NotApplicable(sim.MsgNotReadWrite.New())
	}
	b, w := r.NewClient("B", 0), r.NewClient("W", 0)
	if _, ok := a.TryMode(history.Shared, 0, r.Tm.Short); !ok {
		r.Fail(harness.MsgFailNotFree.New("A"))
	}
	hb, ok := b.TryMode(history.Shared, 0, r.Tm.Long)
	if !ok {
		return r.BreaksFreeRefused("B", mSharingNotShared.New())
	}
	a.Crash(mCrashNeverReleases.New())
	b.ReleaseHeld(hb)
	time.Sleep(r.Tm.Outlast(r.Tm.Short))
	c := r.NewClient("C", 0)
	r.Promise(history.OneHolder, mReaderCrashLeftBehind.Lacking())
	hc, ok := c.TryMode(history.Shared, 0, r.Tm.Long)
	if !ok {
		return r.BreaksFreeRefused("C", mSharingFreeRefused.New("C"))
	}
	if _, ok := w.TryMode(history.Exclusive, 0, r.Tm.Long); ok {
		return r.BreaksRule(history.OneHolder, mReaderCrashWriterIn.New())
	}
	c.ReleaseHeld(hc)
	since := r.Rec.Now()
	if w.WaitFree(r.Tm.Long, r.Tm.Slack, 0) == nil {
		wait := r.Tm.Outlast(r.Tm.Short) + r.Tm.Slack
		return r.BreaksUnfreed("W", since, r.Tm.Slack-r.Tm.Poll, mReaderCrashBreaks.New(wait, r.LifeLeft(r.Tm.Short, wait)))
	}
	return r.Holds(mReaderCrashHolds.New())
}

// permitCrashRecovery: the N permits are taken, A's with the Short TTL and
// the others' with the Long one; A crashes, and W must take a permit
// within A's TTL and the slack.
func permitCrashRecovery(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	a := r.NewClient("A", 0)
	n := a.Permits()
	if n == 0 {
		return r.NotApplicable(sim.MsgNotSemaphore.New())
	}
	from := r.Rec.Now()
	if _, ok := a.TryMode(history.Permit, 1, r.Tm.Short); !ok {
		r.Fail(harness.MsgFailNotFree.New("A"))
	}
	for i := 1; i < n; i++ {
		name := fmt.Sprintf("H%d", i)
		if _, ok := r.NewClient(name, 0).TryMode(history.Permit, 1, r.Tm.Long); !ok {
			return r.BreaksFreeRefusedOf(name, n, mBoundRefused.New(name, i, n))
		}
	}
	// The other permits must be taken well within A's Short lease: taken
	// after it, they meet a semaphore A's permit has already left (with
	// its key, where a lock expires the whole key), and W's permit would
	// say nothing of a crashed holder's. A loaded machine can make them
	// that late; the run is then disturbed, not judged.
	if took := r.Rec.Now() - from; took > r.Tm.Quick() {
		r.Disturbed(mPermitsSlow.New("A", r.Tm.Short, took.Round(time.Millisecond)))
	}
	w := r.NewClient("W", 0)
	a.Crash(mCrashNeverReleases.New())
	wait := r.Tm.Short + r.Tm.Slack
	r.Note(mWaiterWaitsTTL.New("W", wait, r.Tm.Short))
	since := r.Rec.Now()
	if w.WaitFree(r.Tm.Long, wait, r.Tm.Short+r.Tm.StaleAfter()) == nil {
		return r.BreaksUnfreed("W", since, wait-r.Tm.Poll, mPermitCrashBreaks.New(n, wait, r.LifeLeft(r.Tm.Short, wait)))
	}
	return r.Holds(mPermitCrashHolds.New(n))
}

// The crash properties' messages of the kinds.
var (
	mReaderCrashBreaks = msg.Define("reader-crash-recovery.breaks", msg.K(msg.Duration, msg.Sub),
		"A crashed holding a read lock, B and then C released their own, and W still could not write {0} after A's crash: {1}")
	mReaderCrashLeftBehind = msg.Define("reader-crash-recovery.left-behind", msg.K(msg.Sub),
		"the read lock A held when it crashed left something behind: {0}")
	mReaderCrashWriterIn = msg.Define("reader-crash-recovery.writer-in", nil,
		"once A's TTL had passed, C read, and W took the lock to write while C held it")
	mReaderCrashHolds = msg.Define("reader-crash-recovery.holds", nil,
		"A crashed holding a read lock; once its TTL had passed, W was refused while C read, and wrote as soon as C released")
	mPermitCrashBreaks = msg.Define("permit-crash-recovery.breaks", msg.K(msg.Count, msg.Duration, msg.Sub),
		"A crashed holding one of the {0} permits, and W still could not take it {1} later: {2}")
	mPermitsSlow = msg.Define("permit-crash-recovery.slow", msg.K(msg.Client, msg.Duration, msg.Duration),
		"the other permits were taken {2} after {0}'s acquire, and its lease of {1} may have run out before them: the machine was too slow for the scenario's timing")
	mPermitCrashHolds = msg.Define("permit-crash-recovery.holds", msg.K(msg.Count),
		"A crashed holding one of the {0} permits, and W took it within A's TTL while the others still held theirs")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-crash-recovery.scenario", nil,
		"a reader crashes holding its read lock, beside another reader that releases; after its TTL, a reader and a writer come")
	_ = msg.Define("reader-crash-recovery.must", nil,
		"the later reader excludes the writer, which gets the lock once that reader has gone")
	_ = msg.Define("permit-crash-recovery.scenario", nil,
		"every permit is held, and one holder crashes")
	_ = msg.Define("permit-crash-recovery.must", nil,
		"a waiter gets its permit once the crashed holder's TTL has passed")
)

// The waiter of the kinds' crash scenarios, which is not B.
var mWaiterWaitsTTL = msg.Define("wait.ttl-waiter", msg.K(msg.Client, msg.Duration, msg.Duration),
	"{0} waits up to {1} (TTL {2} + slack)")
