package locktest

import "github.com/locklab/locklab/internal/msg"

// ReleaseFrees (liveness): right after the holder releases, another
// client's single attempt succeeds, without waiting for the TTL; and a
// Release that reports success when its command failed has still freed
// the lock.

const ReleaseFrees Property = "release-frees" // a release frees the lock at once (liveness)

func init() {
	register(property{
		p: ReleaseFrees, order: 20, scenario: releaseFrees,
		breaks: "a release did not free the lock for the next client's attempt",
	}, func(tm Timing) floors {
		// Acquires and releases with the Long TTL, which never runs out:
		// nothing to wait for.
		return floors{}
	})
}

// releaseFrees: right after A releases, B's single attempt must succeed;
// and a Release that reports success when its command failed must have
// freed the lock all the same.
func releaseFrees(newRun func(string) *run) Result {
	r := newRun("/release")
	a, b := r.newClient("A", 0), r.newClient("B", 0)
	la := a.tryAcquire(r.tm.Long)
	if la == nil {
		r.fail("A could not acquire a free lock")
	}
	err := a.releaseErr(la)
	if b.tryAcquire(r.tm.Long) == nil {
		if err != nil {
			return r.breaks(mFreesFailed.New(r.errText(err), r.tm.Long))
		}
		return r.breaks(mFreesBreaks.New(r.tm.Long))
	}
	r.shutdown()

	r = newRun("/failed-release")
	a, b = r.newClient("A", 0), r.newClient("B", 0)
	la = a.tryAcquire(r.tm.Long)
	if la == nil {
		r.fail("A could not acquire a free lock")
	}
	a.mu.Lock()
	a.failNext = true
	a.mu.Unlock()
	r.note(mNextFails.New())
	if err := a.releaseErr(la); err != nil {
		return r.holds(mFreesSaidSo.New(r.errText(err)))
	}
	if b.tryAcquire(r.tm.Long) == nil {
		return r.breaks(mFreesLied.New())
	}
	return r.holds(mFreesHolds.New())
}

// release-frees's messages.
var (
	mFreesFailed = msg.Define("release-frees.breaks-failed", msg.K(msg.Text, msg.Duration),
		"A's release of the lock it held failed ({0}), and B's attempt right after found it still taken: the lock goes only when its TTL ({1}) runs out",
		"A 释放自己持有的锁失败了（{0}），B 紧接着加锁，发现锁仍被占着：要等 TTL（{1}）到期，锁才会放开")
	mFreesBreaks = msg.Define("release-frees.breaks", msg.K(msg.Duration),
		"A released its lock, and B's attempt right after found it still taken: the release does not free the lock, which goes only when its TTL ({0}) runs out",
		"A 释放了锁，B 紧接着加锁，却发现锁仍被占着：释放并没有放开锁，要等 TTL（{0}）到期，锁才会放开")
	mNextFails = msg.Define("release-frees.next-fails", nil,
		"A's next command fails without being sent, as when its connection drops", "A 的下一条命令还没发出就失败，就像连接断了一样")
	mFreesSaidSo = msg.Define("release-frees.holds-said-so", msg.K(msg.Text),
		"after A released, B acquired at once; a release whose command failed said so ({0})", "A 释放后，B 马上拿到了锁；命令失败的那次释放也如实报了错（{0}）")
	mFreesLied = msg.Define("release-frees.breaks-lied", nil,
		"A's release reported success although its command failed and never reached Redis: B's attempt right after found the lock still taken",
		"A 的释放命令失败了，根本没到 Redis，释放却报告成功：B 紧接着加锁，发现锁仍被占着")
	mFreesHolds = msg.Define("release-frees.holds", nil,
		"after A released, B acquired at once, even when A's first release command failed", "A 释放后，B 马上拿到了锁，A 的第一条释放命令失败时也是如此")
)
