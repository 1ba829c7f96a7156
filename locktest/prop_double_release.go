package locktest

import "github.com/locklab/locklab/internal/msg"

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
		return r.notApplicable(mDoubleNA.New())
	}
	held := r.keyExists()
	if p := a.pauseInside(0, n, "second release", func() { a.release(la) }); p.reached {
		if broke := r.lateSteps(p, b, c); !broke.IsZero() {
			return r.breaks(mDoubleThen.New(broke))
		}
		p.wait()
	}
	freed := whoFreed(r, held, mThatRelease.New())
	if c.tryAcquire(r.tm.Long) != nil {
		return r.breaks(mDoubleAfter.New(freed))
	}
	return r.holds(mDoubleHolds.New())
}

// double-release's messages.
var (
	mDoubleNA = msg.Define("double-release.n/a", nil,
		"A's release did not free the lock, so nobody can acquire it between A's two releases (release-frees breaks)",
		"A 的释放没有放开锁，所以 A 的两次释放之间没人能拿到锁（release-frees breaks）")
	mDoubleThen = msg.Define("double-release.breaks-late", msg.K(msg.Sub),
		"after A's release B acquired; then {0}", "A 释放之后 B 拿到了锁；然后，{0}")
	mDoubleAfter = msg.Define("double-release.breaks", msg.K(msg.Sub),
		"after A's second release, {0}", "A 第二次释放之后，{0}")
	mDoubleHolds = msg.Define("double-release.holds", nil,
		"A's second release left B's lock in place", "A 的第二次释放没有动 B 的锁")
)
