package locktest

import (
	"fmt"
)

// CrashMidRelease: a holder that dies between the commands of its
// release, at each boundary in turn, leaves a lock that still frees
// within its TTL.

// crashMidRelease: for every boundary between the commands of a release, A
// dies there; the lock must still free within its TTL.
func crashMidRelease(newRun func(string) *run) Result {
	n := countOps(newRun).release
	if n <= 1 {
		r := newRun("/none")
		return r.notApplicable("a release sends %d command%s: there is no boundary between commands to die at", n, plural(n))
	}
	var last *run
	for k := 1; k < n; k++ {
		r := newRun(fmt.Sprintf("/boundary-%d", k))
		last = r
		a, b := r.newClient("A", 0), r.newClient("B", 0)
		la := a.tryAcquire(r.tm.Short)
		if la == nil {
			r.fail("A could not acquire a free lock")
		}
		a.mu.Lock()
		a.crashAfter = a.sent + k
		a.mu.Unlock()
		a.release(la)
		wait := r.tm.Short + r.tm.Slack
		r.note("B waits up to %v (A's TTL %v + slack)", wait, r.tm.Short)
		if b.acquire(r.tm.Short, wait) == nil {
			return r.breaks("A died %s, and B still could not acquire the lock %v later: the half-done release left a lock that does not expire", boundaryText(k, n, "release"), wait)
		}
		r.shutdown()
	}
	return last.holds("wherever A died inside its %d-command release, the lock freed within its TTL", n)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
