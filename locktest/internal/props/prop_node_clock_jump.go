package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/redistest"
)

// NodeClockJump: a master holding A's lock has its clock jump forward
// past A's TTL; B must not acquire while A holds the lock by the real
// clock. Over several masters, A holds a bare majority and the clock
// of one master of it jumps.

func init() {
	register(Property{
		id: "node-clock-jump", order: 180, Scenario: nodeClockJump,
		breaks:   "a master whose clock jumped forward expired the lock early, and another client acquired it",
		Topology: true,
	}, func(tm sim.Timing) floors {
		// The time goes into starting servers of its own and forcing
		// faults, not into TTL waits.
		return floors{}
	})
}

// nodeClockJump: A holds K for Long; then the clock of a master holding
// A's lock jumps forward by twice that, so that its expiry of A's key
// comes early; B tries to acquire. Over several masters, A first locks a
// bare majority, and the clock that jumps is one of it.
func nodeClockJump(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	m := r.StartMasters(redistest.WithMovableClocks())
	l, node := harness.HolderOnMajority(r, m)
	if l == nil {
		return r.NotApplicable(mMinorityUnreachable.New())
	}
	jump := 2 * r.Tm.Long
	if err := node.ShiftClock(jump); err != nil {
		r.Fail(mFailMoveClock.New(node.Name, err.Error()))
	}
	r.Note(mJumps.New(r.Label(node), jump, r.Tm.Long))
	wait := r.Tm.Slack
	if harness.Contend(r, wait) {
		return r.BreaksRule(history.OneHolder, mJumpBreaks.New(r.Tm.Long, r.Label(node), jump))
	}
	return r.Holds(mJumpHolds.New(wait, r.Label(node), jump))
}

// node-clock-jump's messages.
var (
	mJumps = msg.Define("node-clock-jump.jumps", msg.K(msg.Node, msg.Duration, msg.Duration),
		"{0}: its clock jumps {1} forward (an NTP step, an administrator); by it, A's TTL of {2} has passed")
	mJumpBreaks = msg.Define("node-clock-jump.breaks", msg.K(msg.Duration, msg.Node, msg.Duration),
		"B acquired K well inside A's TTL of {0} by the real clock: the clock of {1} jumped {2} forward, and it expired A's lock early")
	mJumpHolds = msg.Define("node-clock-jump.holds", msg.K(msg.Duration, msg.Node, msg.Duration),
		"B could not acquire K in {0} after the clock of {1} jumped {2} forward")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("node-clock-jump.scenario", nil,
		"a master holding A's lock has its clock jump forward past A's TTL (over several: one of A's bare majority)")
	_ = msg.Define("node-clock-jump.must", nil,
		"B must not acquire while A holds the lock by the real clock")
)
