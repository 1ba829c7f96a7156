package locktest

// SafeRelease: the holder is paused past its TTL, another client
// acquires, and the first one's late release must leave the second one's
// lock as it was (see nexthold.go). The pause falls before the release
// and, in turn, at every boundary between its commands.

// safeRelease: at each boundary of its release in turn, A is paused until
// its TTL has passed and B has acquired; then A finishes its release, and C
// checks whether B's lock survived. A lock that renews itself runs out too:
// its renewals are paused with A.
func safeRelease(newRun func(string) *run) Result {
	n := countOps(newRun).release
	var last *run
	for k := range max(n, 1) {
		r, a, b, c, la := lateHolder(newRun, k)
		last = r
		p := a.pauseInside(k, n, "release", func() { a.release(la) })
		if !p.reached {
			r.shutdown()
			continue
		}
		lb, held, broke, why := takeoverWhilePaused(r, p, b, c)
		if lb == nil {
			return r.notApplicable("nobody else acquired the lock while A was paused: %s", why)
		}
		if broke != "" {
			return r.breaks("A was paused %s until its TTL ran out and B acquired; when A resumed, %s", boundaryText(k, n, "release"), broke)
		}
		freed := whoFreed(r, held, "its release")
		if c.tryAcquire(r.tm.Long) != nil {
			return r.breaks("A was paused %s until its TTL ran out and B acquired; when A resumed, %s", boundaryText(k, n, "release"), freed)
		}
		r.shutdown()
	}
	if n <= 1 {
		return last.holds("A's late release, paused before its one command until B had acquired, left B's lock in place")
	}
	return last.holds("A's late release, paused at each of the %d boundaries of its %d-command release in turn, left B's lock in place", n, n)
}
