package locktest

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/redistest"
)

// NodeClockJump: a master holding A's lock has its clock jump forward
// past A's TTL; B must not acquire while A holds the lock by the real
// clock. Over several masters, A holds a bare majority and the clock
// of one master of it jumps.

const NodeClockJump Property = "node-clock-jump" // a master's clock jumps past the TTL (topology)

func init() {
	register(property{
		p: NodeClockJump, order: 180, scenario: nodeClockJump,
		breaks:   "a master whose clock jumped forward expired the lock early, and another client acquired it",
		topology: true,
	}, func(tm Timing) floors {
		// The time goes into starting servers of its own and forcing
		// faults, not into TTL waits.
		return floors{}
	})
}

// nodeClockJump: A holds K for Long; then the clock of a master holding
// A's lock jumps forward by twice that, so that its expiry of A's key
// comes early; B tries to acquire. Over several masters, A first locks a
// bare majority, and the clock that jumps is one of it.
func nodeClockJump(newRun func(string) *run) Result {
	r := newRun("")
	m := r.startMasters(redistest.WithMovableClocks())
	l, node := holderOnMajority(r, m)
	if l == nil {
		return r.notApplicable(mMinorityUnreachable.New())
	}
	jump := 2 * r.tm.Long
	if err := node.ShiftClock(jump); err != nil {
		r.fail("moving %s's clock: %v", node.Name, err)
	}
	r.note(mJumps.New(r.label(node), jump, r.tm.Long))
	wait := r.tm.Slack
	if contend(r, wait) {
		return r.breaks(mJumpBreaks.New(r.tm.Long, r.label(node), jump))
	}
	return r.holds(mJumpHolds.New(wait, r.label(node), jump))
}

// node-clock-jump's messages.
var (
	mJumps = msg.Define("node-clock-jump.jumps", msg.K(msg.Node, msg.Duration, msg.Duration),
		"{0}: its clock jumps {1} forward (an NTP step, an administrator); by it, A's TTL of {2} has passed",
		"{0}：它的时钟向前跳了 {1}（NTP 跳变校时，或者管理员改了时间）；按这个时钟，A 的 TTL {2} 已经过去了")
	mJumpBreaks = msg.Define("node-clock-jump.breaks", msg.K(msg.Duration, msg.Node, msg.Duration),
		"B acquired K well inside A's TTL of {0} by the real clock: the clock of {1} jumped {2} forward, and it expired A's lock early",
		"按真实的时间，A 的 TTL {0} 还远没有过去，B 就拿到了 K：{1}的时钟向前跳了 {2}，提前让 A 的锁过期了")
	mJumpHolds = msg.Define("node-clock-jump.holds", msg.K(msg.Duration, msg.Node, msg.Duration),
		"B could not acquire K in {0} after the clock of {1} jumped {2} forward", "{1}的时钟向前跳了 {2} 之后，B 在 {0} 内仍然没能拿到 K")
)
