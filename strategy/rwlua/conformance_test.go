package rwlua_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/rwlua"
)

// mutexVerdicts are luatoken's verdicts on the suite's properties without
// topology: the one flaw of every TTL lock, a holder working past its TTL,
// which no option answers here (no fencing; renewal is an option).
var mutexVerdicts = locktest.Expect{
	Strict:        true,
	Breaks:        []locktest.Property{locktest.HolderOverrun, locktest.FencedOverrun, locktest.RenewedOverrun},
	NotApplicable: []locktest.Property{locktest.CrashMidAcquire, locktest.CrashMidRelease, locktest.StaleTakeoverRace, locktest.ClockSkew, locktest.HolderClock, locktest.RenewAfterRelease},
}

// TestMutexSuite runs the conformance suite's mutex properties on the
// writer's acquire, which is a mutex. The suite does not know the
// read-write kind yet; the readers' properties are this package's own
// tests.
func TestMutexSuite(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return rwlua.New(c.Pool)
	}, mutexVerdicts)
}
