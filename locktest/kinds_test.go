package locktest_test

import (
	"context"
	"slices"
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/countersemaphore"
	"github.com/locklab/locklab/strategy/hashrwlock"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/locklab/locklab/strategy/refcountrwlock"
	"github.com/locklab/locklab/strategy/zsetsemaphore"
	"github.com/stretchr/testify/assert"
)

// TestKinds runs the properties of read-write locks and semaphores on the
// designs people run, and on a mutex, to which none applies: the verdicts
// are those each design's documented breaks call for, found on a real
// Redis and judged from the history. The mutex grid does not list them.
func TestKinds(t *testing.T) {
	addr := redistest.Shared(t).Addr
	for _, tt := range []struct {
		name   string
		kind   strategy.Kind
		new    locktest.Factory
		breaks []locktest.Property
	}{
		{"hashrwlock", strategy.ReadWrite, func(c locktest.Client) (strategy.Strategy, error) { return hashrwlock.New(c.Pool) }, nil},
		// A crashed reader's count outlives its TTL: once K has expired,
		// a reader holds without K and a writer takes K beside it.
		{"refcountrwlock", strategy.ReadWrite, func(c locktest.Client) (strategy.Strategy, error) { return refcountrwlock.New(c.Pool) },
			[]locktest.Property{locktest.ReaderCrashRecovery}},
		// A waiter's acquire drops only the members older than its own
		// TTL, by its own clock: a crashed holder's permit outlives the TTL
		// it was taken with.
		{"zsetsemaphore", strategy.Semaphore, func(c locktest.Client) (strategy.Strategy, error) {
			return zsetsemaphore.New(c.Pool, 2, zsetsemaphore.WithClock(c.Clock))
		}, []locktest.Property{locktest.PermitCrashRecovery}},
		// No lease at all: a crashed holder's permit is lost for good.
		{"countersemaphore", strategy.Semaphore, func(c locktest.Client) (strategy.Strategy, error) { return countersemaphore.New(c.Pool, 2) },
			[]locktest.Property{locktest.PermitCrashRecovery}},
		{"luatoken", strategy.Mutex, func(c locktest.Client) (strategy.Strategy, error) { return luatoken.New(c.Pool) }, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := locktest.Config{Addr: addr, New: tt.new, Key: redistest.Key(t)}
			for _, k := range []strategy.Kind{strategy.ReadWrite, strategy.Semaphore} {
				for _, p := range locktest.KindProperties(k) {
					res := locktest.Check(context.Background(), cfg, p)
					want := locktest.Holds
					switch {
					case k != tt.kind:
						want = locktest.NotApplicable
					case slices.Contains(tt.breaks, p):
						want = locktest.Breaks
					}
					assert.NoError(t, res.Err, "%s", p)
					assert.Equal(t, want, res.Verdict, "%s: %s", p, res.Reason())
				}
			}
		})
	}
	for _, p := range append(locktest.KindProperties(strategy.ReadWrite), locktest.KindProperties(strategy.Semaphore)...) {
		assert.NotContains(t, locktest.AllProperties(), p, "the mutex grid does not list %s", p)
		got, err := locktest.ParseProperty(string(p))
		assert.NoError(t, err)
		assert.Equal(t, p, got)
	}
}
