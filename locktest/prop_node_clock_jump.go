package locktest

import (
	"github.com/locklab/locklab/redistest"
)

// NodeClockJump: a master holding A's lock has its clock jump forward
// past A's TTL; B must not acquire while A holds the lock by the real
// clock. Over several masters, A holds a bare majority and the clock
// of one master of it jumps.

// nodeClockJump: A holds K for Long; then the clock of a master holding
// A's lock jumps forward by twice that, so that its expiry of A's key
// comes early; B tries to acquire. Over several masters, A first locks a
// bare majority, and the clock that jumps is one of it.
func nodeClockJump(newRun func(string) *run) Result {
	r := newRun("")
	m := r.startMasters(redistest.WithMovableClocks())
	l, node := holderOnMajority(r, m)
	if l == nil {
		return r.notApplicable("A could not acquire K with a minority of the masters out of reach: see minority-down")
	}
	jump := 2 * r.tm.Long
	if err := node.ShiftClock(jump); err != nil {
		r.fail("moving %s's clock: %v", node.Name, err)
	}
	r.note("%s: its clock jumps %v forward (an NTP step, an administrator); by it, A's TTL of %v has passed", r.label(node), jump, r.tm.Long)
	wait := r.tm.Slack
	if contend(r, wait) {
		return r.breaks("B acquired K well inside A's TTL of %v by the real clock: the clock of %s jumped %v forward, and it expired A's lock early", r.tm.Long, r.label(node), jump)
	}
	return r.holds("B could not acquire K in %v after the clock of %s jumped %v forward", wait, r.label(node), jump)
}
