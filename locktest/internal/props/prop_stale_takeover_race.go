package props

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// StaleTakeoverRace: two waiters find the same expired lock at the same
// moment; every interleaving of their attempts is tried, and at most one
// may win. n/a where Redis itself deleted the expired key: then there is
// no stale lock, only a free key, and exclusion covers that race.

func init() {
	register(Property{
		id: "stale-takeover-race", order: 70, Scenario: staleTakeoverRace,
		breaks:     "two waiters both took over the same expired lock",
		Structural: true,
	}, func(tm sim.Timing) floors {
		// It begins by making a stale lock (makeStale), whatever the
		// lock.
		return floors{Any: tm.Short + tm.StaleAfter(), Holds: tm.Short + tm.StaleAfter()}
	})
}

// staleTakeoverRace: A and B both find the lock a crashed holder left, and
// every interleaving of their two attempts is tried; at most one may win.
func staleTakeoverRace(newRun func(string) *harness.Run) harness.Outcome {
	stale := harness.MakeStale(newRun)
	if !stale.Exists {
		r := newRun("/none")
		return r.NotApplicable(mStaleDeleted.New())
	}
	if harness.Probe(newRun, stale)[1].Commands == 0 {
		r := newRun("/none")
		stale.Restore(r)
		after := r.Tm.Short + r.Tm.StaleAfter()
		return r.NotApplicable(mNoStale.New(after, r.Unexpired(r.Tm.Short, after)))
	}
	return harness.Race(newRun, &stale, mBothStale.New(), mOnStaleLock.New())
}

// stale-takeover-race's messages.
var (
	mStaleDeleted = msg.Define("stale-takeover-race.n/a-expired", nil,
		"Redis itself deleted the crashed holder's key when its TTL passed: there is no stale lock to take over, only a free key (exclusion races two acquires on one)")
	mNoStale = msg.Define("stale-takeover-race.n/a", msg.K(msg.Duration, msg.Sub),
		"no stale lock to take over: {0} after its holder crashed, nobody could take it over: {1}")
	mBothStale = msg.Define("stale-takeover-race.both", nil,
		"both waiters found the same stale lock and both took it over")
	mOnStaleLock = msg.Define("stale-takeover-race.on-stale-lock", nil, "on a stale lock")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("stale-takeover-race.scenario", nil,
		"two waiters find the same expired lock at the same moment; every interleaving of their commands is tried")
	_ = msg.Define("stale-takeover-race.must", nil,
		"at most one of them wins")
)
