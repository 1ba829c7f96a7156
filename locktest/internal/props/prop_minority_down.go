package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// MinorityDown: over several masters, with a minority of them down,
// A acquires, B is refused while A holds the lock, and B acquires once
// A has released; then C, cut off from one more master, reaches only a
// minority and must be refused. n/a on one Redis.

func init() {
	register(Property{
		id: "minority-down", order: 190, Scenario: minorityDown,
		breaks:   "with a minority of the masters down, the lock did not work or was not exclusive",
		Topology: true,
	}, func(tm sim.Timing) floors {
		// The time goes into starting servers of its own and forcing
		// faults, not into TTL waits.
		return floors{}
	})
}

// minorityDown: over several masters, a minority of them is down for the
// whole run; the lock must still work: A acquires, B cannot while A holds
// it, and B gets it once A has released. n/a on one Redis.
func minorityDown(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	if !r.Multi() {
		return r.NotApplicable(mMinorityNA.New())
	}
	m := r.StartMasters()
	down := m.Nodes[r.Quorum():]
	for _, n := range down {
		if err := n.Kill(); err != nil {
			r.Fail(mFailKill.New(n.Name, err.Error()))
		}
	}
	r.Note(mMinorityDown.New(harness.NodeNames(down), r.Quorum(), r.Masters))
	a := r.NewClient("A", 0)
	l, err := a.TryAcquireErr(r.Tm.Long)
	// Observed, the breaks of this scenario but two holders: an attempt
	// that fails with a master down may fail with an error, which no
	// rule reads as a refusal of a free lock; a release's error and a
	// grant on a minority that nobody contests break no rule either.
	if l == nil {
		return r.Breaks(mMajorityNoLock.New(harness.ErrOrBusy(err)))
	}
	r.Det.Enter("A")
	b := r.NewClient("B", 0)
	if lb, _ := b.TryAcquireErr(r.Tm.Long); lb != nil {
		r.Det.Enter("B")
		return r.BreaksRule(history.OneHolder, mMinorityTwo.New(harness.NodeNames(down)))
	}
	r.Det.Leave("A")
	if err := a.ReleaseErr(l); err != nil {
		return r.Breaks(mMajorityRelease.New("A", err.Error()))
	}
	lb, err := b.TryAcquireErr(r.Tm.Long)
	if lb == nil {
		return r.Breaks(mMajorityAfter.New(harness.ErrOrBusy(err)))
	}
	r.Det.Enter("B")
	r.Det.Leave("B")
	if err := b.ReleaseErr(lb); err != nil {
		return r.Breaks(mMajorityRelease.New("B", err.Error()))
	}
	// One more master out of reach, for C alone: a minority must not grant
	// the lock, or two clients on either side of a partition could each
	// take it.
	c := r.NewClient("C", 0)
	c.Partition(true, 0)
	r.Note(mCCannotReach.New(m.Nodes[0].Name, r.Quorum()-1, r.Masters))
	if lc, _ := c.TryAcquireErr(r.Tm.Long); lc != nil {
		return r.Breaks(mMinorityGranted.New(r.Quorum()-1, r.Masters))
	}
	return r.Holds(mMinorityHolds.New(harness.NodeNames(down)))
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
