package locktest

import (
	"context"
	"errors"
	"fmt"
	"net"

	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
)

// The topology properties run on servers of their own, which each check
// starts and stops as private redis-server processes on loopback ports
// (package redistest), whatever Redis Config.Addr names: a primary with a
// replica, one master to restart, or Config.Masters masters for a lock
// over several. The faults are forced, in order, by the scenario: the
// replication link is held before the holder writes, a master is killed
// and started again empty, a master's clock is moved.

// maxMasters bounds Config.Masters.
const maxMasters = 9

// dials returns how to reach each of nodes, by name.
func dials(nodes []*redistest.Node) []nodeDial {
	out := make([]nodeDial, len(nodes))
	for i, n := range nodes {
		out[i] = nodeDial{name: n.Name, dial: dialTCP(n.Addr)}
	}
	return out
}

// topologyErr says why a topology could not start: without redis-server,
// the property has no verdict.
func topologyErr(err error) error {
	if errors.Is(err, redistest.ErrNoRedisServer) {
		return fmt.Errorf("the topology properties start redis-server processes of their own: %w", err)
	}
	return err
}

// nodeNames lists the masters' names.
func nodeNames(nodes []*redistest.Node) []string {
	s := make([]string, len(nodes))
	for i, n := range nodes {
		s[i] = n.Name
	}
	return s
}

// holderOnMajority has A acquire K for Long: on one Redis, plainly; over
// several masters, cut off from all but a bare majority, so that the lock
// rests on every master of that majority, the last of which the scenario
// then faults. It returns A's lock, or nil when A could not get one, and
// the master to fault. A failed attempt, whatever its error, is no lock.
func holderOnMajority(r *run, m *redistest.Masters) (strategy.Lock, *redistest.Node) {
	a := r.newClient("A", 0)
	if r.multi() {
		q := r.quorum()
		var minority []int
		for i := q; i < r.masters; i++ {
			minority = append(minority, i)
		}
		a.partition(true, minority...)
		r.note(mCannotReach.New(nodeNames(m.Nodes[q:]), q, r.masters))
	}
	l, _ := a.tryAcquireErr(r.tm.Long)
	if l == nil {
		return nil, nil
	}
	r.det.enter("A")
	return l, m.Nodes[r.quorum()-1]
}

// contend has a fresh client B try to acquire K until it gets it or wait
// has passed, Poll apart, whatever each attempt returns: while masters
// are down or just back, an attempt may fail with an error rather than
// ErrNotAcquired. It says whether B got the lock, and enters B into the
// critical section when it did.
func contend(r *run, wait time.Duration) bool {
	b := r.newClient("B", 0)
	deadline := time.Now().Add(wait)
	for {
		if l, _ := b.tryAcquireErr(r.tm.Long); l != nil {
			r.det.enter("B")
			return true
		}
		if r.ctx.Err() != nil {
			r.fail(mFailWatchdog.New(r.ctx.Err().Error()))
		}
		if !time.Now().Add(r.tm.Poll).Before(deadline) {
			return false
		}
		time.Sleep(r.tm.Poll)
	}
}

// errOrBusy says why an attempt failed.
func errOrBusy(err error) Message {
	if err == nil || errors.Is(err, strategy.ErrNotAcquired) {
		return mRefusedAsHeld.New()
	}
	return mItFailed.New(err.Error())
}

// obtainable is the liveness half of a topology property: once A, which
// held the lock through the fault, has released it, C must acquire
// within A's TTL and the slack. A lock nobody can take after a failover
// or a restart breaks the property; it returns nil when C got it.
func obtainable(r *run, a *client, la strategy.Lock, fault Message) *outcome {
	r.note(mObtainable.New())
	_ = a.releaseErr(la) // recorded; with a master down, a release may fail in part
	wait := r.tm.Long + r.tm.Slack
	c := r.newClient("C", 0)
	since := r.rec.now()
	if c.acquire(r.tm.Long, wait) == nil {
		res := r.breaksUnfreed("C", since, wait-r.tm.Poll, mUnobtainable.New(fault, wait))
		return &res
	}
	return nil
}

// dialTCP returns a dial of addr over TCP.
func dialTCP(addr string) func(context.Context) (net.Conn, error) {
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
}
