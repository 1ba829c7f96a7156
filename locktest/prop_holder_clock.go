package locktest

import (
	"time"
)

// HolderClock: the holder's own clock runs ahead of the server's, then
// behind it, by more than the TTL. A lock whose expiry the holder's clock
// sets lives longer than asked (a crashed holder blocks everyone for the
// skew) or shorter (another client gets in while the holder works). n/a
// for a lock that never reads the client's clock.

// holderClock: A, its clock ahead by more than the TTL and the slack,
// acquires and crashes: B must get the lock within the TTL and the slack.
// Then A, its clock behind by more than its TTL, acquires and stays alive:
// nobody may acquire before that TTL has passed.
func holderClock(newRun func(string) *run) Result {
	r := newRun("/ahead")
	ahead := 2 * (r.tm.Short + r.tm.Slack)
	a, b := r.newClient("A", ahead), r.newClient("B", 0)
	if a.tryAcquire(r.tm.Short) == nil {
		r.fail("A could not acquire a free lock")
	}
	if r.clockReads.Load() == 0 {
		return r.notApplicable("the strategy never reads the client's clock")
	}
	a.crash("crashes while holding the lock; it never releases")
	wait := r.tm.Short + r.tm.Slack
	r.note("B waits up to %v (TTL %v + slack)", wait, r.tm.Short)
	if b.acquire(r.tm.Short, wait) == nil {
		return r.breaks("A's clock ran %v ahead when it acquired and crashed, and B still could not acquire the lock %v later: A's clock set the lock's expiry, which outlived the TTL of %v by the skew",
			ahead, wait, r.tm.Short)
	}
	r.shutdown()

	r = newRun("/behind")
	ttl, tol := r.tm.kept(), r.tm.keptTolerance()
	behind := -2 * ttl
	a, b = r.newClient("A", behind), r.newClient("B", 0)
	asked := time.Now()
	if a.tryAcquire(ttl) == nil {
		r.fail("A could not acquire a free lock")
	}
	r.det.enter("A")
	until := asked.Add(ttl - tol)
	r.note("A, its clock %v behind, holds the lock for a TTL of %v; B polls with the same TTL until %v before its end", -behind, ttl, tol)
	for time.Now().Before(until) {
		if b.tryAcquire(ttl) != nil {
			at := time.Since(asked)
			if at >= ttl {
				break // returned past A's TTL: proves nothing
			}
			r.det.enter("B")
			return r.breaks("A's clock ran %v behind when it acquired for a TTL of %v, and B acquired the lock before that TTL had passed, while A was alive and not paused: A's clock set the lock's expiry, which came early by the skew",
				-behind, ttl)
		}
		time.Sleep(2 * r.tm.Poll)
	}
	return r.holds("the lock lived as long as asked with A's clock %v ahead (a crashed A's lock freed within its TTL and the slack) and %v behind (nobody got in before its TTL)", ahead, -behind)
}
