package locktest

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locklab/locklab/strategy"
)

// names of the simulated clients.
var names = []string{"A", "B", "C", "D", "E", "F", "G", "H"}

const (
	contenders = 6 // clients in the exclusion scenario
	rounds     = 8 // critical sections each
)

// exclusion: first two clients race for a free key, in every interleaving
// of their attempts' commands; then a holder releases and tries again
// while another client makes one attempt, in every interleaving; then
// contenders clients take turns rounds times each, with work far inside a
// long TTL. No faults in any of them.
func exclusion(newRun func(string) *run) Result {
	// A replayed interleaving must send the same commands as the run it
	// replays: a script loaded by the first run, and not by the next, would
	// make them diverge.
	warmUp(newRun)
	if res := race(newRun, nil, "both clients acquired the same free lock", "on a free key"); res.Verdict != Holds {
		return res
	}
	broken, handovers := handover(newRun)
	if broken != nil {
		return *broken
	}
	r := newRun("/contend")
	clients := make([]*client, contenders)
	for i := range clients {
		clients[i] = r.newClient(names[i], 0)
	}
	var wg sync.WaitGroup
	aborts := make(chan any, len(clients))
	starved := make(chan string, len(clients))
	// A client gives up only when nobody at all has got the lock for half
	// the TTL: a slow machine slows the turns down, and a client that
	// waits long while the others take turn after turn is not starved by
	// the lock. Half the TTL, so that a lock whose release frees nothing
	// is never handed on by its expiry in the meantime. The time counts
	// from the last acquire or the return of the last release, and not
	// while a release is under way: a holder whose release a loaded
	// machine holds up for seconds is slow, not a lock that frees nothing.
	// While K is free, the waiters are slow, not the lock: they get the
	// whole TTL.
	var progress atomic.Int64
	var releasing atomic.Int32
	progress.Store(time.Now().UnixNano())
	stalled := func() bool {
		since := time.Since(time.Unix(0, progress.Load()))
		return releasing.Load() == 0 && since > r.tm.Long/2 && (since > r.tm.Long || r.keyExists())
	}
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
				var l strategy.Lock
				for l == nil {
					if l = c.acquire(r.tm.Long, r.tm.Long/20); l == nil && stalled() {
						starved <- c.name
						return
					}
				}
				progress.Store(time.Now().UnixNano())
				r.det.enter(c.name)
				time.Sleep(200 * time.Microsecond)
				r.det.leave(c.name)
				releasing.Add(1)
				c.release(l)
				progress.Store(time.Now().UnixNano())
				releasing.Add(-1)
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
	close(starved)
	// Which clients starve first depends on the scheduler; the first by
	// name keeps the reason the same from run to run.
	var who []string
	for name := range starved {
		who = append(who, name)
	}
	if len(who) > 0 {
		slices.Sort(who)
		return r.notApplicable("the clients could not take turns: after a release, nobody got the lock for %v, and %s gave up waiting (release-frees shows why)", r.tm.Long/2, who[0])
	}
	return r.holds("no faults, the baseline the other properties build on: every interleaving of two attempts on a free key let one client in; in each of the %d interleavings of a holder's release and new attempt with another client's attempt, at most one got the lock; and %d clients, %d critical sections each, were never two inside", handovers, contenders, rounds)
}

// crashRecovery: A acquires and crashes; B must get the lock within the TTL
// plus slack. A lock that can be refreshed goes through it again with A's
// TTL set by Refresh: a refresh must not make the lock outlive its TTL.
func crashRecovery(newRun func(string) *run) Result {
	for _, refreshed := range []bool{false, true} {
		name := "/acquired"
		if refreshed {
			name = "/refreshed"
		}
		r := newRun(name)
		a, b := r.newClient("A", 0), r.newClient("B", 0)
		// A lock to be refreshed is taken for longer than Short, so that
		// the refresh comes in time on a slow machine; the refresh sets
		// the TTL that matters.
		ttl := r.tm.Short
		if refreshed {
			ttl = r.tm.lease()
		}
		la := a.tryAcquire(ttl)
		if la == nil {
			r.fail("A could not acquire a free lock")
		}
		rf, refresher := la.(strategy.Refresher)
		if refreshed {
			if err := a.refresh(rf, r.tm.Short); err != nil {
				r.fail("A: Refresh of the lock it has just acquired: %v", err)
			}
		}
		a.crash("crashes while holding the lock; it never releases")
		wait := r.tm.Short + r.tm.Slack
		r.note("B waits up to %v (TTL %v + slack)", wait, r.tm.Short)
		if b.acquire(r.tm.Short, wait) == nil {
			what := "A crashed holding the lock"
			if refreshed {
				what = fmt.Sprintf("A refreshed its lock to %v and crashed", r.tm.Short)
			}
			return r.breaks("%s, and B still could not acquire it %v later: %s", what, wait, r.lifeLeft(r.tm.Short, wait))
		}
		if !refresher || refreshed {
			if refreshed {
				return r.holds("B acquired the lock after A crashed holding it, and again after A refreshed it and crashed")
			}
			return r.holds("B acquired the lock after A crashed holding it")
		}
		r.shutdown()
	}
	panic("unreachable")
}

