package locktest

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// MinorityDown: over several masters, with a minority of them down,
// A acquires, B is refused while A holds the lock, and B acquires once
// A has released; then C, cut off from one more master, reaches only a
// minority and must be refused. n/a on one Redis.

func init() {
	register(property{
		id: "minority-down", order: 190, scenario: minorityDown,
		breaks:   "with a minority of the masters down, the lock did not work or was not exclusive",
		topology: true,
	}, func(tm timing) floors {
		// The time goes into starting servers of its own and forcing
		// faults, not into TTL waits.
		return floors{}
	})
}

// minorityDown: over several masters, a minority of them is down for the
// whole run; the lock must still work: A acquires, B cannot while A holds
// it, and B gets it once A has released. n/a on one Redis.
func minorityDown(newRun func(string) *run) outcome {
	r := newRun("")
	if !r.multi() {
		return r.notApplicable(mMinorityNA.New())
	}
	m := r.startMasters()
	down := m.Nodes[r.quorum():]
	for _, n := range down {
		if err := n.Kill(); err != nil {
			r.fail(mFailKill.New(n.Name, err.Error()))
		}
	}
	r.note(mMinorityDown.New(nodeNames(down), r.quorum(), r.masters))
	a := r.newClient("A", 0)
	l, err := a.tryAcquireErr(r.tm.Long)
	if l == nil {
		return r.breaks(mMajorityNoLock.New(errOrBusy(err)))
	}
	r.det.enter("A")
	b := r.newClient("B", 0)
	if lb, _ := b.tryAcquireErr(r.tm.Long); lb != nil {
		r.det.enter("B")
		return r.breaksRule(history.OneHolder, mMinorityTwo.New(nodeNames(down)))
	}
	r.det.leave("A")
	if err := a.releaseErr(l); err != nil {
		return r.breaks(mMajorityRelease.New("A", err.Error()))
	}
	lb, err := b.tryAcquireErr(r.tm.Long)
	if lb == nil {
		return r.breaks(mMajorityAfter.New(errOrBusy(err)))
	}
	r.det.enter("B")
	r.det.leave("B")
	if err := b.releaseErr(lb); err != nil {
		return r.breaks(mMajorityRelease.New("B", err.Error()))
	}
	// One more master out of reach, for C alone: a minority must not grant
	// the lock, or two clients on either side of a partition could each
	// take it.
	c := r.newClient("C", 0)
	c.partition(true, 0)
	r.note(mCCannotReach.New(m.Nodes[0].Name, r.quorum()-1, r.masters))
	if lc, _ := c.tryAcquireErr(r.tm.Long); lc != nil {
		return r.breaks(mMinorityGranted.New(r.quorum()-1, r.masters))
	}
	return r.holds(mMinorityHolds.New(nodeNames(down)))
}

// minority-down's messages.
var (
	mMinorityNA = msg.Define("minority-down.n/a", nil,
		"a lock on one Redis has no minority of masters to lose")
	mMinorityDown = msg.Define("minority-down.down", msg.K(msg.Nodes, msg.Count, msg.Count),
		"{0} are down: {1} of {2} masters answer, a majority")
	mMajorityNoLock = msg.Define("minority-down.breaks-no-lock", msg.K(msg.Sub),
		"A could not acquire the free lock with a majority of the masters up: {0}")
	mMinorityTwo = msg.Define("minority-down.breaks-two", msg.K(msg.Nodes),
		"B acquired K while A held it, with {0} down")
	mMajorityRelease = msg.Define("minority-down.breaks-release", msg.K(msg.Client, msg.Text),
		"{0}'s release failed with a majority of the masters up: {1}")
	mMajorityAfter = msg.Define("minority-down.breaks-after", msg.K(msg.Sub),
		"B could not acquire K after A released it, with a majority of the masters up: {0}")
	mCCannotReach = msg.Define("minority-down.c-cannot-reach", msg.K(msg.Node, msg.Count, msg.Count),
		"C cannot reach {0} either: it reaches {1} of {2} masters, a minority")
	mMinorityGranted = msg.Define("minority-down.breaks-minority", msg.K(msg.Count, msg.Count),
		"C acquired K reaching only {0} of {1} masters: a minority granted the lock, so two clients on either side of a partition could each hold it")
	mMinorityHolds = msg.Define("minority-down.holds", msg.K(msg.Nodes),
		"with {0} down, A acquired, B was refused while A held the lock and got it once A had released, and C, reaching a minority of the masters, was refused")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("minority-down.scenario", nil,
		"over several masters, a minority of them is down; then a client is cut off from one more")
	_ = msg.Define("minority-down.must", nil,
		"A acquires, B is refused while A holds it, and gets it once A releases; the client that reaches only a minority is refused; n/a on one Redis")
)
