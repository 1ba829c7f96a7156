package locktest

import (
	"fmt"
	"sync"
	"time"

	"github.com/locklab/locklab/strategy"
)

func init() {
	scenarios[Exclusion] = exclusion
	scenarios[CrashRecovery] = crashRecovery
	scenarios[CrashMidAcquire] = crashMidAcquire
	scenarios[StaleTakeoverRace] = staleTakeoverRace
	scenarios[ClockSkew] = clockSkew
	scenarios[SafeRelease] = safeRelease
	scenarios[DoubleRelease] = doubleRelease
	scenarios[HolderOverrun] = holderOverrun
}

// names of the simulated clients.
var names = []string{"A", "B", "C", "D", "E", "F", "G", "H"}

const (
	contenders = 6 // clients in the exclusion scenario
	rounds     = 8 // critical sections each
)

// exclusion: contenders clients take turns rounds times each, with work far
// inside a long TTL.
func exclusion(newRun func(string) *run) Result {
	r := newRun("")
	clients := make([]*client, contenders)
	for i := range clients {
		clients[i] = r.newClient(names[i], 0)
	}
	var wg sync.WaitGroup
	aborts := make(chan any, len(clients))
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					aborts <- v
				}
			}()
			for range rounds {
				l := c.acquire(longTTL, longTTL)
				if l == nil {
					r.fail("%s: no lock after waiting %v with no faults", c.name, longTTL)
				}
				r.det.enter(c.name)
				time.Sleep(200 * time.Microsecond)
				r.det.leave(c.name)
				c.release(l)
			}
		}()
	}
	wg.Wait()
	close(aborts)
	if v, ok := <-aborts; ok {
		panic(v)
	}
	if o, ok := r.det.firstOverlap(); ok {
		res := r.breaks("two clients in the critical section without any fault: %s", o)
		res.Timeline = aroundOverlap(res.Timeline)
		return res
	}
	return r.holds("%d clients, %d critical sections each, never two inside", contenders, rounds)
}

// crashRecovery: A acquires and crashes; B must get the lock within the TTL
// plus slack.
func crashRecovery(newRun func(string) *run) Result {
	r := newRun("")
	a, b := r.newClient("A", 0), r.newClient("B", 0)
	if a.tryAcquire(shortTTL) == nil {
		r.fail("A could not acquire a free lock")
	}
	a.crash("crashes while holding the lock; it never releases")
	wait := shortTTL + slack
	r.note("B waits up to %v (TTL %v + slack)", wait, shortTTL)
	if b.acquire(shortTTL, wait) == nil {
		return r.breaks("A crashed holding the lock and B still could not acquire it %v later: the lock never expires", wait)
	}
	return r.holds("B acquired the lock after A crashed holding it")
}

// clockSkew: A holds the lock with a long TTL; B, whose clock runs ahead by
// twice that TTL, tries for a while and must not get in.
func clockSkew(newRun func(string) *run) Result {
	r := newRun("")
	a, b := r.newClient("A", 0), r.newClient("B", 2*longTTL)
	la := a.tryAcquire(longTTL)
	if la == nil {
		r.fail("A could not acquire a free lock")
	}
	r.det.enter("A")
	before := r.clockReads.Load()
	lb := b.acquire(longTTL, 20*pollEvery)
	if lb != nil {
		r.det.enter("B")
		return r.breaks("B, its clock %v ahead, took the lock A holds with %v of its TTL left", 2*longTTL, longTTL)
	}
	if r.clockReads.Load() == before {
		return r.notApplicable("the strategy never reads the client's clock")
	}
	return r.holds("B's clock ran %v ahead and it still could not take A's lock", 2*longTTL)
}

