package locktest

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// DoubleRelease: a client releases twice; a lock acquired in between by
// someone else must survive. Someone else is another client, then another
// goroutine of the same client, sharing its strategy instance as a
// service shares one lock client among its goroutines: a token drawn once
// per instance, not per acquire, lets one goroutine free another's lock.

func init() {
	register(property{
		id: "double-release", order: 110, scenario: doubleRelease,
		breaks: "a second release freed the lock someone else had acquired in between",
	}, func(tm timing) floors {
		// Acquires and releases with the Long TTL, which never runs out:
		// nothing to wait for.
		return floors{}
	})
}

// doubleRelease: A releases twice; B's lock, taken in between, must survive
// A's second release as it was, and let nobody else in while it runs.
func doubleRelease(newRun func(string) *run) outcome {
	n := countOps(newRun).release
	r := newRun("")
	a, b, c := r.newClient("A", 0), r.newClient("B", 0), r.newClient("C", 0)
	la := a.mustAcquire(r.tm.Long)
	a.release(la)
	if b.tryAcquire(r.tm.Long) == nil {
		return r.notApplicable(mDoubleNA.New())
	}
	held := r.keyExists()
	if p := a.pauseInside(0, n, "second release", func() { a.release(la) }); p.reached {
		if broke := r.lateSteps(p, b, c); !broke.IsZero() {
			return r.breaksRule(broke.rule, mDoubleThen.New(broke.msg))
		}
		p.wait()
	}
	freed := whoFreed(r, held, "second release")
	if c.tryAcquire(r.tm.Long) != nil {
		return r.breaksRule(history.OneHolder, mDoubleThen.New(freed))
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
func doubleReleaseGoroutines(newRun func(string) *run, n int) *outcome {
	r := newRun("/goroutines")
	a, c := r.newClient("A", 0), r.newClient("C", 0)
	r.note(mGoroutinesA1Acquires.New())
	l1 := a.mustAcquire(r.tm.Long)
	r.note(mA1Releases.New())
	a.release(l1)
	r.note(mA2Acquires.New())
	if a.tryAcquire(r.tm.Long) == nil {
		r.shutdown()
		return nil // the release did not free the lock: release-frees says so
	}
	r.note(mA1ReleasesAgain.New())
	if p := a.pauseInside(0, n, "second release", func() { a.release(l1) }); p.reached {
		if broke := r.lateStepsOf(p, "A1", "A2", nil, c); !broke.IsZero() {
			// A1 and A2 are one client to the history: the break
			// is observed, not found among holds.
			res := r.breaks(mGoroutinesThen.New(broke.msg))
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
		"A's release did not free the lock, so nobody can acquire it between A's two releases (release-frees breaks)")
	mDoubleThen = msg.Define("double-release.breaks-late", msg.K(msg.Sub),
		"after A's release B acquired; then {0}")
	mDoubleHolds = msg.Define("double-release.holds", nil,
		"A's second release left B's lock in place, whether B was another client or another goroutine of A's")

	mGoroutinesA1Acquires = msg.Define("double-release.goroutines", nil,
		"A1 and A2 are goroutines of client A, sharing its strategy instance; A1 acquires")
	mA1Releases      = msg.Define("double-release.a1-releases", nil, "A1 releases")
	mA2Acquires      = msg.Define("double-release.a2-acquires", nil, "A2 acquires")
	mA1ReleasesAgain = msg.Define("double-release.a1-releases-again", nil, "A1 releases again")
	mGoroutinesThen  = msg.Define("double-release.breaks-goroutines-late", msg.K(msg.Sub),
		"A1 and A2, two goroutines of client A, share its strategy instance: after A1's release A2 acquired; then {0}")
	mGoroutinesAfter = msg.Define("double-release.breaks-goroutines", nil,
		"A1 and A2, two goroutines of client A, share its strategy instance: after A1's release A2 acquired; after A1's second release, C acquired the lock while A2 still held it")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("double-release.scenario", nil,
		"A releases twice, and B acquires in between; A's second release runs one command at a time, B paused, K read after each and C trying at each boundary. Then again with A1 and A2, two goroutines sharing client A's strategy instance, as a service shares one lock client: A1 releases, A2 acquires, A1 releases again")
	_ = msg.Define("double-release.must", nil,
		"the lock taken in between, B's or A2's, stays as it was taken, and C never gets in")
)
