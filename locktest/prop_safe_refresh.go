package locktest

import (
	"github.com/locklab/locklab/strategy"
)

// SafeRefresh: for locks that implement strategy.Refresher, a refresh
// sent after the lock passed to someone else, paused before it and at
// each boundary between its commands in turn, must neither claim the
// lock (Refresh returns an error), nor extend the new holder's lock,
// nor free it.

// safeRefresh: at each boundary of its Refresh in turn, A is paused until
// its TTL has passed and B has acquired; then A's refresh goes on. It must
// fail, leave B's lock no longer than B asked for, and leave it held.
func safeRefresh(newRun func(string) *run) Result {
	ops := countOps(newRun)
	if !ops.refresher {
		r := newRun("/none")
		return r.notApplicable("the lock cannot be refreshed: it does not implement strategy.Refresher")
	}
	n := ops.refresh
	var last *run
	for k := range max(n, 1) {
		r, a, b, c, la := lateHolder(newRun, k)
		last = r
		rf, ok := la.(strategy.Refresher)
		if !ok {
			r.fail("A's lock does not implement strategy.Refresher, although an earlier one did")
		}
		var err error
		p := a.pauseInside(k, n, "refresh", func() { err = a.refresh(rf, 3*r.tm.Long) })
		if !p.reached {
			r.shutdown()
			continue
		}
		lb, held, broke, why := takeoverWhilePaused(r, p, b, c)
		if lb == nil {
			return r.notApplicable("nobody else acquired the lock while A was paused: %s", why)
		}
		r.det.enter("B")
		at := boundaryText(k, n, "refresh")
		if broke != "" {
			return r.breaks("A was paused %s until B acquired; when A resumed, %s", at, broke)
		}
		if err == nil {
			r.det.enter("A")
			return r.breaks("A was paused %s until its TTL ran out and B acquired; when A resumed, its Refresh reported success: A would go on working while B holds the lock", at)
		}
		if left := r.pttl(); left > r.tm.Long+r.tm.Slack/5 {
			return r.breaks("A was paused %s until B acquired; A's late Refresh (for %v) failed, but B's lock now expires in %v, past the %v B asked for", at, 3*r.tm.Long, left, r.tm.Long)
		}
		freed := whoFreed(r, held, "A's late Refresh")
		if c.tryAcquire(r.tm.Long) != nil {
			return r.breaks("A was paused %s until B acquired; then %s", at, freed)
		}
		r.shutdown()
	}
	if n <= 1 {
		return last.holds("A's late Refresh, paused before its one command until B had acquired, failed and left B's lock as B took it")
	}
	return last.holds("A's late Refresh, paused at each of the %d boundaries of its %d-command refresh in turn, failed and left B's lock as B took it", n, n)
}
