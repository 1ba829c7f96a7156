package locktest

import "github.com/locklab/locklab/internal/msg"

// DoubleRelease: a client releases twice; a lock acquired in between by
// someone else must survive. Someone else is another client, then another
// goroutine of the same client, sharing its strategy instance as a
// service shares one lock client among its goroutines: a token drawn once
// per instance, not per acquire, lets one goroutine free another's lock.

const DoubleRelease Property = "double-release" // a second release must not free another's lock

func init() {
	register(property{
		p: DoubleRelease, order: 110, scenario: doubleRelease,
		breaks: "a second release freed the lock someone else had acquired in between",
	}, func(tm Timing) floors {
		// Acquires and releases with the Long TTL, which never runs out:
		// nothing to wait for.
		return floors{}
	})
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
	r.shutdown()
	if broke := doubleReleaseGoroutines(newRun, n); broke != nil {
		return *broke
	}
	return r.holds(mDoubleHolds.New())
}

// doubleReleaseGoroutines is the double release between two goroutines of
// one client: A1 acquires and releases, A2 acquires with the same strategy
// instance, and A1 releases again.
func doubleReleaseGoroutines(newRun func(string) *run, n int) *Result {
	r := newRun("/goroutines")
	a, c := r.newClient("A", 0), r.newClient("C", 0)
	r.note(mGoroutinesA1Acquires.New())
	l1 := a.tryAcquire(r.tm.Long)
	if l1 == nil {
		r.fail("A1 could not acquire a free lock")
	}
	r.note(mA1Releases.New())
	a.release(l1)
	r.note(mA2Acquires.New())
	if a.tryAcquire(r.tm.Long) == nil {
		r.shutdown()
		return nil // the release did not free the lock: release-frees says so
	}
	r.note(mA1ReleasesAgain.New())
	if p := a.pauseInside(0, n, "second release", func() { a.release(l1) }); p.reached {
		if broke := r.lateStepsOf(p, mPossessive.New("A1"), "A2", nil, c); !broke.IsZero() {
			res := r.breaks(mGoroutinesThen.New(broke))
			return &res
		}
		p.wait()
	}
	if c.tryAcquire(r.tm.Long) != nil {
		res := r.breaks(mGoroutinesAfter.New())
		return &res
	}
	r.shutdown()
	return nil
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
		"A's second release left B's lock in place, whether B was another client or another goroutine of A's",
		"A 的第二次释放没有动 B 的锁，无论 B 是另一个客户端，还是 A 自己的另一个 goroutine")

	mGoroutinesA1Acquires = msg.Define("double-release.goroutines", nil,
		"A1 and A2 are goroutines of client A, sharing its strategy instance; A1 acquires",
		"A1 和 A2 是客户端 A 的两个 goroutine，共用它的方案实例；A1 加锁")
	mA1Releases      = msg.Define("double-release.a1-releases", nil, "A1 releases", "A1 释放")
	mA2Acquires      = msg.Define("double-release.a2-acquires", nil, "A2 acquires", "A2 加锁")
	mA1ReleasesAgain = msg.Define("double-release.a1-releases-again", nil, "A1 releases again", "A1 再次释放")
	mGoroutinesThen  = msg.Define("double-release.breaks-goroutines-late", msg.K(msg.Sub),
		"A1 and A2, two goroutines of client A, share its strategy instance: after A1's release A2 acquired; then {0}",
		"A1 和 A2 是客户端 A 的两个 goroutine，共用它的方案实例：A1 释放后 A2 拿到了锁；然后{0}")
	mGoroutinesAfter = msg.Define("double-release.breaks-goroutines", nil,
		"A1 and A2, two goroutines of client A, share its strategy instance: after A1's release A2 acquired; after A1's second release, C acquired the lock while A2 still held it",
		"A1 和 A2 是客户端 A 的两个 goroutine，共用它的方案实例：A1 释放后 A2 拿到了锁；A1 第二次释放之后，A2 还持有锁，C 就拿到了")
)
