package locktest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
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

// multi reports whether the lock spans several masters.
func (r *run) multi() bool { return r.masters > 1 }

// quorum is how many of the masters a lock over several needs: a majority.
func (r *run) quorum() int { return r.masters/2 + 1 }

// useTopology sends the clients made from now on to nodes, one proxy
// each, and stops the topology's servers with close at the end of the
// run. Connections the scenario's own kills cut are not a disturbance of
// the check.
func (r *run) useTopology(close func() error, nodes ...nodeDial) {
	r.lost = nil
	r.nodes = nodes
	r.mu.Lock()
	defer r.mu.Unlock()
	r.atEnd = append(r.atEnd, func() {
		if err := close(); err != nil {
			r.note("stopping the topology: %v", err)
		}
	})
}

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

// startMasters starts the masters a topology scenario needs: Config.Masters
// of them for a lock over several, else one.
func (r *run) startMasters(opts ...redistest.Option) *redistest.Masters {
	m, err := redistest.StartMasters(r.ctx, max(r.masters, 1), opts...)
	if err != nil {
		r.fail("starting the masters: %v", topologyErr(err))
	}
	r.useTopology(m.Close, dials(m.Nodes)...)
	return m
}

// label names a master in the timeline and the reasons: "the server" on
// one Redis, else its name.
func (r *run) label(n *redistest.Node) string {
	if !r.multi() {
		return "the server"
	}
	return n.Name
}

// nodeNames lists the masters' names.
func nodeNames(nodes []*redistest.Node) string {
	s := make([]string, len(nodes))
	for i, n := range nodes {
		s[i] = n.Name
	}
	return strings.Join(s, ", ")
}

