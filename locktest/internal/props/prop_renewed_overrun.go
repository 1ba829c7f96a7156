package props

import (
	"fmt"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"

	"context"
	"time"
)

// RenewedOverrun: a holder whose connection stalls for a third of its
// TTL keeps its lock; one stalled for three TTLs must learn that its
// lease is lost (its Lease context is cancelled) before another
// holder's work begins. Only the holder's commands are held: its
// process and lease timer run on, so this is a stalled connection, not
// a GC or VM pause that would freeze the timer too.
// The detector sees the holder stop when a goroutine wakes on its Lease
// context, so the lease must end some milliseconds before the key can
// expire (luatoken's WithLeaseMargin; the catalog gives it 20ms).

func init() {
	register(Property{
		id: "renewed-overrun", order: 150, Scenario: renewedOverrun,
		breaks: "a stalled holder did not learn that its lease was lost before the next holder began; every TTL lock without a lease (strategy.Leased) breaks it",
	}, func(tm sim.Timing) floors {
		// A is paused for a third of renewedTTL, whatever the lock;
		// then, paused again, its lease must run out (renewedTTL, with
		// no renewal) before B gets in.
		return floors{Any: tm.RenewedTTL() / 3, Holds: tm.RenewedTTL()/3 + tm.RenewedTTL()}
	})
}

// renewedOverrun: first A is paused briefly and must keep its lock; then A
// is paused for three TTLs while B waits, and must leave the critical
// section, told by its lease, before B enters.
func renewedOverrun(newRun func(string) *harness.Run) harness.Outcome {
	// A short pause: the lock must survive it.
	r := newRun("/short")
	a, b := r.NewClient("A", 0), r.NewClient("B", 0)
	la := a.MustAcquire(r.Tm.RenewedTTL())
	a.Pause()
	r.Note(mPausedThird.New(r.Tm.RenewedTTL()/3, r.Tm.RenewedTTL()))
	time.Sleep(r.Tm.RenewedTTL() / 3)
	a.Resume()
	r.Note(harness.MsgLateResumes.New())
	// Observed, both: the lock renews A's hold on its own, which the
	// history does not see (its holds end at their TTLs), and a lease
	// signal is no event of it.
	if ctx := harness.LeaseOf(la); ctx != nil && ctx.Err() != nil {
		return r.Breaks(mLostThird.New(fmt.Sprint(context.Cause(ctx))))
	}
	if lb := b.TryAcquire(r.Tm.RenewedTTL()); lb != nil {
		return r.Breaks(mAfterThird.New())
	}
	a.Release(la)
	r.Shutdown()

	// A long pause: A must know it lost the lock before B works.
	r = newRun("/long")
	a, b = r.NewClient("A", 0), r.NewClient("B", 0)
	la = a.MustAcquire(r.Tm.RenewedTTL())
	r.Det.Enter("A")
	done := harness.WatchLease(r, "A", la)
	a.Pause()
	r.Note(mPausedThrice.New(3 * r.Tm.RenewedTTL()))
	lb := b.WaitFree(r.Tm.RenewedTTL(), 3*r.Tm.RenewedTTL(), r.Tm.RenewedTTL()+r.Tm.StaleAfter())
	var why msg.Msg
	if lb != nil {
		r.EnterPast("B", "A", la)
		r.Det.Leave("B")
	} else {
		why = r.Unexpired(r.Tm.RenewedTTL(), 3*r.Tm.RenewedTTL())
	}
	a.Resume()
	if !done() {
		r.Det.Leave("A")
	}
	r.Note(harness.MsgLateResumes.New())
	if lb == nil {
		return r.NotApplicable(harness.MsgNobodyWhilePaused.New(why))
	}
	if o, ok := r.Det.FirstOverlap(); ok {
		return r.BreaksRule(history.OneInside, mRenewedBreaks.New(o))
	}
	return r.Holds(mRenewedHolds.New())
}

// renewed-overrun's messages.
var (
	mPausedThird = msg.Define("renewed-overrun.paused-third", msg.K(msg.Duration, msg.Duration),
		"A is paused for {0}, a third of its TTL ({1})")
	mLostThird = msg.Define("renewed-overrun.breaks-lost", msg.K(msg.Text),
		"A lost its lease over a pause of a third of its TTL: {0}")
	mAfterThird = msg.Define("renewed-overrun.breaks-taken", nil,
		"B acquired the lock right after A's pause of a third of its TTL")
	mPausedThrice = msg.Define("renewed-overrun.paused-thrice", msg.K(msg.Duration),
		"A is paused for {0}, three times its TTL, while B waits")
	mRenewedBreaks = msg.Define("renewed-overrun.breaks", msg.K(msg.Sub),
		"A was paused past its TTL and did not learn it had lost the lock before B began: {0}")
	mRenewedHolds = msg.Define("renewed-overrun.holds", nil,
		"a short pause kept A's lock; over a long one, A's lease was cancelled before B entered")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("renewed-overrun.scenario", nil,
		"the holder is paused for a third of its TTL, then for three TTLs")
	_ = msg.Define("renewed-overrun.must", nil,
		"it keeps its lock over the short pause, and learns that it lost it before anyone else works after the long one")
)
