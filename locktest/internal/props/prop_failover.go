package props

import (
	"context"
	"github.com/locklab/locklab/history"
	"net"
	"sync/atomic"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/redistest"
)

// Failover: A acquires on the primary of a primary and replica while
// the replication link is held; the primary dies, the replica is
// promoted and the clients are sent to it; B must not acquire while A
// holds the lock. A lock that grants nothing the replica has not
// acknowledged (WAIT) holds it, once it is granted with the link
// carrying on. n/a for a lock over several masters.

func init() {
	register(Property{
		id: "failover", order: 160, Scenario: failover,
		breaks:   "a failover to a replica that had not received the lock let another client acquire it; every lock on one Redis breaks it",
		Topology: true,
	}, func(tm sim.Timing) floors {
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
func failover(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	if r.Multi() {
		return r.NotApplicable(mFailoverNA.New(r.Masters))
	}
	rep, err := redistest.StartReplicated(r.Ctx)
	if err != nil {
		r.Fail(mFailStartReplicated.New(harness.TopologyErr(err).Error()))
	}
	// The clients reach "the primary" wherever it is, as through Sentinel
	// or a managed service's address: the primary, then the promoted
	// replica.
	var current atomic.Pointer[string]
	current.Store(&rep.Primary.Addr)
	r.UseTopology(rep.Close, sim.NodeDial{Name: "primary", Dial: func(ctx context.Context) (net.Conn, error) {
		return harness.DialTCP(*current.Load())(ctx)
	}})
	rep.HoldReplication()
	r.Note(mLinkHeld.New())
	a := r.NewClient("A", 0)
	la, _ := a.TryAcquireErr(r.Tm.Long)
	if la == nil {
		// A lock that waits for its replica (WAIT) grants nothing the
		// replica has not acknowledged: there is no lock for the failover
		// to lose. It must work once the link carries on: the replica
		// catches up on what was held back first, so A tries until the
		// slack has passed.
		rep.ResumeReplication()
		r.Note(mLinkOn.New())
		deadline := time.Now().Add(r.Tm.Slack)
		for {
			if l, _ := a.TryAcquireErr(r.Tm.Long); l != nil {
				break
			}
			if !time.Now().Before(deadline) {
				r.Fail(mFailoverNoLock.New())
			}
			time.Sleep(r.Tm.Poll)
		}
		return r.Holds(mFailoverWaits.New())
	}
	r.Det.Enter("A")
	r.Note(mPrimaryDies.New())
	if err := rep.Primary.Kill(); err != nil {
		r.Fail(mFailKillPrimary.New(err.Error()))
	}
	if err := rep.Promote(r.Ctx); err != nil {
		r.Fail(mFailPromote.New(err.Error()))
	}
	current.Store(&rep.Replica.Addr)
	wait := r.Tm.Slack
	if harness.Contend(r, wait) {
		return r.BreaksRule(history.OneHolder, mFailoverBreaks.New())
	}
	if broke := harness.Obtainable(r, a, la, mTheFailover.New()); broke != nil {
		return *broke
	}
	return r.Holds(mFailoverHolds.New(wait))
}

// failover's messages.
var (
	mFailoverNA = msg.Define("failover.n/a", msg.K(msg.Count),
		"a lock over {0} independent masters fails over to no replica: a master that comes back empty is restart-amnesia")
	mLinkHeld = msg.Define("failover.link-held", nil,
		"the replication link is held: nothing the primary writes from now on reaches the replica")
	mLinkOn        = msg.Define("failover.link-on", nil, "the replication link carries on")
	mFailoverWaits = msg.Define("failover.holds-waits", nil,
		"A's attempt failed while the replica could not acknowledge it, and succeeded once it could: the lock grants nothing a failover can lose")
	mPrimaryDies = msg.Define("failover.primary-dies", nil,
		"the primary dies before its replica has A's lock; the replica is promoted, and clients are sent to it")
	mFailoverBreaks = msg.Define("failover.breaks", nil,
		"B acquired K on the promoted replica while A still held it: the replica had not received A's lock when the primary died (Redis replicates asynchronously), so the failover lost it")
	mFailoverHolds = msg.Define("failover.holds", msg.K(msg.Duration),
		"B could not acquire K in {0} on the promoted replica, which never received A's lock; once A released, C acquired")
	mTheFailover = msg.Define("failover.fault", nil, "the failover")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("failover.scenario", nil,
		"on a primary and a replica whose replication link is held, A acquires; the primary dies, the replica is promoted and clients are sent to it")
	_ = msg.Define("failover.must", nil,
		"B must not acquire while A holds the lock; once A has released, C must acquire within the TTL and the slack (5.5 s by default), so that a lock that refuses everyone after the failover breaks. A lock that waits for its replica (`WAIT`) and grants nothing unacknowledged holds: its attempt fails while the link is held, and must succeed once it carries on. n/a for a lock over several masters")
)

// failover's run without a verdict.
var mFailoverNoLock = msg.Define("failover.no-lock", nil,
	"A could not acquire a free lock on the primary, with the replication link held or not")
