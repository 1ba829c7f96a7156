package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// SafeRefresh: for locks that implement strategy.Refresher, a refresh
// sent after the lock passed to someone else, paused before it and at
// each boundary between its commands in turn, must neither claim the
// lock (Refresh returns an error), nor extend the new holder's lock,
// nor free it.

func init() {
	register(Property{
		id: "safe-refresh", order: 120, Scenario: safeRefresh,
		breaks: "a late Refresh claimed, extended or freed the next holder's lock",
	}, func(tm sim.Timing) floors {
		// A, paused, holds with the Short TTL; B acquires only once it
		// has run out (at least once: the other boundaries are not
		// counted).
		return floors{Holds: tm.Short}
	})
}

// safeRefresh: at each boundary of its Refresh in turn, A is paused until
// its TTL has passed and B has acquired; then A's refresh goes on. It must
// fail, leave B's lock no longer than B asked for, and leave it held.
func safeRefresh(newRun func(string) *harness.Run) harness.Outcome {
	ops := harness.CountOps(newRun)
	if !ops.Refresher {
		r := newRun("/none")
		return r.NotApplicable(mRefreshNA.New())
	}
	n := ops.Refresh
	var err error // the late Refresh's, once A is done
	last, res := harness.LateAtEachBoundary(newRun, n, "refresh", func(r *harness.Run, a *harness.Client, la strategy.Lock) func() {
		rf, ok := la.(strategy.Refresher)
		if !ok {
			r.Fail(mSafeRefreshNotRefresher.New())
		}
		err = nil
		return func() { err = a.Refresh(rf, 3*r.Tm.Long) }
	}, func(l harness.LateRun) *harness.Outcome {
		r := l.R
		r.Det.Enter("B")
		var res harness.Outcome
		if !l.Broke.IsZero() {
			res = r.BreaksRule(l.Broke.Rule, mRefreshResumed.New(l.At, l.Broke.Msg))
			return &res
		}
		if err == nil {
			r.Det.Enter("A")
			res = r.BreaksRule(history.OneInside, mPausedTTLResumed.New(l.At, mRefreshSucceeded.New()))
			return &res
		}
		if left := r.Pttl(); left > r.Tm.Long+r.Tm.Slack/5 {
			res = r.Breaks(mRefreshPushed.New(l.At, 3*r.Tm.Long, left, r.Tm.Long))
			return &res
		}
		freed := harness.WhoFreed(r, l.Held, "refresh")
		if l.C.TryAcquire(r.Tm.Long) == nil {
			return nil
		}
		res = r.BreaksRule(history.OneHolder, mRefreshThen.New(l.At, freed))
		return &res
	})
	switch {
	case res != nil:
		return *res
	case n <= 1:
		return last.Holds(mRefreshOne.New())
	}
	return last.Holds(mRefreshHolds.New(n, n))
}

// safe-refresh's messages.
var (
	mRefreshNA = msg.Define("safe-refresh.n/a", nil,
		"the lock cannot be refreshed: it does not implement strategy.Refresher")
	mRefreshResumed = msg.Define("safe-refresh.breaks-resumed", msg.K(msg.Sub, msg.Sub),
		"A was paused {0} until B acquired; when A resumed, {1}")
	mRefreshSucceeded = msg.Define("safe-refresh.succeeded", nil,
		"its Refresh reported success: A would go on working while B holds the lock")
	mRefreshPushed = msg.Define("safe-refresh.breaks-pushed", msg.K(msg.Sub, msg.Duration, msg.Duration, msg.Duration),
		"A was paused {0} until B acquired; A's late Refresh (for {1}) failed, but B's lock now expires in {2}, past the {3} B asked for")
	mRefreshThen = msg.Define("safe-refresh.breaks-then", msg.K(msg.Sub, msg.Sub),
		"A was paused {0} until B acquired; then {1}")
	mRefreshOne = msg.Define("safe-refresh.holds-one", nil,
		"A's late Refresh, paused before its one command until B had acquired, failed and left B's lock as B took it")
	mRefreshHolds = msg.Define("safe-refresh.holds", msg.K(msg.Count, msg.Count),
		"A's late Refresh, paused at each of the {0} boundaries of its {1}-command refresh in turn, failed and left B's lock as B took it")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("safe-refresh.scenario", nil,
		"for a lock that can extend itself: the holder is paused past its TTL before its refresh and at each boundary between the refresh's commands, another client acquires, then the refresh goes on one command at a time, the new holder paused and K read as in `safe-release`")
	_ = msg.Define("safe-refresh.must", nil,
		"the late refresh fails, and the new holder's lock is neither extended nor freed, overwritten or left without expiry; nobody else gets in")
)

// safe-refresh's run without a verdict.
var mSafeRefreshNotRefresher = msg.Define("safe-refresh.not-refresher", nil,
	"A's lock does not implement strategy.Refresher, although an earlier one did")
