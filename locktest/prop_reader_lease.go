package locktest

import (
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// ReaderLeaseIndependence: each reader's lease is its own. One reader's
// acquire, refresh or release never shortens another reader's lease (a
// writer must stay out while it runs: the judge finds a writer granted
// beside a valid read hold, OneHolder), nor extends one (a crashed
// reader's hold must not keep writers out past its own TTL: Unfreed).
// The shapes of Redisson's issues 2144 and 1604 and pull request 7098:
// one expiry for the whole lock, set outright by whoever touches it.

func init() {
	register(property{
		id: "reader-lease-independence", order: 1030, scenario: readerLeaseIndependence, kind: strategy.ReadWrite,
		breaks: "a reader's acquire, refresh or release cut or stretched another reader's lease",
	}, func(tm timing) floors {
		// W tries once A's Short TTL has run out, and writes once D's has.
		return floors{holds: 2 * tm.Short}
	})
}

// readerLeaseIndependence, in two steps, for a refresh must come after
// another reader's last touch to stretch its lease, and before it to be
// cut by it. Stretch: B reads with the Long TTL and D with the Short one;
// B refreshes, D crashes, B releases; W must write within D's TTL and
// the slack. Cut: C reads with the Short TTL, B with the Long one, and C
// releases; A reads with the Short TTL; B refreshes with the Long TTL and
// A with the Short one, and A crashes. Once A's TTL has passed, W must be
// refused while B reads.
func readerLeaseIndependence(newRun func(string) *run) outcome {
	r := newRun("")
	b := r.newClient("B", 0)
	if !b.readWrite() {
		return r.notApplicable(mNotReadWrite.New())
	}
	a, c, d, w := r.newClient("A", 0), r.newClient("C", 0), r.newClient("D", 0), r.newClient("W", 0)
	r.promise(history.OneHolder, mLeaseBreaks.Lacking())
	refresh := func(c *client, h held, ttl time.Duration) {
		if l, ok := h.l.(strategy.Refresher); ok {
			_ = c.refresh(l, ttl) // an error is the holder's loss, not a break here
		}
	}
	// inTime disturbs the run when the steps since from took so long that
	// who's Short lease may have run out before them.
	inTime := func(who string, from time.Duration) {
		if took := r.rec.now() - from; took > r.tm.quick() {
			r.disturbed(mLeaseSlow.New(who, r.tm.Short, took.Round(time.Millisecond)))
		}
	}

	hb, ok := b.tryMode(history.Shared, 0, r.tm.Long)
	if !ok {
		r.fail(mFailNotFree.New("B"))
	}
	from := r.rec.now()
	if _, ok := d.tryMode(history.Shared, 0, r.tm.Short); !ok {
		return r.breaksFreeRefused("D", mSharingNotShared.New())
	}
	refresh(b, hb, r.tm.Long)
	inTime("D", from)
	d.crash(mCrashNeverReleases.New())
	b.releaseHeld(hb)
	wait := r.tm.Short + r.tm.Slack
	since := r.rec.now()
	hw := w.waitFree(r.tm.Long, wait, r.tm.Short+r.tm.staleAfter())
	if hw == nil {
		return r.breaksUnfreed("W", since, wait-r.tm.Poll, mLeaseKept.New(wait, r.lifeLeft(r.tm.Short, wait)))
	}
	w.release(hw)

	hc, ok := c.tryMode(history.Shared, 0, r.tm.Short)
	if !ok {
		return r.breaksFreeRefused("C", mSharingFreeRefused.New("C"))
	}
	if hb, ok = b.tryMode(history.Shared, 0, r.tm.Long); !ok {
		return r.breaksFreeRefused("B", mSharingNotShared.New())
	}
	c.releaseHeld(hc)
	from = r.rec.now()
	ha, ok := a.tryMode(history.Shared, 0, r.tm.Short)
	if !ok {
		return r.breaksFreeRefused("A", mSharingFreeRefused.New("A"))
	}
	refresh(b, hb, r.tm.Long)
	inTime("A", from)
	refresh(a, ha, r.tm.Short)
	a.crash(mCrashNeverReleases.New())
	time.Sleep(r.tm.outlast(r.tm.Short))
	r.readPTTL()
	if _, ok := w.tryMode(history.Exclusive, 0, r.tm.Long); ok {
		return r.breaksRule(history.OneHolder, mLeaseWriterIn.New(r.tm.Short, r.tm.Long))
	}
	b.releaseHeld(hb)
	return r.holds(mLeaseHolds.New())
}

// reader-lease-independence's messages.
var (
	mLeaseBreaks = msg.Define("reader-lease-independence.breaks", msg.K(msg.Sub),
		"another reader's calls cut B's read lease: {0}")
	mLeaseWriterIn = msg.Define("reader-lease-independence.writer-in", msg.K(msg.Duration, msg.Duration),
		"W took the lock to write once the {0} TTL of A and C had passed, while B still held its read lock of {1}")
	mLeaseKept = msg.Define("reader-lease-independence.kept", msg.K(msg.Duration, msg.Sub),
		"D crashed holding its read lock, B refreshed and released its own, and W still could not write {0} later: {1}")
	mLeaseSlow = msg.Define("reader-lease-independence.slow", msg.K(msg.Client, msg.Duration, msg.Duration),
		"{0}'s lease of {1} may have run out before the refreshes beside it, which came {2} after its acquire: the machine was too slow for the scenario's timing")
	mLeaseHolds = msg.Define("reader-lease-independence.holds", nil,
		"B's refresh left D's read lease whole: once B released, W wrote within D's TTL; and the other readers' acquires, refreshes and release left B's lease whole")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-lease-independence.scenario", nil,
		"readers with short and long TTLs acquire, refresh and release around one another; one crashes")
	_ = msg.Define("reader-lease-independence.must", nil,
		"a writer stays out while a read lease runs, and gets in once only expired ones are left")
)
