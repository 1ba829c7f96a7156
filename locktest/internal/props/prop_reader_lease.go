package props

import (
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
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
	register(Property{
		id: "reader-lease-independence", order: 1030, Scenario: readerLeaseIndependence, Kind: strategy.ReadWrite,
		breaks: "a reader's acquire, refresh or release cut or stretched another reader's lease",
	}, func(tm sim.Timing) floors {
		// W tries once A's Short TTL has run out, and writes once D's has.
		return floors{Holds: 2 * tm.Short}
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
func readerLeaseIndependence(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	b := r.NewClient("B", 0)
	if !b.ReadWrite() {
		return r.NotApplicable(sim.MsgNotReadWrite.New())
	}
	a, c, d, w := r.NewClient("A", 0), r.NewClient("C", 0), r.NewClient("D", 0), r.NewClient("W", 0)
	r.Promise(history.OneHolder, mLeaseBreaks.Lacking())
	refresh := func(c *harness.Client, h sim.Held, ttl time.Duration) {
		if l, ok := h.L.(strategy.Refresher); ok {
			_ = c.Refresh(l, ttl) // an error is the holder's loss, not a break here
		}
	}
	// inTime disturbs the run when the steps since from took so long that
	// who's Short lease may have run out before them.
	inTime := func(who string, from time.Duration) {
		if took := r.Rec.Now() - from; took > r.Tm.Quick() {
			r.Disturbed(mLeaseSlow.New(who, r.Tm.Short, took.Round(time.Millisecond)))
		}
	}

	hb, ok := b.TryMode(history.Shared, 0, r.Tm.Long)
	if !ok {
		r.Fail(harness.MsgFailNotFree.New("B"))
	}
	from := r.Rec.Now()
	if _, ok := d.TryMode(history.Shared, 0, r.Tm.Short); !ok {
		return r.BreaksFreeRefused("D", mSharingNotShared.New())
	}
	refresh(b, hb, r.Tm.Long)
	inTime("D", from)
	d.Crash(mCrashNeverReleases.New())
	b.ReleaseHeld(hb)
	wait := r.Tm.Short + r.Tm.Slack
	since := r.Rec.Now()
	hw := w.WaitFree(r.Tm.Long, wait, r.Tm.Short+r.Tm.StaleAfter())
	if hw == nil {
		return r.BreaksUnfreed("W", since, wait-r.Tm.Poll, mLeaseKept.New(wait, r.LifeLeft(r.Tm.Short, wait)))
	}
	w.Release(hw)

	hc, ok := c.TryMode(history.Shared, 0, r.Tm.Short)
	if !ok {
		return r.BreaksFreeRefused("C", mSharingFreeRefused.New("C"))
	}
	if hb, ok = b.TryMode(history.Shared, 0, r.Tm.Long); !ok {
		return r.BreaksFreeRefused("B", mSharingNotShared.New())
	}
	c.ReleaseHeld(hc)
	from = r.Rec.Now()
	ha, ok := a.TryMode(history.Shared, 0, r.Tm.Short)
	if !ok {
		return r.BreaksFreeRefused("A", mSharingFreeRefused.New("A"))
	}
	refresh(b, hb, r.Tm.Long)
	inTime("A", from)
	refresh(a, ha, r.Tm.Short)
	a.Crash(mCrashNeverReleases.New())
	time.Sleep(r.Tm.Outlast(r.Tm.Short))
	r.ReadPTTL()
	if _, ok := w.TryMode(history.Exclusive, 0, r.Tm.Long); ok {
		return r.BreaksRule(history.OneHolder, mLeaseWriterIn.New(r.Tm.Short, r.Tm.Long))
	}
	b.ReleaseHeld(hb)
	return r.Holds(mLeaseHolds.New())
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
