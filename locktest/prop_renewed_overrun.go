package locktest

import (
	"fmt"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"

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
	register(property{
		id: "renewed-overrun", order: 150, scenario: renewedOverrun,
		breaks: "a stalled holder did not learn that its lease was lost before the next holder began; every TTL lock without a lease (strategy.Leased) breaks it",
	}, func(tm timing) floors {
		// A is paused for a third of renewedTTL, whatever the lock;
		// then, paused again, its lease must run out (renewedTTL, with
		// no renewal) before B gets in.
		return floors{any: tm.renewedTTL() / 3, holds: tm.renewedTTL()/3 + tm.renewedTTL()}
	})
}

// renewedOverrun: first A is paused briefly and must keep its lock; then A
// is paused for three TTLs while B waits, and must leave the critical
// section, told by its lease, before B enters.
func renewedOverrun(newRun func(string) *run) outcome {
	// A short pause: the lock must survive it.
	r := newRun("/short")
	a, b := r.newClient("A", 0), r.newClient("B", 0)
	la := a.mustAcquire(r.tm.renewedTTL())
	a.pause()
	r.note(mPausedThird.New(r.tm.renewedTTL()/3, r.tm.renewedTTL()))
	time.Sleep(r.tm.renewedTTL() / 3)
	a.resume()
	r.note(mLateResumes.New())
	if ctx := leaseOf(la); ctx != nil && ctx.Err() != nil {
		return r.breaks(mLostThird.New(fmt.Sprint(context.Cause(ctx))))
	}
	if lb := b.tryAcquire(r.tm.renewedTTL()); lb != nil {
		return r.breaks(mAfterThird.New())
	}
	a.release(la)
	r.shutdown()

	// A long pause: A must know it lost the lock before B works.
	r = newRun("/long")
	a, b = r.newClient("A", 0), r.newClient("B", 0)
	la = a.mustAcquire(r.tm.renewedTTL())
	r.det.enter("A")
	done := watchLease(r, "A", la)
	a.pause()
	r.note(mPausedThrice.New(3 * r.tm.renewedTTL()))
	lb := b.waitFree(r.tm.renewedTTL(), 3*r.tm.renewedTTL(), r.tm.renewedTTL()+r.tm.staleAfter())
	var why Message
	if lb != nil {
		r.enterPast("B", "A", la)
		r.det.leave("B")
	} else {
		why = r.unexpired(r.tm.renewedTTL(), 3*r.tm.renewedTTL())
	}
	a.resume()
	if !done() {
		r.det.leave("A")
	}
	r.note(mLateResumes.New())
	if lb == nil {
		return r.notApplicable(mNobodyWhilePaused.New(why))
	}
	if o, ok := r.det.firstOverlap(); ok {
		return r.breaksRule(history.OneInside, mRenewedBreaks.New(o))
	}
	return r.holds(mRenewedHolds.New())
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
