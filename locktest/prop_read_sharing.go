package locktest

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// ReadSharing: readers share a read-write lock, a writer has it alone.
// Two readers take the free lock together, so that it is no mutex in
// disguise; a writer is refused while they read and gets it once they
// are gone; a reader is refused while the writer writes.

func init() {
	register(property{
		id: "read-sharing", order: 1000, scenario: readSharing, kind: strategy.ReadWrite,
		breaks: "readers could not share the lock, or a writer held it with others",
	}, func(tm timing) floors {
		// The Long TTL, which never runs out: nothing to wait for.
		return floors{}
	})
}

// readSharing: A and B take the free lock shared; W tries to write while
// they read; they release, and W writes; C tries to read while W writes.
func readSharing(newRun func(string) *run) outcome {
	r := newRun("")
	a := r.newClient("A", 0)
	if !a.readWrite() {
		return r.notApplicable(mNotReadWrite.New())
	}
	b, c, w := r.newClient("B", 0), r.newClient("C", 0), r.newClient("W", 0)
	r.promise(history.OneHolder, mSharingBreaks.Lacking())
	ha, ok := a.tryMode(history.Shared, 0, r.tm.Long)
	if !ok {
		return r.breaksFreeRefused("A", mSharingFreeRefused.New("A"))
	}
	hb, ok := b.tryMode(history.Shared, 0, r.tm.Long)
	if !ok {
		return r.breaksFreeRefused("B", mSharingNotShared.New())
	}
	if _, ok := w.tryMode(history.Exclusive, 0, r.tm.Long); ok {
		return r.breaksRule(history.OneHolder, mSharingWriterIn.New())
	}
	a.releaseHeld(ha)
	b.releaseHeld(hb)
	hw, ok := w.tryMode(history.Exclusive, 0, r.tm.Long)
	if !ok {
		return r.breaksFreeRefused("W", mSharingWriterOut.New())
	}
	if _, ok := c.tryMode(history.Shared, 0, r.tm.Long); ok {
		return r.breaksRule(history.OneHolder, mSharingReaderIn.New())
	}
	w.releaseHeld(hw)
	return r.holds(mSharingHolds.New())
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
