package props

import (
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderReentrant: for a read-write lock whose holder may read while it
// writes (strategy.Reentrant, Redisson's thread), a read unlock under
// the holder's own write lock must leave the write lock whole: released
// at once, it must not free it (Redisson's issue 891), and released
// beside another read hold of the holder's, it must not cut the write
// lock's lease to that hold's (the shape of issue 2144 in the unlock).
// Another writer and a reader must stay out while the write lock's TTL
// runs; the judge finds a grant beside it (OneHolder).

func init() {
	register(Property{
		id: "reader-reentrant", order: 1038, Scenario: readerReentrant, Kind: strategy.ReadWrite,
		breaks:     "a read unlock under the same holder's write lock freed the write lock, or cut its lease",
		Structural: true,
	}, func(tm sim.Timing) floors {
		// X tries once A's Short read lease has passed; a lock without
		// reentrancy ends at once.
		return floors{Holds: tm.Short}
	})
}

// readerReentrant: A, one holder, writes with the Long TTL, reads with
// the Long TTL and releases that read; X must be refused the write lock
// and R a read. Then A reads with the Short TTL and the Long one, and
// releases the Long read; once the Short TTL has passed, X and R must
// still be refused. A releases its write lock, and X must write.
func readerReentrant(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	a := r.NewClient("A", 0)
	re, ok := a.S.(strategy.Reentrant)
	if !ok {
		if !a.ReadWrite() {
			return r.NotApplicable(sim.MsgNotReadWrite.New())
		}
		return r.NotApplicable(mReentrantNA.New())
	}
	a.S = re.Reentrant()
	x, rd := r.NewClient("X", 0), r.NewClient("R", 0)
	intruders := func(m *msg.Def) *harness.Outcome {
		if res := harness.Refused(x, history.Exclusive, 0, m.New("X", mReentrantWrote.New())); res != nil {
			return res
		}
		return harness.Refused(rd, history.Shared, 0, m.New("R", mReentrantRead.New()))
	}
	hw, ok := a.TryMode(history.Exclusive, 0, r.Tm.Long)
	if !ok {
		r.Fail(harness.MsgFailNotFree.New("A"))
	}
	h, ok := a.TryMode(history.Shared, 0, r.Tm.Long)
	if !ok {
		return r.BreaksFreeRefused("A", mReentrantRefused.New())
	}
	a.ReleaseHeld(h)
	if res := intruders(mReentrantAtOnce); res != nil {
		return *res
	}
	if _, ok := a.TryMode(history.Shared, 0, r.Tm.Short); !ok {
		return r.BreaksFreeRefused("A", mReentrantRefused.New())
	}
	if h, ok = a.TryMode(history.Shared, 0, r.Tm.Long); !ok {
		return r.BreaksFreeRefused("A", mReentrantRefused.New())
	}
	a.ReleaseHeld(h)
	time.Sleep(r.Tm.Outlast(r.Tm.Short))
	if res := intruders(mReentrantBeside); res != nil {
		return *res
	}
	a.ReleaseHeld(hw)
	since := r.Rec.Now()
	if _, ok := harness.WaitMode(x, history.Exclusive, 0, r.Tm.Long, r.Tm.Slack, 0); !ok {
		return r.BreaksUnfreed("X", since, r.Tm.Slack-r.Tm.Poll, mReentrantNotFreed.New(r.Tm.Slack))
	}
	return r.Holds(mReentrantHolds.New())
}

// reader-reentrant's messages.
var (
	mReentrantNA = msg.Define("reader-reentrant.n/a", nil,
		"the lock has no holder that may read while it writes (strategy.Reentrant)")
	mReentrantRefused = msg.Define("reader-reentrant.refused", nil,
		"A, holding the write lock, was refused a read lock although its lock lets a holder read while it writes")
	mReentrantWrote  = msg.Define("reader-reentrant.wrote", nil, "took the write lock")
	mReentrantRead   = msg.Define("reader-reentrant.read", nil, "got a read lock")
	mReentrantAtOnce = msg.Define("reader-reentrant.at-once", msg.K(msg.Client, msg.Sub),
		"A, holding the write lock, read and released that read lock, and {0} {1} while A's write lock still ran")
	mReentrantBeside = msg.Define("reader-reentrant.beside", msg.K(msg.Client, msg.Sub),
		"A, holding the write lock, took a short read lock and a long one and released the long one; once the short one's TTL had passed, {0} {1} while A's write lock still ran")
	mReentrantNotFreed = msg.Define("reader-reentrant.not-freed", msg.K(msg.Duration),
		"A released its write lock, its read locks released or expired, and X still could not write {0} later")
	mReentrantHolds = msg.Define("reader-reentrant.holds", nil,
		"A's read unlocks under its own write lock, alone and beside another read lock of A's, left the write lock whole: nobody got in until A released it")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-reentrant.scenario", nil,
		"for a lock whose holder may read while it writes: the holder writes, reads and releases the read; then takes a short read and a long one and releases the long one")
	_ = msg.Define("reader-reentrant.must", nil,
		"while the write lock's TTL runs, no other writer or reader gets in, even once the short read's TTL has passed; once it is released, a writer gets in")
)
