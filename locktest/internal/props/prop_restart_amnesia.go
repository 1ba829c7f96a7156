package props

import (
	"github.com/locklab/locklab/history"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// RestartAmnesia: a master holding A's lock restarts without
// persistence and comes back empty (after Config.RestartDelay); B must
// not acquire while A holds the lock. Over several masters, A holds a
// bare majority and one master of it restarts.

func init() {
	register(Property{
		id: "restart-amnesia", order: 170, Scenario: restartAmnesia,
		breaks:   "a master that restarted without persistence forgot the lock, and another client acquired it",
		Topology: true,
	}, func(tm sim.Timing) floors {
		// The time goes into starting servers of its own and forcing
		// faults, not into TTL waits.
		return floors{}
	})
}

// restartAmnesia: A holds K; a master holding A's lock restarts without
// persistence (no RDB, no AOF) and comes back empty, at once or, with
// Config.RestartDelay, after that long; B tries to acquire. Over several
// masters, A first locks a bare majority, and the master restarted is one
// of it.
func restartAmnesia(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	m := r.StartMasters()
	l, node := harness.HolderOnMajority(r, m)
	if l == nil {
		return r.NotApplicable(mMinorityUnreachable.New())
	}
	if err := node.Kill(); err != nil {
		r.Fail(mFailKill.New(node.Name, err.Error()))
	}
	if r.RestartDelay == 0 {
		r.Note(mRestarts.New(r.Label(node)))
		if err := node.Start(r.Ctx); err != nil {
			r.Fail(mFailRestart.New(node.Name, err.Error()))
		}
	} else {
		r.Note(mDiesDelayed.New(r.Label(node), r.RestartDelay))
		t := time.AfterFunc(r.RestartDelay, func() { _ = node.Start(r.Ctx) }) // fails harmlessly once the run has closed it
		r.Mu.Lock()
		r.AtEnd = append(r.AtEnd, func() { t.Stop() })
		r.Mu.Unlock()
	}
	wait := r.Tm.Slack
	if harness.Contend(r, wait) {
		return r.BreaksRule(history.OneHolder, mAmnesiaBreaks.New(r.Label(node)))
	}
	if broke := harness.Obtainable(r, r.Client("A"), l, mTheRestart.New(r.Label(node))); broke != nil {
		return *broke
	}
	if r.RestartDelay > 0 {
		return r.Holds(mAmnesiaHoldsDown.New(wait, r.Label(node), r.RestartDelay))
	}
	return r.Holds(mAmnesiaHolds.New(wait, r.Label(node)))
}

// restart-amnesia's messages.
var (
	mRestarts = msg.Define("restart-amnesia.restarts", msg.K(msg.Node),
		"{0} restarts without persistence: it comes back empty, without A's lock")
	mDiesDelayed = msg.Define("restart-amnesia.dies", msg.K(msg.Node, msg.Duration),
		"{0} dies; it will come back empty after {1} (a delayed restart)")
	mAmnesiaBreaks = msg.Define("restart-amnesia.breaks", msg.K(msg.Node),
		"B acquired K while A still held it: {0} had restarted without persistence and forgotten A's lock")
	mTheRestart       = msg.Define("restart-amnesia.fault", msg.K(msg.Node), "the restart of {0}")
	mAmnesiaHoldsDown = msg.Define("restart-amnesia.holds-down", msg.K(msg.Duration, msg.Node, msg.Duration),
		"B could not acquire K in {0} while {1} stayed down (a delayed restart of {2})")
	mAmnesiaHolds = msg.Define("restart-amnesia.holds", msg.K(msg.Duration, msg.Node),
		"B could not acquire K in {0} after {1} restarted empty")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("restart-amnesia.scenario", nil,
		"a master holding A's lock restarts without persistence (over several masters: A holds a bare majority, one of it restarts)")
	_ = msg.Define("restart-amnesia.must", nil,
		"B must not acquire while A holds the lock; once A has released, C must acquire within the TTL and the slack")
)
