package locktest

import "github.com/locklab/locklab/internal/msg"

// StaleTakeoverRace: two waiters find the same expired lock at the same
// moment; every interleaving of their attempts is tried, and at most one
// may win. n/a where Redis itself deleted the expired key: then there is
// no stale lock, only a free key, and exclusion covers that race.

const StaleTakeoverRace Property = "stale-takeover-race" // two waiters find the same expired lock

func init() {
	register(property{
		p: StaleTakeoverRace, order: 70, scenario: staleTakeoverRace,
		breaks:     "two waiters both took over the same expired lock",
		structural: true,
	}, func(tm Timing) floors {
		// It begins by making a stale lock (makeStale), whatever the
		// lock.
		return floors{any: tm.Short + tm.staleAfter(), holds: tm.Short + tm.staleAfter()}
	})
}

// staleTakeoverRace: A and B both find the lock a crashed holder left, and
// every interleaving of their two attempts is tried; at most one may win.
func staleTakeoverRace(newRun func(string) *run) Result {
	stale := makeStale(newRun)
	if !stale.exists {
		r := newRun("/none")
		return r.notApplicable(mStaleDeleted.New())
	}
	if probe(newRun, stale)[1].commands == 0 {
		r := newRun("/none")
		r.restore(stale)
		after := r.tm.Short + r.tm.staleAfter()
		return r.notApplicable(mNoStale.New(after, r.unexpired(r.tm.Short, after)))
	}
	return race(newRun, &stale, mBothStale.New(), mOnStaleLock.New())
}

// stale-takeover-race's messages.
var (
	mStaleDeleted = msg.Define("stale-takeover-race.n/a-expired", nil,
		"Redis itself deleted the crashed holder's key when its TTL passed: there is no stale lock to take over, only a free key (exclusion races two acquires on one)",
		"TTL 一过，Redis 自己就删掉了崩溃持有者的键：没有可以抢占的旧锁，只有一个空闲的键（空闲键上两次加锁的竞争由 exclusion 检查）")
	mNoStale = msg.Define("stale-takeover-race.n/a", msg.K(msg.Duration, msg.Sub),
		"no stale lock to take over: {0} after its holder crashed, nobody could take it over: {1}",
		"没有可以抢占的旧锁：持有者崩溃 {0} 之后，仍然没人能抢过来：{1}")
	mBothStale = msg.Define("stale-takeover-race.both", nil,
		"both waiters found the same stale lock and both took it over", "两个等待者看到了同一把过期的旧锁，并且都把它抢了过来")
	mOnStaleLock = msg.Define("stale-takeover-race.on-stale-lock", nil, "on a stale lock", "在过期的旧锁上")
)
