package locktest

// DoubleRelease: a client releases twice; a lock acquired in between by
// someone else must survive.

// doubleRelease: A releases twice; B's lock, taken in between, must survive.
func doubleRelease(newRun func(string) *run) Result {
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
	a.release(la)
	freed := whoFreed(r, held, "that release")
	if c.tryAcquire(r.tm.Long) != nil {
		return r.breaks("after A's second release, %s", freed)
	}
	return r.holds("A's second release left B's lock in place")
}
