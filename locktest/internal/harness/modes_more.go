package harness

import (
	"fmt"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// What the kinds' rows of lease-kept, release-frees and
// renew-after-release share: A takes one hold in the mode among the
// kind's others (for a semaphore, every other permit held), and another
// client tries for what A's hold forbids, or, once A has released, what
// it no longer forbids. The judge finds the break among the holds: a
// grant beside A's valid hold (history.OneHolder, over the permits), or
// a refusal with nothing in the way (history.FreeRefused).

// Others has the kind's others take what A's hold in m is to be taken
// among: nothing for a read-write lock (A reads alone), and for a
// semaphore every permit but one, by H1…HN-1 with twice the Long TTL,
// which outlives any hold of A's at any time scale, held to the end of
// the run. A permit refused them is the run's break, which it returns;
// else nil.
func (m KindMode) Others(r *Run) *Outcome {
	if m.Kind != strategy.Semaphore {
		return nil
	}
	for i := 1; i < m.Permits; i++ {
		name := fmt.Sprintf("H%d", i)
		if _, ok := clientOf(r, name).TryMode(history.Permit, 1, 2*r.Tm.Long); !ok {
			res := r.BreaksFreeRefusedOf(name, m.Permits, mOthersRefused.New(name, i-1, m.Permits))
			return &res
		}
	}
	return nil
}

// Intrude is one attempt of c, with ttl, at what a hold in m forbids
// while the others (Others) hold theirs: the lock to write, or one
// permit more. It reports whether c got it; a grant is a hold of the
// history's, which the judge counts.
func (m KindMode) Intrude(c *Client, ttl time.Duration) bool {
	if m.Kind == strategy.Semaphore {
		_, ok := c.TryMode(history.Permit, 1, ttl)
		return ok
	}
	_, ok := c.TryMode(history.Exclusive, 0, ttl)
	return ok
}

// Intruder names the client that intrudes in m: W writes, X takes a
// permit.
func (m KindMode) Intruder() string {
	if m.Kind == strategy.Semaphore {
		return "X"
	}
	return "W"
}

// BreaksOne claims that a grant came beside a valid hold it conflicts
// with, as history.OneHolder counts them in m (a semaphore's over its
// permits), which why explains.
func (m KindMode) BreaksOne(r *Run, why msg.Msg) Outcome {
	return r.BreaksRuleOf(history.OneHolder, m.Permits, why)
}

// BreaksRefused claims that waiter's last attempt in m was refused what
// no valid hold stood in the way of (history.FreeRefused), which why
// explains.
func (m KindMode) BreaksRefused(r *Run, waiter string, why msg.Msg) Outcome {
	return r.BreaksFreeRefusedOf(waiter, m.Permits, why)
}

// What the rows of the modes above share.
var mOthersRefused = msg.Define("modes.others-refused", msg.K(msg.Client, msg.Count, msg.Count),
	"{0} was refused a permit while only {1} of the {2} were held")
