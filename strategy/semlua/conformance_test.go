package semlua_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/semlua"
)

// TestMutexSuite runs the conformance suite's mutex properties on a
// semaphore of one permit, which is a mutex; its verdicts are luatoken's
// without options: the one flaw of every TTL lock, a holder working past
// its TTL. The suite does not know the semaphore kind yet; the
// properties of permits are this package's own tests.
func TestMutexSuite(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return semlua.New(c.Pool, 1)
	}, locktest.Expect{
		Strict:        true,
		Breaks:        []locktest.Property{locktest.HolderOverrun, locktest.FencedOverrun, locktest.RenewedOverrun},
		NotApplicable: []locktest.Property{locktest.CrashMidAcquire, locktest.CrashMidRelease, locktest.StaleTakeoverRace, locktest.ClockSkew, locktest.HolderClock, locktest.RenewAfterRelease},
	})
}
