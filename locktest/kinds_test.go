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
	t.Parallel()
	addr := redistest.Shared(t).Addr
	for _, tt := range []struct {
		name   string
		kind   strategy.Kind
		new    locktest.Factory
		breaks []locktest.Property
		na     []locktest.Property // n/a on the lock's own kind
	}{
		// The watchdog's PEXPIRE K sets the whole lock's expiry to the
		// renewing reader's lease: A's refresh with the Short TTL cuts B's
		// Long one, and W writes beside B. Readers first: R2 reads while W
		// waits, and W writes once the stream of readers ends. A read
		// unlock under the holder's own write lock sets K's expiry to its
		// other read's lease, cutting the write lock's.
		{"hashrwlock", strategy.ReadWrite, func(c locktest.Client) (strategy.Strategy, error) { return hashrwlock.New(c.Pool) },
			[]locktest.Property{locktest.ReaderLeaseIndependence, locktest.ReaderOverrun, locktest.ReaderReentrant}, []locktest.Property{locktest.ReaderCrashMidAcquire, locktest.ReaderCrashMidRelease, locktest.ReaderRenewAfterRelease}},
		// The readers' count outlives K: once a crashed reader's K has
		// expired, its count lets the next reader hold without K, and a
		// writer takes K beside it. All readers share K's one lease, set by
		// the first reader and by every refresh: B's refresh stretches it
		// for D, which crashed, and D's count keeps B's release from
		// deleting K, so W waits out B's lease (and A's refresh would cut
		// B's). Writers first (K:writer-intent): W writes as soon as R1
		// leaves. A read released late or twice DECRs the count again:
		// below zero once a writer has reset it, when the next reader's
		// INCR to 0 lets it hold beside the writer, or to zero beside
		// another reader, whose K it deletes; and a read script whose
		// reply is lost leaves its count behind, as a crash does.
		{"refcountrwlock", strategy.ReadWrite, func(c locktest.Client) (strategy.Strategy, error) { return refcountrwlock.New(c.Pool) },
			[]locktest.Property{locktest.ReaderCrashRecovery, locktest.ReaderLeaseIndependence, locktest.ReaderSafeRelease, locktest.ReaderDoubleRelease, locktest.ReaderFaults, locktest.ReaderOverrun},
			[]locktest.Property{locktest.ReaderCrashMidAcquire, locktest.ReaderCrashMidRelease, locktest.ReaderReentrant, locktest.ReaderRenewAfterRelease}},
		// A waiter's acquire drops only the members older than its own
		// TTL, by its own clock: a crashed holder's permit outlives the TTL
		// it was taken with, and a client whose clock runs ahead drops the
		// live holders' members (permit-skew). Every acquire and refresh
		// PEXPIREs K to the caller's TTL: a short one drops every holder's
		// member with K. Its release is a ZREM of its own members, and its
		// acquire of n one script: both exact. A permit whose reply is
		// lost, or whose holder stalls past its TTL, outlives it as a
		// crashed holder's does. A waiter with a shorter TTL than the
		// holders' drops their members as older than its own TTL
		// (permit-lease-kept).
		{"zsetsemaphore", strategy.Semaphore, func(c locktest.Client) (strategy.Strategy, error) {
			return zsetsemaphore.New(c.Pool, 2, zsetsemaphore.WithClock(c.Clock))
		}, []locktest.Property{locktest.PermitCrashRecovery, locktest.PermitLeaseIndependence, locktest.PermitLeaseKept, locktest.PermitSafeRefresh, locktest.PermitFaults, locktest.PermitSkew},
			[]locktest.Property{locktest.PermitCrashMidAcquire, locktest.PermitCrashMidRelease, locktest.PermitRenewAfterRelease}},
		// No lease at all: a crashed holder's permit is lost for good (and
		// so never cuts the others'), and a release is an INCRBY, however
		// often it comes (a second release lets N+1 in). Its acquire of n is one decrement-if-enough script;
		// it reads no clock (permit-skew n/a), and has no Refresh. A decrement whose reply is
		// lost loses its permit for good, as a crash does; a death
		// between its two scripts (set the count, decrement) takes none.
		{"countersemaphore", strategy.Semaphore, func(c locktest.Client) (strategy.Strategy, error) { return countersemaphore.New(c.Pool, 2) },
			[]locktest.Property{locktest.PermitCrashRecovery, locktest.PermitReleaseExact, locktest.PermitFaults},
			[]locktest.Property{locktest.PermitCrashMidRelease, locktest.PermitSafeRefresh, locktest.PermitSkew, locktest.PermitRenewAfterRelease}},
		{"luatoken", strategy.Mutex, func(c locktest.Client) (strategy.Strategy, error) { return luatoken.New(c.Pool) }, nil, nil},
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
					case slices.Contains(tt.na, p):
						want = locktest.NotApplicable
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
