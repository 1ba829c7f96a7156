package locktest

import (
	"context"

	"sync"
	"time"

	"github.com/locklab/locklab/strategy"
)

// The fixes for the holder that overruns its lease: fencing tokens, checked
// by the resource, and renewal, which tells the holder when its lease is
// lost. Each is a property of its own, run on every strategy like the rest.

// resource stands for the storage a lock protects. It remembers the highest
// fencing token it has accepted and refuses writes with a lower one.
type resource struct {
	r       *run
	mu      sync.Mutex
	highest int64
	writes  []string
}

// write accepts or refuses a write from who; fenced says whether who's lock
// has a token at all.
func (res *resource) write(who string, lock strategy.Lock) bool {
	res.mu.Lock()
	defer res.mu.Unlock()
	token, fenced := strategy.FencingToken(lock)
	if !fenced {
		res.writes = append(res.writes, who)
		res.r.note("resource accepts %s's write: its lock has no fencing token to check", who)
		return true
	}
	if token < res.highest {
		res.r.note("resource refuses %s's write: fencing token %d < %d", who, token, res.highest)
		return false
	}
	res.highest = token
	res.writes = append(res.writes, who)
	res.r.note("resource accepts %s's write with fencing token %d", who, token)
	return true
}

// fencedOverrun: A is paused past its TTL, B acquires and writes, then A
// wakes up and writes: Kleppmann's example for fencing tokens.
func fencedOverrun(newRun func(string) *run) Result {
	r := newRun("")
	a, b := r.newClient("A", 0), r.newClient("B", 0)
	res := &resource{r: r}
	la, lb, _, why := overrunTakeover(r, a, b, false, true)
	if lb == nil {
		return r.notApplicable("nobody else acquired the lock while A was paused past its TTL: %s", why)
	}
	res.write("B", lb)
	if res.write("A", la) {
		return r.breaks("A's lease had passed to B, yet the resource accepted A's late write after B's")
	}
	return r.holds("the resource refused A's late write: its fencing token was older than B's")
}

// lease returns the lock's lease context, or nil when it has none.
func lease(l strategy.Lock) context.Context {
	ctx, _ := strategy.Lease(l)
	return ctx
}

// renewedOverrun: first A is paused briefly and must keep its lock; then A
// is paused for three TTLs while B waits, and must leave the critical
// section, told by its lease, before B enters.
func renewedOverrun(newRun func(string) *run) Result {
	// A short pause: the lock must survive it.
	r := newRun("/short")
	a, b := r.newClient("A", 0), r.newClient("B", 0)
	la := a.tryAcquire(r.tm.lease())
	if la == nil {
		r.fail("A could not acquire a free lock")
	}
	a.pause()
	r.note("A is paused for %v, a third of its TTL (%v)", r.tm.lease()/3, r.tm.lease())
	time.Sleep(r.tm.lease() / 3)
	a.resume()
	r.note("A resumes")
	if ctx := lease(la); ctx != nil && ctx.Err() != nil {
		return r.breaks("A lost its lease over a pause of a third of its TTL: %v", context.Cause(ctx))
	}
	if lb := b.tryAcquire(r.tm.lease()); lb != nil {
		return r.breaks("B acquired the lock right after A's pause of a third of its TTL")
	}
	a.release(la)
	r.shutdown()

	// A long pause: A must know it lost the lock before B works.
	r = newRun("/long")
	a, b = r.newClient("A", 0), r.newClient("B", 0)
	la = a.tryAcquire(r.tm.lease())
	if la == nil {
		r.fail("A could not acquire a free lock")
	}
	r.det.enter("A")
	done := watchLease(r, "A", la)
	a.pause()
	r.note("A is paused for %v, three times its TTL, while B waits", 3*r.tm.lease())
	lb := b.acquire(r.tm.lease(), 3*r.tm.lease())
	why := ""
	if lb != nil {
		r.det.enter("B")
		r.det.leave("B")
	} else {
		why = r.unexpired(r.tm.lease(), 3*r.tm.lease())
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

// watchLease makes who leave the critical section the moment l's lease is
// lost, as a holder that heeds its Lease context does. It returns the
// function to call when who is done working: it stops the watch and
// reports whether who had already left because its lease was lost. Locks
// without a lease are not watched.
func watchLease(r *run, who string, l strategy.Lock) (done func() (left bool)) {
	ctx := lease(l)
	if ctx == nil {
		return func() bool { return false }
	}
	stop := make(chan struct{})
	left := make(chan bool, 1)
	go func() {
		select {
		case <-ctx.Done():
			r.det.leave(who)
			r.note("%s stops working: its lease is lost (%v)", who, context.Cause(ctx))
			left <- true
		case <-stop:
			left <- false
		}
	}()
	return func() bool {
		close(stop)
		return <-left
	}
}