// clockSkew: A holds the lock with a long TTL; B, whose clock runs ahead by
// twice that TTL, tries for a while and must not get in.
func clockSkew(newRun func(string) *run) Result {
	r := newRun("")
	a, b := r.newClient("A", 0), r.newClient("B", 2*r.tm.Long)
	la := a.tryAcquire(r.tm.Long)
	if la == nil {
		r.fail("A could not acquire a free lock")
	}
	r.det.enter("A")
	before := r.clockReads.Load()
	lb := b.acquire(r.tm.Long, 20*r.tm.Poll)
	if lb != nil {
		r.det.enter("B")
		if r.clockReads.Load() == before {
			return r.breaks("B took the lock A holds with %v of its TTL left, without ever reading its clock: the skew played no part", r.tm.Long)
		}
		return r.breaks("B, its clock %v ahead, took the lock A holds with %v of its TTL left", 2*r.tm.Long, r.tm.Long)
	}
	if r.clockReads.Load() == before {
		return r.notApplicable("the strategy never reads the client's clock")
	}
	return r.holds("B's clock ran %v ahead and it still could not take A's lock", 2*r.tm.Long)
}

// overrunTakeover is the start of the scenarios where A's lease runs out: A
// acquires with a short TTL, then B waits for the lock. It returns B's lock,
// or nil when B could not get it in TTL + slack; then, for a paused A, why
// the lock had not expired.
// A paused client sends nothing while B waits, not even a renewal; it
// resumes once B is done waiting. A holder inside the critical section
// whose lock has a lease leaves as soon as the lease is lost.
//
// With inside, A works in the critical section; done ends its work and
// reports whether A had already stopped because its lease was lost.
func overrunTakeover(r *run, a, b *client, inside, paused bool) (la, lb strategy.Lock, done func() bool, why string) {
	l := a.tryAcquire(r.tm.Short)
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
		r.note("A is stalled past its TTL (%v): its commands are held back, its timers run on; B waits up to %v", r.tm.Short, r.tm.Short+r.tm.Slack)
		defer func() { a.resume(); r.note("A resumes") }()
	} else {
		r.note("A keeps working past its TTL (%v); B waits up to %v", r.tm.Short, r.tm.Short+r.tm.Slack)
	}
	lb = b.acquire(r.tm.Long, r.tm.Short+r.tm.Slack)
	if lb == nil && paused { // read before A resumes and may release
		why = r.unexpired(r.tm.Short, r.tm.Short+r.tm.Slack)
	}
	return l, lb, done, why
}

// holderOverrun: A's work outlasts its TTL while B waits; B must not enter
// while A is inside.
func holderOverrun(newRun func(string) *run) Result {
	r := newRun("")
	a, b := r.newClient("A", 0), r.newClient("B", 0)
	la, lb, done, _ := overrunTakeover(r, a, b, true, false)
	slowly, slow := false, r.tm.outlast(r.tm.Short)
	if lb == nil {
		// An acquire that writes even when it fails (a PEXPIRE queued
		// beside a losing SETNX) keeps the holder's key alive for as long
		// as a waiter keeps trying. Does the key outlive A's TTL once the
		// waiter, asking for the holder's TTL, tries less often than it?
		r.note("B tries again with A's TTL (%v), every %v, for up to %v", r.tm.Short, slow, r.tm.Short+r.tm.Slack)
		lb = b.acquireEvery(r.tm.Short, r.tm.Short+r.tm.Slack, slow)
		slowly = lb != nil
	}
	if lb != nil {
		r.det.enter("B")
		r.det.leave("B")
		b.release(lb)
	}
	if !done() {
		r.det.leave("A")
	}
	if o, ok := r.det.firstOverlap(); ok {
		a.release(la)
		if slowly {
			return r.breaks("A's TTL ran out while it worked: B, polling every %v, could not acquire the lock, yet trying every %v with A's TTL it did: B's own failed attempts had kept A's key alive: %s", r.tm.Poll, slow, o)
		}
		return r.breaks("A's TTL ran out while it worked and B acquired the lock: %s", o)
	}
	if lb == nil {
		// Kept by A's renewals, or never expiring at all? Without A, a
		// lock that expires frees within its TTL.
		a.crash("crashes instead of releasing, to see whether the lock expires without it")
		if b.acquire(r.tm.Short, r.tm.Short+r.tm.Slack) == nil {
			return r.notApplicable("nobody else acquired the lock while A overran, nor after A died: %s", r.unexpired(r.tm.Short, r.tm.Short+r.tm.Slack))
		}
	} else {
		a.release(la)
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
		from, to := max(0, i-before), min(len(tl), i+after)
		if from == 0 && to == len(tl) {
			return tl
		}
		out := []Event{{At: tl[from].At, Kind: EvNote, Text: fmt.Sprintf("(%d earlier events left out)", from)}}
		return append(out, tl[from:to]...)
	}
	return tl
}
