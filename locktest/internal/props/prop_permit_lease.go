package props

import (
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// PermitLeaseIndependence: each permit's lease is its own. A holder that
// takes the last permit with a short TTL, refreshes it and crashes never
// shortens the others' leases: once its TTL has passed, its permit
// comes back, and only its. The judge finds N+1 holders if the others'
// permits went with it (OneHolder over the permits): the shape of
// reader-lease-independence for semaphores, and of a semaphore whose
// every acquire sets the whole set's expiry to its own TTL.

func init() {
	register(Property{
		id: "permit-lease-independence", order: 1115, Scenario: permitLeaseIndependence, Kind: strategy.Semaphore,
		breaks: "a holder's acquire or refresh with a short TTL cut the other holders' leases",
	}, func(tm sim.Timing) floors {
		// X and Y try once A's Short TTL has run out.
		return floors{Holds: tm.Short}
	})
}

// permitLeaseIndependence: H1…HN-1 take a permit each with the Long TTL;
// A takes the last with the Short TTL, refreshes it and crashes. Once
// A's TTL has passed, X takes A's permit, and Y must be refused.
func permitLeaseIndependence(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	a := r.NewClient("A", 0)
	n := a.Permits()
	if n == 0 {
		return r.NotApplicable(sim.MsgNotSemaphore.New())
	}
	x, y := r.NewClient("X", 0), r.NewClient("Y", 0)
	r.PromisePermits(n, mPermitLeaseBreaks.Lacking())
	_, _, ha, res := lastPermit(r, a, n, r.Tm.Short)
	if res != nil {
		return *res
	}
	if l, ok := ha.L.(strategy.Refresher); ok {
		_ = a.Refresh(l, r.Tm.Short) // an error is A's loss, not a break here
	}
	a.Crash(mCrashNeverReleases.New())
	time.Sleep(r.Tm.Outlast(r.Tm.Short))
	r.ReadPTTL()
	if _, ok := x.TryMode(history.Permit, 1, r.Tm.Long); !ok {
		// A's permit did not come back with its TTL (permit-crash-recovery
		// says so): the others' leases were not cut.
		return r.Holds(mPermitLeaseKept.New(n))
	}
	if _, ok := y.TryMode(history.Permit, 1, r.Tm.Long); ok {
		return r.BreaksRuleOf(history.OneHolder, n, mPermitLeaseCut.New(n-1, r.Tm.Long, r.Tm.Short))
	}
	return r.Holds(mPermitLeaseHolds.New(n))
}

// permit-lease-independence's messages.
var (
	mPermitLeaseBreaks = msg.Define("permit-lease-independence.breaks", msg.K(msg.Sub),
		"a holder's short lease cut the others': {0}")
	mPermitLeaseCut = msg.Define("permit-lease-independence.cut", msg.K(msg.Count, msg.Duration, msg.Duration),
		"once A's TTL had passed, X and Y both took a permit while {0} {0|holder|holders} with the {1} TTL still held {0|a permit|their permits}: A's {2} TTL cut {0|its lease|their leases}")
	mPermitLeaseKept = msg.Define("permit-lease-independence.kept", msg.K(msg.Count),
		"A's permit, one of {0}, did not come back with its TTL, and the others' leases stood")
	mPermitLeaseHolds = msg.Define("permit-lease-independence.holds", msg.K(msg.Count),
		"of the {0} permits, A's came back with its short TTL, and only A's")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("permit-lease-independence.scenario", nil,
		"holders with the long TTL take all permits but one; a holder takes the last with a short TTL, refreshes it and crashes")
	_ = msg.Define("permit-lease-independence.must", nil,
		"after the short TTL, one permit comes back, never more")
)
