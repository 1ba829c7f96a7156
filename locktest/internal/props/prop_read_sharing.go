package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReadSharing: readers share a read-write lock, a writer has it alone.
// Two readers take the free lock together, so that it is no mutex in
// disguise; a writer is refused while they read and gets it once they
// are gone; a reader is refused while the writer writes.

func init() {
	register(Property{
		id: "read-sharing", order: 1000, Scenario: readSharing, Kind: strategy.ReadWrite,
		breaks: "readers could not share the lock, or a writer held it with others",
	}, func(tm sim.Timing) floors {
		// The Long TTL, which never runs out: nothing to wait for.
		return floors{}
	})
}

// readSharing: A and B take the free lock shared; W tries to write while
// they read; they release, and W writes; C tries to read while W writes.
func readSharing(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	a := r.NewClient("A", 0)
	if !a.ReadWrite() {
		return r.NotApplicable(sim.MsgNotReadWrite.New())
	}
	b, c, w := r.NewClient("B", 0), r.NewClient("C", 0), r.NewClient("W", 0)
	r.Promise(history.OneHolder, mSharingBreaks.Lacking())
	ha, ok := a.TryMode(history.Shared, 0, r.Tm.Long)
	if !ok {
		return r.BreaksFreeRefused("A", mSharingFreeRefused.New("A"))
	}
	hb, ok := b.TryMode(history.Shared, 0, r.Tm.Long)
	if !ok {
		return r.BreaksFreeRefused("B", mSharingNotShared.New())
	}
	if _, ok := w.TryMode(history.Exclusive, 0, r.Tm.Long); ok {
		return r.BreaksRule(history.OneHolder, mSharingWriterIn.New())
	}
	a.ReleaseHeld(ha)
	b.ReleaseHeld(hb)
	hw, ok := w.TryMode(history.Exclusive, 0, r.Tm.Long)
	if !ok {
		return r.BreaksFreeRefused("W", mSharingWriterOut.New())
	}
	if _, ok := c.TryMode(history.Shared, 0, r.Tm.Long); ok {
		return r.BreaksRule(history.OneHolder, mSharingReaderIn.New())
	}
	w.ReleaseHeld(hw)
	return r.Holds(mSharingHolds.New())
}

// read-sharing's messages.
var (
	mSharingBreaks = msg.Define("read-sharing.breaks", msg.K(msg.Sub),
		"a writer held the lock with others: {0}")
	mSharingFreeRefused = msg.Define("read-sharing.free-refused", msg.K(msg.Client),
		"{0} could not take the free lock shared")
	mSharingNotShared = msg.Define("read-sharing.not-shared", nil,
		"B could not read while only A read: the lock does not let readers share, a mutex in disguise")
	mSharingWriterIn = msg.Define("read-sharing.writer-in", nil,
		"W took the lock to write while A and B held it to read")
	mSharingWriterOut = msg.Define("read-sharing.writer-out", nil,
		"once A and B had released their read locks, W still could not write")
	mSharingReaderIn = msg.Define("read-sharing.reader-in", nil,
		"C took the lock to read while W held it to write")
	mSharingHolds = msg.Define("read-sharing.holds", nil,
		"A and B read together; W was refused while they read and wrote once they had gone; C was refused while W wrote")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("read-sharing.scenario", nil,
		"two readers take the free lock; a writer tries while they read, then after they release; a reader tries while the writer writes")
	_ = msg.Define("read-sharing.must", nil,
		"readers share; a writer is alone")
)
