package props

import (
	"fmt"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// PermitBound: a semaphore of N permits lets N holders in, and never more:
// N-1 clients take a permit each, then two more race for the last one in
// every interleaving of their commands.

func init() {
	register(Property{
		id: "permit-bound", order: 1100, Scenario: permitBound, Kind: strategy.Semaphore,
		breaks: "more holders held the semaphore than it has permits, or a free permit was refused",
	}, func(tm sim.Timing) floors {
		// The Long TTL, which never runs out: nothing to wait for.
		return floors{}
	})
}

// permitBound: N-1 holders take their permits, then X and Y race for the
// last in every interleaving; one of them at most may get it.
func permitBound(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("/kind")
	p := r.NewClient("P", 0)
	n := p.Permits()
	if n == 0 {
		return r.NotApplicable(sim.MsgNotSemaphore.New())
	}
	if h, ok := p.TryMode(history.Permit, 1, r.Tm.Short); ok {
		p.ReleaseHeld(h)
	}
	r.Shutdown()
	var last *harness.Run
	res, tries := harness.Interleavings(newRun, "schedule", func(r *harness.Run, k int, prefix []int) ([]harness.Choice, *harness.Outcome) {
		last = r
		for i := range n - 1 {
			name := fmt.Sprintf("H%d", i+1)
			if _, ok := r.NewClient(name, 0).TryMode(history.Permit, 1, r.Tm.Long); !ok {
				res := r.BreaksFreeRefusedOf(name, n, mBoundRefused.New(name, i, n))
				return nil, &res
			}
		}
		clients := []*harness.Client{r.NewClient("X", 0), r.NewClient("Y", 0)}
		won := []bool{false, false}
		trace := harness.Schedule(r, clients, func(i int) {
			_, won[i] = clients[i].TryMode(history.Permit, 1, r.Tm.Long)
		}, prefix)
		if won[0] && won[1] {
			res := r.BreaksRuleOf(history.OneHolder, n, mBoundBreaks.New(n, n-1, k))
			return trace, &res
		}
		if !won[0] && !won[1] {
			res := r.BreaksFreeRefusedOf("Y", n, mBoundNone.New(n-1, k))
			return trace, &res
		}
		return trace, nil
	})
	if res != nil {
		return *res
	}
	return last.Holds(mBoundHolds.New(n, n-1, tries))
}

// permit-bound's messages.
var (
	mBoundRefused = msg.Define("permit-bound.refused", msg.K(msg.Client, msg.Count, msg.Count),
		"{0} could not take a permit while {1} of the {2} were held")
	mBoundBreaks = msg.Define("permit-bound.breaks", msg.K(msg.Count, msg.Count, msg.Count),
		"a semaphore of {0} permits: while {1} were held, X and Y both took the last one (interleaving {2} of their commands)")
	mBoundNone = msg.Define("permit-bound.none", msg.K(msg.Count, msg.Count),
		"while {0} permits were held, neither X nor Y could take the last one (interleaving {1} of their commands)")
	mBoundHolds = msg.Define("permit-bound.holds", msg.K(msg.Count, msg.Count, msg.Count),
		"a semaphore of {0} permits: {1} {1|holder|holders} took theirs, and in each of the {2} interleavings of two attempts at the last permit, exactly one got it")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("permit-bound.scenario", nil,
		"N-1 holders take a permit each; two more clients race for the last, in every interleaving of their commands")
	_ = msg.Define("permit-bound.must", nil,
		"N holders in, never N+1")
)
