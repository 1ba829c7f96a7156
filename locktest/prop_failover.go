package locktest

import (
	"context"
	"net"
	"sync/atomic"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/redistest"
)

// Failover: A acquires on the primary of a primary and replica while
// the replication link is held; the primary dies, the replica is
// promoted and the clients are sent to it; B must not acquire while A
// holds the lock. A lock that grants nothing the replica has not
// acknowledged (WAIT) holds it, once it is granted with the link
// carrying on. n/a for a lock over several masters.

const Failover Property = "failover" // a replica promoted without the lock (topology)

func init() {
	register(property{
		p: Failover, order: 160, scenario: failover,
		breaks:   "a failover to a replica that had not received the lock let another client acquire it; every lock on one Redis breaks it",
		topology: true,
	}, func(tm Timing) floors {
		// The time goes into starting servers of its own and forcing
		// faults, not into TTL waits.
		return floors{}
	})
}

// failover: A acquires on the primary of a primary and replica while the
// replication link is held, so that the replica never gets A's write; the
// primary dies, the replica is promoted and the clients are sent to it,
// as Sentinel would; B tries to acquire. A lock over several masters
// has no replica to fail over to: n/a, and restart-amnesia plays the
// loss of a master's data for it.
func failover(newRun func(string) *run) Result {
	r := newRun("")
	if r.multi() {
		return r.notApplicable(mFailoverNA.New(r.masters))
	}
	rep, err := redistest.StartReplicated(r.ctx)
	if err != nil {
		r.fail("starting a primary and its replica: %v", topologyErr(err))
	}
	// The clients reach "the primary" wherever it is, as through Sentinel
	// or a managed service's address: the primary, then the promoted
	// replica.
	var current atomic.Pointer[string]
	current.Store(&rep.Primary.Addr)
	r.useTopology(rep.Close, nodeDial{name: "primary", dial: func(ctx context.Context) (net.Conn, error) {
		return dialTCP(*current.Load())(ctx)
	}})
	rep.HoldReplication()
	r.note(mLinkHeld.New())
	a := r.newClient("A", 0)
	la, _ := a.tryAcquireErr(r.tm.Long)
	if la == nil {
		// A lock that waits for its replica (WAIT) grants nothing the
		// replica has not acknowledged: there is no lock for the failover
		// to lose. It must work once the link carries on: the replica
		// catches up on what was held back first, so A tries until the
		// slack has passed.
		rep.ResumeReplication()
		r.note(mLinkOn.New())
		deadline := time.Now().Add(r.tm.Slack)
		for {
			if l, _ := a.tryAcquireErr(r.tm.Long); l != nil {
				break
			}
			if !time.Now().Before(deadline) {
				r.fail("A could not acquire a free lock on the primary, with the replication link held or not")
			}
			time.Sleep(r.tm.Poll)
		}
		return r.holds(mFailoverWaits.New())
	}
	r.det.enter("A")
	r.note(mPrimaryDies.New())
	if err := rep.Primary.Kill(); err != nil {
		r.fail("killing the primary: %v", err)
	}
	if err := rep.Promote(r.ctx); err != nil {
		r.fail("promoting the replica: %v", err)
	}
	current.Store(&rep.Replica.Addr)
	wait := r.tm.Slack
	if contend(r, wait) {
		return r.breaks(mFailoverBreaks.New())
	}
	if broke := obtainable(r, a, la, mTheFailover.New()); broke != nil {
		return *broke
	}
	return r.holds(mFailoverHolds.New(wait))
}

// failover's messages.
var (
	mFailoverNA = msg.Define("failover.n/a", msg.K(msg.Count),
		"a lock over {0} independent masters fails over to no replica: a master that comes back empty is restart-amnesia",
		"跨 {0} 个相互独立主节点的锁没有副本可供故障转移：主节点重启后变空的情况由 restart-amnesia 检查")
	mLinkHeld = msg.Define("failover.link-held", nil,
		"the replication link is held: nothing the primary writes from now on reaches the replica",
		"复制链路被扣住了：从现在起，主节点写入的任何东西都到不了副本")
	mLinkOn        = msg.Define("failover.link-on", nil, "the replication link carries on", "复制链路恢复了")
	mFailoverWaits = msg.Define("failover.holds-waits", nil,
		"A's attempt failed while the replica could not acknowledge it, and succeeded once it could: the lock grants nothing a failover can lose",
		"副本无法确认时 A 的尝试失败了，副本能确认后就成功了：这把锁不会授出一次故障转移能弄丢的东西")
	mPrimaryDies = msg.Define("failover.primary-dies", nil,
		"the primary dies before its replica has A's lock; the replica is promoted, and clients are sent to it",
		"主节点在副本拿到 A 的锁之前死了；副本被提升为主节点，客户端转到它上面")
	mFailoverBreaks = msg.Define("failover.breaks", nil,
		"B acquired K on the promoted replica while A still held it: the replica had not received A's lock when the primary died (Redis replicates asynchronously), so the failover lost it",
		"A 还持有锁，B 就在提升为主节点的副本上拿到了 K：主节点死的时候，副本还没收到 A 的锁（Redis 的复制是异步的），所以故障转移把这把锁弄丢了")
	mFailoverHolds = msg.Define("failover.holds", msg.K(msg.Duration),
		"B could not acquire K in {0} on the promoted replica, which never received A's lock; once A released, C acquired",
		"B 在 {0} 内没能在被提升的副本上拿到 K，这个副本从没收到 A 的锁；A 释放后，C 拿到了锁")
	mTheFailover = msg.Define("failover.fault", nil, "the failover", "故障转移")
)
