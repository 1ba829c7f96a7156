package locktest

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// SafeRefresh: for locks that implement strategy.Refresher, a refresh
// sent after the lock passed to someone else, paused before it and at
// each boundary between its commands in turn, must neither claim the
// lock (Refresh returns an error), nor extend the new holder's lock,
// nor free it.

const SafeRefresh Property = "safe-refresh" // a late Refresh must not claim, extend or free

func init() {
	register(property{
		p: SafeRefresh, order: 120, scenario: safeRefresh,
		breaks: "a late Refresh claimed, extended or freed the next holder's lock",
	}, func(tm Timing) floors {
		// A, paused, holds with the Short TTL; B acquires only once it
		// has run out (at least once: the other boundaries are not
		// counted).
		return floors{holds: tm.Short}
	})
}

// safeRefresh: at each boundary of its Refresh in turn, A is paused until
// its TTL has passed and B has acquired; then A's refresh goes on. It must
// fail, leave B's lock no longer than B asked for, and leave it held.
func safeRefresh(newRun func(string) *run) Result {
	ops := countOps(newRun)
	if !ops.refresher {
		r := newRun("/none")
		return r.notApplicable(mRefreshNA.New())
	}
	n := ops.refresh
	var err error // the late Refresh's, once A is done
	last, res := lateAtEachBoundary(newRun, n, "refresh", func(r *run, a *simClient, la strategy.Lock) func() {
		rf, ok := la.(strategy.Refresher)
		if !ok {
			r.fail("A's lock does not implement strategy.Refresher, although an earlier one did")
		}
		err = nil
		return func() { err = a.refresh(rf, 3*r.tm.Long) }
	}, func(l lateRun) *Result {
		r := l.r
		r.det.enter("B")
		var res Result
		if !l.broke.IsZero() {
			res = r.breaks(mRefreshResumed.New(l.at, l.broke))
			return &res
		}
		if err == nil {
			r.det.enter("A")
			res = r.breaks(mPausedTTLResumed.New(l.at, mRefreshSucceeded.New()))
			return &res
		}
		if left := r.pttl(); left > r.tm.Long+r.tm.Slack/5 {
			res = r.breaks(mRefreshPushed.New(l.at, 3*r.tm.Long, left, r.tm.Long))
			return &res
		}
		freed := whoFreed(r, l.held, mLateRefreshWho.New())
		if l.c.tryAcquire(r.tm.Long) == nil {
			return nil
		}
		res = r.breaks(mRefreshThen.New(l.at, freed))
		return &res
	})
	switch {
	case res != nil:
		return *res
	case n <= 1:
		return last.holds(mRefreshOne.New())
	}
	return last.holds(mRefreshHolds.New(n, n))
}

// safe-refresh's messages.
var (
	mRefreshNA = msg.Define("safe-refresh.n/a", nil,
		"the lock cannot be refreshed: it does not implement strategy.Refresher", "这把锁不能续期：它没有实现 strategy.Refresher")
	mRefreshResumed = msg.Define("safe-refresh.breaks-resumed", msg.K(msg.Sub, msg.Sub),
		"A was paused {0} until B acquired; when A resumed, {1}", "A 在{0}被暂停，直到 B 拿到锁；A 恢复后，{1}")
	mRefreshSucceeded = msg.Define("safe-refresh.succeeded", nil,
		"its Refresh reported success: A would go on working while B holds the lock", "它的 Refresh 报告成功：B 持有锁时，A 还会接着干活")
	mRefreshPushed = msg.Define("safe-refresh.breaks-pushed", msg.K(msg.Sub, msg.Duration, msg.Duration, msg.Duration),
		"A was paused {0} until B acquired; A's late Refresh (for {1}) failed, but B's lock now expires in {2}, past the {3} B asked for",
		"A 在{0}被暂停，直到 B 拿到锁；A 迟到的 Refresh（续期 {1}）失败了，但 B 的锁现在要 {2} 后才过期，超过了 B 请求的 {3}")
	mRefreshThen = msg.Define("safe-refresh.breaks-then", msg.K(msg.Sub, msg.Sub),
		"A was paused {0} until B acquired; then {1}", "A 在{0}被暂停，直到 B 拿到锁；然后，{1}")
	mRefreshOne = msg.Define("safe-refresh.holds-one", nil,
		"A's late Refresh, paused before its one command until B had acquired, failed and left B's lock as B took it",
		"A 迟到的 Refresh 在它唯一的命令之前暂停，直到 B 拿到锁，结果失败了，B 的锁保持 B 拿到时的样子")
	mRefreshHolds = msg.Define("safe-refresh.holds", msg.K(msg.Count, msg.Count),
		"A's late Refresh, paused at each of the {0} boundaries of its {1}-command refresh in turn, failed and left B's lock as B took it",
		"A 迟到的 Refresh 有 {1} 条命令，依次在 {0} 个边界上暂停，每次都失败了，B 的锁保持 B 拿到时的样子")
)
