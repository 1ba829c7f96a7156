package locktest

import "strings"

// DoubleRelease: a client releases twice; a lock acquired in between by
// someone else must survive. Someone else is another client, then another
// goroutine of the same client, sharing its strategy instance as a
// service shares one lock client among its goroutines: a token drawn once
// per instance, not per acquire, lets one goroutine free another's lock.

// doubleRelease: A releases twice; B's lock, taken in between, must survive
// A's second release as it was, and let nobody else in while it runs.
func doubleRelease(newRun func(string) *run) Result {
	n := countOps(newRun).release
	r := newRun("")
	a, b, c := r.newClient("A", 0), r.newClient("B", 0), r.newClient("C", 0)
	la := a.tryAcquire(r.tm.Long)
	if la == nil {
		r.fail("A could not acquire a free lock")
	}
	a.release(la)
	if b.tryAcquire(r.tm.Long) == nil {
		return r.notApplicable("A's release did not free the lock, so nobody can acquire it between A's two releases (release-frees breaks)")
	}
	held := r.keyExists()
	if p := a.pauseInside(0, n, "second release", func() { a.release(la) }); p.reached {
		if broke := r.lateSteps(p, b, c); broke != "" {
			return r.breaks("after A's release B acquired; then %s", broke)
		}
		p.wait()
	}
	freed := whoFreed(r, held, "that release")
	if c.tryAcquire(r.tm.Long) != nil {
		return r.breaks("after A's second release, %s", freed)
	}
	r.shutdown()
	if broke := doubleReleaseGoroutines(newRun, n); broke != nil {
		return *broke
	}
	return r.holds("A's second release left B's lock in place, whether B was another client or another goroutine of A's")
}

// doubleReleaseGoroutines is the double release between two goroutines of
// one client: A1 acquires and releases, A2 acquires with the same strategy
// instance, and A1 releases again.
func doubleReleaseGoroutines(newRun func(string) *run, n int) *Result {
	r := newRun("/goroutines")
	a, c := r.newClient("A", 0), r.newClient("C", 0)
	r.note("A1 and A2 are goroutines of client A, sharing its strategy instance; A1 acquires")
	l1 := a.tryAcquire(r.tm.Long)
	if l1 == nil {
		r.fail("A1 could not acquire a free lock")
	}
	r.note("A1 releases")
	a.release(l1)
	r.note("A2 acquires")
	if a.tryAcquire(r.tm.Long) == nil {
		r.shutdown()
		return nil // the release did not free the lock: release-frees says so
	}
	r.note("A1 releases again")
	if p := a.pauseInside(0, n, "second release", func() { a.release(l1) }); p.reached {
		if broke := r.lateStepsOf(p, "A2", nil, c); broke != "" {
			res := r.breaks("A1 and A2, two goroutines of client A, share its strategy instance: after A1's release A2 acquired; then A1's %s", strings.TrimPrefix(broke, "its "))
			return &res
		}
		p.wait()
	}
	if c.tryAcquire(r.tm.Long) != nil {
		res := r.breaks("A1 and A2, two goroutines of client A, share its strategy instance: after A1's release A2 acquired; after A1's second release, C acquired the lock while A2 still held it")
		return &res
	}
	r.shutdown()
	return nil
}
