package locktest

// HolderOverrun: the holder's work outlasts its TTL while others wait;
// they must not enter while it is still inside.

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
