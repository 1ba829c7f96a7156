package locktest

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// CrashRecovery: the holder crashes after acquiring and never releases;
// a waiter must get the lock within the TTL plus some slack.

func init() {
	register(property{
		id: "crash-recovery", order: 40, scenario: crashRecovery,
		breaks: "a holder that crashed left a lock nobody could acquire once its TTL had passed",
	}, func(tm timing) floors {
		// A crashes holding a lock with the Short TTL; B cannot get it
		// before that TTL has run out.
		return floors{holds: tm.Short}
	})
}

// crashRecovery: A acquires and crashes; B must get the lock within the TTL
// plus slack. A lock that can be refreshed goes through it again with A's
// TTL set by Refresh: a refresh must not make the lock outlive its TTL.
func crashRecovery(newRun func(string) *run) outcome {
	for _, refreshed := range []bool{false, true} {
		name := "/acquired"
		if refreshed {
			name = "/refreshed"
		}
		r := newRun(name)
		a, b := r.newClient("A", 0), r.newClient("B", 0)
		// A lock to be refreshed is taken for longer than Short, so that
		// the refresh comes in time on a slow machine; the refresh sets
		// the TTL that matters.
		ttl := r.tm.Short
		if refreshed {
			ttl = r.tm.renewedTTL()
		}
		la := a.mustAcquire(ttl)
		rf, refresher := la.(strategy.Refresher)
		if refreshed {
			if err := a.refresh(rf, r.tm.Short); err != nil {
				r.fail(mFailRefresh.New("A", err.Error()))
			}
		}
		a.crash(mCrashNeverReleases.New())
		wait := r.tm.Short + r.tm.Slack
		r.note(mBWaitsTTL.New(wait, r.tm.Short))
		since := r.rec.now()
		if b.waitFree(r.tm.Short, wait, r.tm.Short+r.tm.staleAfter()) == nil {
			what := mRecoveryCrashed.New()
			if refreshed {
				what = mRecoveryRefreshedCrashed.New(r.tm.Short)
			}
			return r.breaksUnfreed("B", since, wait-r.tm.Poll, mRecoveryBreaks.New(what, wait, r.lifeLeft(r.tm.Short, wait)))
		}
		if !refresher || refreshed {
			if refreshed {
				return r.holds(mRecoveryHoldsBoth.New())
			}
			return r.holds(mRecoveryHolds.New())
		}
		r.shutdown()
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
