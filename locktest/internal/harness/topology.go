package harness

import (
	"errors"

	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/sim"
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

// MaxMasters bounds Config.Masters.
const MaxMasters = 9

// NodeNames lists the masters' names.
func NodeNames(nodes []*redistest.Node) []string {
	s := make([]string, len(nodes))
	for i, n := range nodes {
		s[i] = n.Name
	}
	return s
}

// HolderOnMajority has A acquire K for Long: on one Redis, plainly; over
// several masters, cut off from all but a bare majority, so that the lock
// rests on every master of that majority, the last of which the scenario
// then faults. It returns A's lock, or nil when A could not get one, and
// the master to fault. A failed attempt, whatever its error, is no lock.
func HolderOnMajority(r *Run, m *redistest.Masters) (strategy.Lock, *redistest.Node) {
	a := r.NewClient("A", 0)
	if r.Multi() {
		q := r.Quorum()
		var minority []int
		for i := q; i < r.Masters; i++ {
			minority = append(minority, i)
		}
		a.Partition(true, minority...)
		r.Note(mCannotReach.New(NodeNames(m.Nodes[q:]), q, r.Masters))
	}
	l, _ := a.TryAcquireErr(r.Tm.Long)
	if l == nil {
		return nil, nil
	}
	r.Det.Enter("A")
	return l, m.Nodes[r.Quorum()-1]
}

// Contend has a fresh client B try to acquire K until it gets it or wait
// has passed, Poll apart, whatever each attempt returns: while masters
// are down or just back, an attempt may fail with an error rather than
// ErrNotAcquired. It says whether B got the lock, and enters B into the
// critical section when it did.
func Contend(r *Run, wait time.Duration) bool {
	b := r.NewClient("B", 0)
	deadline := time.Now().Add(wait)
	for {
		if l, _ := b.TryAcquireErr(r.Tm.Long); l != nil {
			r.Det.Enter("B")
			return true
		}
		if r.Ctx.Err() != nil {
			r.Fail(sim.MsgFailWatchdog.New(r.Ctx.Err().Error()))
		}
		if !time.Now().Add(r.Tm.Poll).Before(deadline) {
			return false
		}
		time.Sleep(r.Tm.Poll)
	}
}

// ErrOrBusy says why an attempt failed.
func ErrOrBusy(err error) msg.Msg {
	if err == nil || errors.Is(err, strategy.ErrNotAcquired) {
		return mRefusedAsHeld.New()
	}
	return mItFailed.New(err.Error())
}

// Obtainable is the liveness half of a topology property: once A, which
// held the lock through the fault, has released it, C must acquire
// within A's TTL and the slack. A lock nobody can take after a failover
// or a restart breaks the property; it returns nil when C got it.
func Obtainable(r *Run, a *Client, la strategy.Lock, fault msg.Msg) *Outcome {
	r.Note(mObtainable.New())
	_ = a.ReleaseErr(la) // recorded; with a master down, a release may fail in part
	wait := r.Tm.Long + r.Tm.Slack
	c := r.NewClient("C", 0)
	since := r.Rec.Now()
	if c.Acquire(r.Tm.Long, wait) == nil {
		res := r.BreaksUnfreed("C", since, wait-r.Tm.Poll, mUnobtainable.New(fault, wait))
		return &res
	}
	return nil
}
