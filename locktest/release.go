package locktest

import (
	"fmt"

	"github.com/locklab/locklab/strategy"
)

// releaseFrees: right after A releases, B's single attempt must succeed;
// and a Release that reports success when its command failed must have
// freed the lock all the same.
func releaseFrees(newRun func(string) *run) Result {
	r := newRun("/release")
	a, b := r.newClient("A", 0), r.newClient("B", 0)
	la := a.tryAcquire(r.tm.Long)
	if la == nil {
		r.fail("A could not acquire a free lock")
	}
	err := a.releaseErr(la)
	if b.tryAcquire(r.tm.Long) == nil {
		if err != nil {
			return r.breaks("A's release of the lock it held failed (%s), and B's attempt right after found it still taken: the lock goes only when its TTL (%v) runs out", r.errText(err), r.tm.Long)
		}
		return r.breaks("A released its lock, and B's attempt right after found it still taken: the release does not free the lock, which goes only when its TTL (%v) runs out", r.tm.Long)
	}
	r.shutdown()

	r = newRun("/failed-release")
	a, b = r.newClient("A", 0), r.newClient("B", 0)
	la = a.tryAcquire(r.tm.Long)
	if la == nil {
		r.fail("A could not acquire a free lock")
	}
	a.mu.Lock()
	a.failNext = true
	a.mu.Unlock()
	r.note("A's next command fails without being sent, as when its connection drops")
	if err := a.releaseErr(la); err != nil {
		return r.holds("after A released, B acquired at once; a release whose command failed said so (%v)", r.errText(err))
	}
	if b.tryAcquire(r.tm.Long) == nil {
		return r.breaks("A's release reported success although its command failed and never reached Redis: B's attempt right after found the lock still taken")
	}
	return r.holds("after A released, B acquired at once, even when A's first release command failed")
}

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
		lb, held, broke, why := r.takeoverWhilePaused(p, b, c)
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

// whoFreed says, in case C then acquires while B holds the lock, what the
// timeline shows: whether release, the last thing A did, deleted the key
// B's lock was at (held: K existed while B held it), or whether C got in
// although K was still there. It reads K, so call it before C's attempt.
func whoFreed(r *run, held bool, release string) string {
	switch {
	case held && !r.keyExists():
		return fmt.Sprintf("%s deleted K, B's lock: C acquired it while B still held it", release)
	case held:
		return "C acquired the lock while B still held it, although K was still there: the acquire let a second holder in"
	default:
		return "C acquired the lock while B still held it"
	}
}

// keyExists says whether the run's key exists, read on the suite's own
// connection; a lock may keep its state elsewhere, so only a key that
// existed and then vanished says something.
func (r *run) keyExists() bool { return r.exists(r.key) }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// lateHolder starts the run of boundary k of a scenario in which A, late,
// finishes an operation on a lock that has passed to B: A holds the lock
// with the short TTL, and B and C are ready to wait for it.
func lateHolder(newRun func(string) *run, k int) (r *run, a, b, c *client, la strategy.Lock) {
	r = newRun(fmt.Sprintf("/boundary-%d", k))
	a, b, c = r.newClient("A", 0), r.newClient("B", 0), r.newClient("C", 0)
	if la = a.tryAcquire(r.tm.Short); la == nil {
		r.fail("A could not acquire a free lock")
	}
	return r, a, b, c, la
}

// takeoverWhilePaused goes on once A is paused inside an operation p with
// its lock's TTL (Short) still running: B waits for the lock for the TTL
// plus slack; then A resumes, and its operation is taken to its end one
// command at a time (lateSteps), C trying at each boundary. It returns
// B's lock, whether K still existed right after B got it, what A's late
// operation did to B's lock ("" when nothing) and, when B got nothing,
// why the lock had not expired, read before A resumed.
func (r *run) takeoverWhilePaused(p *pausedOp, b, c *client) (lb strategy.Lock, held bool, broke, why string) {
	a := p.c
	r.note("A stays paused past its TTL (%v); B waits up to %v", r.tm.Short, r.tm.Short+r.tm.Slack)
	lb = b.acquire(r.tm.Long, r.tm.Short+r.tm.Slack)
	if lb == nil {
		why = r.unexpired(r.tm.Short, r.tm.Short+r.tm.Slack)
		a.resume()
		r.note("A resumes")
		p.wait()
		return nil, false, "", why
	}
	held = r.keyExists()
	r.note("A resumes, one command at a time")
	if broke = r.lateSteps(p, b, c); broke == "" {
		p.wait()
	}
	return lb, held, broke, ""
}