// overrunTakeover is the start of the scenarios where A's lease runs out: A
// acquires with a short TTL, then B waits for the lock. It returns B's lock,
// or nil when B could not get it in TTL + slack (the lock does not expire).
// A paused client sends nothing while B waits, not even a renewal; it
// resumes once B is done waiting. A holder inside the critical section
// whose lock has a lease leaves as soon as the lease is lost.
//
// With inside, A works in the critical section; done ends its work and
// reports whether A had already stopped because its lease was lost.
func overrunTakeover(r *run, a, b *client, inside, paused bool) (la, lb strategy.Lock, done func() bool) {
	l := a.tryAcquire(shortTTL)
	if l == nil {
		r.fail("A could not acquire a free lock")
	}
	done = func() bool { return false }
	if inside {
		r.det.enter("A")
		done = watchLease(r, "A", l)
	}
	if paused {
		a.pause()
		r.note("A is paused (a GC pause, a stalled VM) past its TTL (%v); B waits up to %v", shortTTL, shortTTL+slack)
		defer func() { a.resume(); r.note("A resumes") }()
	} else {
		r.note("A keeps working past its TTL (%v); B waits up to %v", shortTTL, shortTTL+slack)
	}
	return l, b.acquire(longTTL, shortTTL+slack), done
}

// safeRelease: A is paused past its TTL (so that even a lock that renews
// itself runs out), B acquires, A's late release must not free B's lock; C
// checks whether it is still held.
func safeRelease(newRun func(string) *run) Result {
	r := newRun("")
	a, b, c := r.newClient("A", 0), r.newClient("B", 0), r.newClient("C", 0)
	la, lb, _ := overrunTakeover(r, a, b, false, true)
	if lb == nil {
		return r.notApplicable("the lock does not expire: nobody else can acquire it while A overruns")
	}
	a.release(la)
	if c.tryAcquire(longTTL) != nil {
		return r.breaks("A's late release freed B's lock: C acquired it while B still held it")
	}
	return r.holds("A's late release left B's lock in place")
}

// doubleRelease: A releases twice; B's lock, taken in between, must survive.
func doubleRelease(newRun func(string) *run) Result {
	r := newRun("")
	a, b, c := r.newClient("A", 0), r.newClient("B", 0), r.newClient("C", 0)
	la := a.tryAcquire(longTTL)
	if la == nil {
		r.fail("A could not acquire a free lock")
	}
	a.release(la)
	if b.tryAcquire(longTTL) == nil {
		r.fail("B could not acquire the lock A released")
	}
	a.release(la)
	if c.tryAcquire(longTTL) != nil {
		return r.breaks("A's second release freed B's lock: C acquired it while B still held it")
	}
	return r.holds("A's second release left B's lock in place")
}

// holderOverrun: A's work outlasts its TTL while B waits; B must not enter
// while A is inside.
func holderOverrun(newRun func(string) *run) Result {
	r := newRun("")
	a, b := r.newClient("A", 0), r.newClient("B", 0)
	la, lb, done := overrunTakeover(r, a, b, true, false)
	if lb != nil {
		r.det.enter("B")
		r.det.leave("B")
		b.release(lb)
	}
	if !done() {
		r.det.leave("A")
	}
	a.release(la)
	if o, ok := r.det.firstOverlap(); ok {
		return r.breaks("A's TTL ran out while it worked and B acquired the lock: %s", o)
	}
	return r.holds("B did not acquire the lock while A overran its TTL")
}

// aroundOverlap cuts a long timeline down to the events that led to the
// first overlap and a few after it, keeping the opening note.
func aroundOverlap(tl []Event) []Event {
	const before, after = 60, 10
	for i, e := range tl {
		if e.Kind != EvOverlap {
			continue
		}
		from, to := max(1, i-before), min(len(tl), i+after)
		if from == 1 && to == len(tl) {
			return tl
		}
		out := append([]Event{tl[0]}, Event{At: tl[from].At, Kind: EvNote, Text: fmt.Sprintf("(%d earlier events left out)", from-1)})
		return append(out, tl[from:to]...)
	}
	return tl
}
