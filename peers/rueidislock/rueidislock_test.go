package rueidislock_test

import (
	"context"
	"testing"
	"time"

	ruelock "github.com/locklab/locklab/peers/rueidislock"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

func newLocks(t *testing.T, majority int32) *ruelock.Locks {
	t.Helper()
	srv := redistest.Shared(t)
	l, err := ruelock.New(rueidislock.LockerOption{ClientOption: ruelock.ClientOption(srv.Addr, srv.Login.Password), KeyMajority: majority})
	require.NoError(t, err)
	t.Cleanup(l.Close)
	return l
}

// TestLocks: a lock takes a majority of its keys, which the adapter
// names, with a PXAT near now plus the TTL; another client is refused
// while it is held; the lease ends with the release, which deletes the
// keys.
func TestLocks(t *testing.T) {
	ctx := context.Background()
	a, b := newLocks(t, 0), newLocks(t, 0)
	var _ strategy.Keyed = a
	var o strategy.OwnClock = a
	assert.True(t, o.OwnClock())
	key := redistest.Key(t)
	keys := a.Keys(key)
	assert.Equal(t, []string{"rueidislock:0:" + key, "rueidislock:1:" + key, "rueidislock:2:" + key}, keys)

	l, err := a.TryAcquire(ctx, key, 2*time.Second)
	require.NoError(t, err)
	srv := redistest.Shared(t)
	c, err := rueidis.NewClient(ruelock.ClientOption(srv.Addr, srv.Login.Password))
	require.NoError(t, err)
	defer c.Close()
	held := 0
	for _, k := range keys {
		ms, err := c.Do(ctx, c.B().Pttl().Key(k).Build()).AsInt64()
		require.NoError(t, err)
		if ms > 0 {
			held++
			assert.InDelta(t, 2000, ms, 300, k)
		}
	}
	assert.GreaterOrEqual(t, held, 2, "a majority of the three keys")
	_, err = b.TryAcquire(ctx, key, 2*time.Second)
	assert.ErrorIs(t, err, strategy.ErrNotAcquired)

	lease, ok := strategy.Lease(l)
	require.True(t, ok)
	require.NoError(t, lease.Err())
	require.NoError(t, l.Release(ctx))
	assert.Error(t, lease.Err(), "the release ends the lease")
	for _, k := range keys {
		n, err := c.Do(ctx, c.B().Exists().Key(k).Build()).AsInt64()
		require.NoError(t, err)
		assert.Zero(t, n, k)
	}
	lb, err := b.TryAcquire(ctx, key, 2*time.Second)
	require.NoError(t, err)
	require.NoError(t, lb.Release(ctx))
}

// TestKeyMajorityOne: one key, rueidislock:0:<name>.
func TestKeyMajorityOne(t *testing.T) {
	a := newLocks(t, 1)
	assert.Equal(t, []string{"rueidislock:0:k"}, a.Keys("k"))
}
