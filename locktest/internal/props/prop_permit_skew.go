package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// PermitSkew: permit-bound under a skewed client clock. Every permit is
// held with the Long TTL by clients on time; a client whose clock runs
// ahead by twice that TTL must be refused: the judge finds N+1 holders
// if it is not (OneHolder over the permits). A semaphore that reads no
// clock of its clients' cannot be staged (n/a).

func init() {
	register(Property{
		id: "permit-skew", order: 1140, Scenario: permitSkew, Kind: strategy.Semaphore,
		breaks:     "a client whose clock ran ahead took a permit that was still held",
		Structural: true,
	}, func(tm sim.Timing) floors {
		// The Long TTL, which never runs out: nothing to wait for.
		return floors{}
	})
}

// permitSkew: H1…HN take every permit with the Long TTL; S, its clock
// 2×Long ahead, tries for one and must be refused.
func permitSkew(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	s := r.NewClient("S", 2*r.Tm.Long)
	n := s.Permits()
	if n == 0 {
		return r.NotApplicable(sim.MsgNotSemaphore.New())
	}
	r.PromisePermits(n, mPermitSkewBreaks.Lacking())
	hs, _, no := fill(r, n)
	if no != nil {
		return r.BreaksFreeRefusedOf(no.Name, n, mBoundRefused.New(no.Name, len(hs), n))
	}
	before := r.ClockReads.Load()
	if _, ok := s.TryMode(history.Permit, 1, r.Tm.Long); ok {
		if r.ClockReads.Load() == before {
			return r.BreaksRuleOf(history.OneHolder, n, mPermitSkewNoClock.New(n))
		}
		return r.BreaksRuleOf(history.OneHolder, n, mPermitSkewTook.New(2*r.Tm.Long, n, r.Tm.Long))
	}
	if r.ClockReads.Load() == before {
		return r.NeverReadsClock()
	}
	return r.Holds(mPermitSkewHolds.New(2*r.Tm.Long, n))
}

// permit-skew's messages.
var (
	mPermitSkewBreaks = msg.Define("permit-skew.breaks", msg.K(msg.Sub),
		"a client whose clock ran ahead took a held permit: {0}")
	mPermitSkewNoClock = msg.Define("permit-skew.breaks-no-clock", msg.K(msg.Count),
		"S took a permit while the {0} were held, without ever reading its clock: the skew played no part")
	mPermitSkewTook = msg.Define("permit-skew.took", msg.K(msg.Duration, msg.Count, msg.Duration),
		"S, its clock {0} ahead, took a permit while the {1} were held with {2} of their TTL left")
	mPermitSkewHolds = msg.Define("permit-skew.holds", msg.K(msg.Duration, msg.Count),
		"S's clock ran {0} ahead and it still could not take one of the {1} held permits")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("permit-skew.scenario", nil,
		"every permit is held; a client whose clock runs ahead by more than the TTL tries for one")
	_ = msg.Define("permit-skew.must", nil,
		"it must fail")
)
