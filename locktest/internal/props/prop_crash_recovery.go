package props

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// CrashRecovery: the holder crashes after acquiring and never releases;
// a waiter must get the lock within the TTL plus some slack.

func init() {
	register(Property{
		id: "crash-recovery", order: 40, Scenario: crashRecovery,
		breaks: "a holder that crashed left a lock nobody could acquire once its TTL had passed",
	}, func(tm sim.Timing) floors {
		// A crashes holding a lock with the Short TTL; B cannot get it
		// before that TTL has run out.
		return floors{Holds: tm.Short}
	})
}

// crashRecovery: A acquires and crashes; B must get the lock within the TTL
// plus slack. A lock that can be refreshed goes through it again with A's
// TTL set by Refresh: a refresh must not make the lock outlive its TTL.
func crashRecovery(newRun func(string) *harness.Run) harness.Outcome {
	for _, refreshed := range []bool{false, true} {
		name := "/acquired"
		if refreshed {
			name = "/refreshed"
		}
		r := newRun(name)
		a, b := r.NewClient("A", 0), r.NewClient("B", 0)
		// A refreshed lock is taken, and refreshed at once, for longer
		// than the slack by two Short TTLs: the refresh comes in time on
		// a slow machine, and a refresh that adds its TTL to what the
		// key has left, rather than setting it, makes the key outlive
		// B's wait by that much. A refresh to the TTL the lock already
		// has is one that a lock which never shortens a lock makes too.
		ttl := r.Tm.Short
		if refreshed {
			ttl = r.Tm.RefreshedRecoveryTTL()
		}
		la := a.MustAcquire(ttl)
		rf, refresher := la.(strategy.Refresher)
		if refreshed {
			if err := a.Refresh(rf, ttl); err != nil {
				r.Fail(mFailRefresh.New("A", err.Error()))
			}
		}
		a.Crash(mCrashNeverReleases.New())
		wait := ttl + r.Tm.Slack
		r.Note(mBWaitsTTL.New(wait, ttl))
		since := r.Rec.Now()
		if b.WaitFree(r.Tm.Short, wait, ttl+r.Tm.StaleAfter()) == nil {
			what := mRecoveryCrashed.New()
			if refreshed {
				what = mRecoveryRefreshedCrashed.New(ttl)
			}
			return r.BreaksUnfreed("B", since, wait-r.Tm.Poll, mRecoveryBreaks.New(what, wait, r.LifeLeft(ttl, wait)))
		}
		if !refresher || refreshed {
			if refreshed {
				return r.Holds(mRecoveryHoldsBoth.New())
			}
			return r.Holds(mRecoveryHolds.New())
		}
		r.Shutdown()
	}
	panic("unreachable")
}

// crash-recovery's messages.
var (
	mRecoveryCrashed          = msg.Define("crash-recovery.crashed", nil, "A crashed holding the lock")
	mRecoveryRefreshedCrashed = msg.Define("crash-recovery.refreshed-crashed", msg.K(msg.Duration),
		"A refreshed its lock to {0} and crashed")
	mRecoveryBreaks = msg.Define("crash-recovery.breaks", msg.K(msg.Sub, msg.Duration, msg.Sub),
		"{0}, and B still could not acquire it {1} later: {2}")
	mRecoveryHoldsBoth = msg.Define("crash-recovery.holds-refreshed", nil,
		"B acquired the lock after A crashed holding it, and again after A refreshed it and crashed")
	mRecoveryHolds = msg.Define("crash-recovery.holds", nil,
		"B acquired the lock after A crashed holding it")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("crash-recovery.scenario", nil,
		"the holder crashes and never releases")
	_ = msg.Define("crash-recovery.must", nil,
		"a waiter gets the lock once the TTL has passed")
)
