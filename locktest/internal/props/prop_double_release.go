package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// DoubleRelease: a client releases twice; a lock acquired in between by
// someone else must survive. Someone else is another client, then another
// goroutine of the same client, sharing its strategy instance as a
// service shares one lock client among its goroutines: a token drawn once
// per instance, not per acquire, lets one goroutine free another's lock.

func init() {
	register(Property{
		id: "double-release", order: 110, Scenario: doubleRelease,
		breaks: "a second release freed the lock someone else had acquired in between",
	}, func(tm sim.Timing) floors {
		// Acquires and releases with the Long TTL, which never runs out:
		// nothing to wait for.
		return floors{}
	})
}

// doubleRelease: A releases twice; B's lock, taken in between, must survive
// A's second release as it was, and let nobody else in while it runs.
func doubleRelease(newRun func(string) *harness.Run) harness.Outcome {
	n := harness.CountOps(newRun).Release
	r := newRun("")
	a, b, c := r.NewClient("A", 0), r.NewClient("B", 0), r.NewClient("C", 0)
	la := a.MustAcquire(r.Tm.Long)
	a.Release(la)
	if b.TryAcquire(r.Tm.Long) == nil {
		return r.NotApplicable(mDoubleNA.New())
	}
	held := r.KeyExists()
	if p := a.PauseInside(0, n, "second release", func() { a.Release(la) }); p.Reached {
		if broke := harness.LateSteps(r, p, b, c); !broke.IsZero() {
			return r.BreaksRule(broke.Rule, mDoubleThen.New(broke.Msg))
		}
		p.Wait()
	}
	freed := harness.WhoFreed(r, held, "second release")
	if c.TryAcquire(r.Tm.Long) != nil {
		return r.BreaksRule(history.OneHolder, mDoubleThen.New(freed))
	}
	r.Shutdown()
	if broke := doubleReleaseGoroutines(newRun, n); broke != nil {
		return *broke
	}
	return r.Holds(mDoubleHolds.New())
}

// doubleReleaseGoroutines is the double release between two goroutines of
// one client: A1 acquires and releases, A2 acquires with the same strategy
// instance, and A1 releases again.
func doubleReleaseGoroutines(newRun func(string) *harness.Run, n int) *harness.Outcome {
	r := newRun("/goroutines")
	a, c := r.NewClient("A", 0), r.NewClient("C", 0)
	r.Note(mGoroutinesA1Acquires.New())
	l1 := a.MustAcquire(r.Tm.Long)
	r.Note(mA1Releases.New())
	a.Release(l1)
	r.Note(mA2Acquires.New())
	if a.TryAcquire(r.Tm.Long) == nil {
		r.Shutdown()
		return nil // the release did not free the lock: release-frees says so
	}
	// What the lock does on its own goroutines right after A2's acquire
	// returned (rueidislock takes the rest of its keys) is done before
	// the pause: else the pause meets that command, not the release's.
	a.Settle()
	r.Note(mA1ReleasesAgain.New())
	if p := a.PauseInside(0, n, "second release", func() { a.Release(l1) }); p.Reached {
		if broke := harness.LateStepsOf(r, p, "A1", "A2", nil, c); !broke.IsZero() {
			// A1 and A2 are one client to the history: the break
			// is observed, not found among holds.
			res := r.Breaks(mGoroutinesThen.New(broke.Msg))
			return &res
		}
		p.Wait()
	}
	if c.TryAcquire(r.Tm.Long) != nil {
		res := r.Breaks(mGoroutinesAfter.New())
		return &res
	}
	r.Shutdown()
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