// holderOnMajority has A acquire K for Long: on one Redis, plainly; over
// several masters, cut off from all but a bare majority, so that the lock
// rests on every master of that majority, the last of which the scenario
// then faults. It returns A's lock, or nil when A could not get one, and
// the master to fault. A failed attempt, whatever its error, is no lock.
func (r *run) holderOnMajority(m *redistest.Masters) (strategy.Lock, *redistest.Node) {
	a := r.newClient("A", 0)
	if r.multi() {
		q := r.quorum()
		var minority []int
		for i := q; i < r.masters; i++ {
			minority = append(minority, i)
		}
		a.partition(true, minority...)
		r.note("A cannot reach %s: it can lock K on a bare majority (%d of %d masters) at most", nodeNames(m.Nodes[q:]), q, r.masters)
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
func (r *run) contend(wait time.Duration) bool {
	b := r.newClient("B", 0)
	deadline := time.Now().Add(wait)
	for {
		if l, _ := b.tryAcquireErr(r.tm.Long); l != nil {
			r.det.enter("B")
			return true
		}
		if r.ctx.Err() != nil {
			r.fail("watchdog: %v", r.ctx.Err())
		}
		if !time.Now().Add(r.tm.Poll).Before(deadline) {
			return false
		}
		time.Sleep(r.tm.Poll)
	}
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
		return r.notApplicable("a lock over %d independent masters fails over to no replica: a master that comes back empty is restart-amnesia", r.masters)
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
	r.note("the replication link is held: nothing the primary writes from now on reaches the replica")
	a := r.newClient("A", 0)
	if l, _ := a.tryAcquireErr(r.tm.Long); l == nil {
		// A lock that waits for its replica (WAIT) grants nothing the
		// replica has not acknowledged: there is no lock for the failover
		// to lose. It must work once the link carries on.
		rep.ResumeReplication()
		r.note("the replication link carries on")
		if l, _ := a.tryAcquireErr(r.tm.Long); l == nil {
			r.fail("A could not acquire a free lock on the primary, with the replication link held or not")
		}
		return r.holds("A's attempt failed while the replica could not acknowledge it, and succeeded once it could: the lock grants nothing a failover can lose")
	}
	r.det.enter("A")
	r.note("the primary dies before its replica has A's lock; the replica is promoted, and clients are sent to it")
	if err := rep.Primary.Kill(); err != nil {
		r.fail("killing the primary: %v", err)
	}
	if err := rep.Promote(r.ctx); err != nil {
		r.fail("promoting the replica: %v", err)
	}
	current.Store(&rep.Replica.Addr)
	wait := r.tm.Slack
	if r.contend(wait) {
		return r.breaks("B acquired K on the promoted replica while A still held it: the replica had not received A's lock when the primary died (Redis replicates asynchronously), so the failover lost it")
	}
	return r.holds("B could not acquire K in %v on the promoted replica, which never received A's lock", wait)
}

// restartAmnesia: A holds K; a master holding A's lock restarts without
// persistence (no RDB, no AOF) and comes back empty, at once or, with
// Config.RestartDelay, after that long; B tries to acquire. Over several
// masters, A first locks a bare majority, and the master restarted is one
// of it.
func restartAmnesia(newRun func(string) *run) Result {
	r := newRun("")
	m := r.startMasters()
	l, node := r.holderOnMajority(m)
	if l == nil {
		return r.notApplicable("A could not acquire K with a minority of the masters out of reach: see minority-down")
	}
	if err := node.Kill(); err != nil {
		r.fail("killing %s: %v", node.Name, err)
	}
	if r.restartDelay == 0 {
		r.note("%s restarts without persistence: it comes back empty, without A's lock", r.label(node))
		if err := node.Start(r.ctx); err != nil {
			r.fail("starting %s again: %v", node.Name, err)
		}
	} else {
		r.note("%s dies; it will come back empty after %v (a delayed restart)", r.label(node), r.restartDelay)
		t := time.AfterFunc(r.restartDelay, func() { _ = node.Start(r.ctx) }) // fails harmlessly once the run has closed it
		r.mu.Lock()
		r.atEnd = append(r.atEnd, func() { t.Stop() })
		r.mu.Unlock()
	}
	wait := r.tm.Slack
	if r.contend(wait) {
		return r.breaks("B acquired K while A still held it: %s had restarted without persistence and forgotten A's lock", r.label(node))
	}
	if r.restartDelay > 0 {
		return r.holds("B could not acquire K in %v while %s stayed down (a delayed restart of %v)", wait, r.label(node), r.restartDelay)
	}
	return r.holds("B could not acquire K in %v after %s restarted empty", wait, r.label(node))
}

// nodeClockJump: A holds K for Long; then the clock of a master holding
// A's lock jumps forward by twice that, so that its expiry of A's key
// comes early; B tries to acquire. Over several masters, A first locks a
// bare majority, and the clock that jumps is one of it.
func nodeClockJump(newRun func(string) *run) Result {
	r := newRun("")
	m := r.startMasters(redistest.WithMovableClocks())
	l, node := r.holderOnMajority(m)
	if l == nil {
		return r.notApplicable("A could not acquire K with a minority of the masters out of reach: see minority-down")
	}
	jump := 2 * r.tm.Long
	if err := node.ShiftClock(jump); err != nil {
		r.fail("moving %s's clock: %v", node.Name, err)
	}
	r.note("%s: its clock jumps %v forward (an NTP step, an administrator); by it, A's TTL of %v has passed", r.label(node), jump, r.tm.Long)
	wait := r.tm.Slack
	if r.contend(wait) {
		return r.breaks("B acquired K well inside A's TTL of %v by the real clock: the clock of %s jumped %v forward, and it expired A's lock early", r.tm.Long, r.label(node), jump)
	}
	return r.holds("B could not acquire K in %v after the clock of %s jumped %v forward", wait, r.label(node), jump)
}

// minorityDown: over several masters, a minority of them is down for the
// whole run; the lock must still work: A acquires, B cannot while A holds
// it, and B gets it once A has released. n/a on one Redis.
func minorityDown(newRun func(string) *run) Result {
	r := newRun("")
	if !r.multi() {
		return r.notApplicable("a lock on one Redis has no minority of masters to lose")
	}
	m := r.startMasters()
	down := m.Nodes[r.quorum():]
	for _, n := range down {
		if err := n.Kill(); err != nil {
			r.fail("killing %s: %v", n.Name, err)
		}
	}
	r.note("%s are down: %d of %d masters answer, a majority", nodeNames(down), r.quorum(), r.masters)
	a := r.newClient("A", 0)
	l, err := a.tryAcquireErr(r.tm.Long)
	if l == nil {
		return r.breaks("A could not acquire the free lock with a majority of the masters up: %s", errOrBusy(err))
	}
	r.det.enter("A")
	b := r.newClient("B", 0)
	if lb, _ := b.tryAcquireErr(r.tm.Long); lb != nil {
		r.det.enter("B")
		return r.breaks("B acquired K while A held it, with %s down", nodeNames(down))
	}
	r.det.leave("A")
	if err := a.releaseErr(l); err != nil {
		return r.breaks("A's release failed with a majority of the masters up: %v", err)
	}
	lb, err := b.tryAcquireErr(r.tm.Long)
	if lb == nil {
		return r.breaks("B could not acquire K after A released it, with a majority of the masters up: %s", errOrBusy(err))
	}
	r.det.enter("B")
	r.det.leave("B")
	if err := b.releaseErr(lb); err != nil {
		return r.breaks("B's release failed with a majority of the masters up: %v", err)
	}
	// One more master out of reach, for C alone: a minority must not grant
	// the lock, or two clients on either side of a partition could each
	// take it.
	c := r.newClient("C", 0)
	c.partition(true, 0)
	r.note("C cannot reach %s either: it reaches %d of %d masters, a minority", m.Nodes[0].Name, r.quorum()-1, r.masters)
	if lc, _ := c.tryAcquireErr(r.tm.Long); lc != nil {
		return r.breaks("C acquired K reaching only %d of %d masters: a minority granted the lock, so two clients on either side of a partition could each hold it", r.quorum()-1, r.masters)
	}
	return r.holds("with %s down, A acquired, B was refused while A held the lock and got it once A had released, and C, reaching a minority of the masters, was refused", nodeNames(down))
}

// tryAcquireErr makes one attempt and returns its lock or its error,
// recorded, whatever it is.
func (c *client) tryAcquireErr(ttl time.Duration) (strategy.Lock, error) {
	var l strategy.Lock
	var err error
	c.r.guard(c.name, "TryAcquire", func() { l, err = c.s.TryAcquire(c.r.ctx, c.r.key, ttl) })
	switch {
	case err == nil && l == nil:
		c.r.fail("%s: TryAcquire returned neither a lock nor an error", c.name)
	case err == nil:
		c.r.rec.add(Event{Client: c.name, Kind: EvAcquired, Reply: "lock acquired"})
	case errors.Is(err, strategy.ErrNotAcquired):
		c.r.rec.add(Event{Client: c.name, Kind: EvAcquired, Reply: "not acquired"})
	default:
		c.r.rec.add(Event{Client: c.name, Kind: EvAcquired, Err: c.r.errText(err)})
	}
	return l, err
}

// errOrBusy says why an attempt failed.
func errOrBusy(err error) string {
	if err == nil || errors.Is(err, strategy.ErrNotAcquired) {
		return "it was refused as if held"
	}
	return fmt.Sprintf("it failed: %v", err)
}
