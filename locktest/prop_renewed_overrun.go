package locktest

import (
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

// renewedOverrun: first A is paused briefly and must keep its lock; then A
// is paused for three TTLs while B waits, and must leave the critical
// section, told by its lease, before B enters.
func renewedOverrun(newRun func(string) *run) Result {
	// A short pause: the lock must survive it.
	r := newRun("/short")
	a, b := r.newClient("A", 0), r.newClient("B", 0)
	la := a.tryAcquire(r.tm.renewedTTL())
	if la == nil {
		r.fail("A could not acquire a free lock")
	}
	a.pause()
	r.note("A is paused for %v, a third of its TTL (%v)", r.tm.renewedTTL()/3, r.tm.renewedTTL())
	time.Sleep(r.tm.renewedTTL() / 3)
	a.resume()
	r.note("A resumes")
	if ctx := leaseOf(la); ctx != nil && ctx.Err() != nil {
		return r.breaks("A lost its lease over a pause of a third of its TTL: %v", context.Cause(ctx))
	}
	if lb := b.tryAcquire(r.tm.renewedTTL()); lb != nil {
		return r.breaks("B acquired the lock right after A's pause of a third of its TTL")
	}
	a.release(la)
	r.shutdown()

	// A long pause: A must know it lost the lock before B works.
	r = newRun("/long")
	a, b = r.newClient("A", 0), r.newClient("B", 0)
	la = a.tryAcquire(r.tm.renewedTTL())
	if la == nil {
		r.fail("A could not acquire a free lock")
	}
	r.det.enter("A")
	done := watchLease(r, "A", la)
	a.pause()
	r.note("A is paused for %v, three times its TTL, while B waits", 3*r.tm.renewedTTL())
	lb := b.acquire(r.tm.renewedTTL(), 3*r.tm.renewedTTL())
	why := ""
	if lb != nil {
		r.det.enter("B")
		r.det.leave("B")
	} else {
		why = r.unexpired(r.tm.renewedTTL(), 3*r.tm.renewedTTL())
	}
	a.resume()
	if !done() {
		r.det.leave("A")
	}
	r.note("A resumes")
	if lb == nil {
		return r.notApplicable("nobody else acquired the lock while A was paused: %s", why)
	}
	if o, ok := r.det.firstOverlap(); ok {
		return r.breaks("A was paused past its TTL and did not learn it had lost the lock before B began: %s", o)
	}
	return r.holds("a short pause kept A's lock; over a long one, A's lease was cancelled before B entered")
}
