package locktest

// DoubleRelease: a client releases twice; a lock acquired in between by
// someone else must survive.

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
	return r.holds("A's second release left B's lock in place")
}
