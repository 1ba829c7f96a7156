package locktest

// ClockSkew: while the lock is held, a client whose clock runs ahead by
// more than the TTL tries to acquire it, and must fail.

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
