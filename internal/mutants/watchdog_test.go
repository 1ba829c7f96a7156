package mutants

import (
	"context"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/require"
)

// TestWatchdogKeepsARefreshedLease: the watchdog variant's renewals use
// the TTL its holder last asked for. Renewing with its acquire's, a
// watchdog cut a lease that a Refresh had lengthened: explored, a
// holder refreshed for 120ms, its connection stalled, and its release
// found the key gone 41ms before the end of the lease it asked for.
func TestWatchdogKeepsARefreshedLease(t *testing.T) {
	addr := redistest.Shared(t).Addr
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", addr) }}
	defer pool.Close()
	v, ok := LookupVariant("watchdog")
	require.True(t, ok)
	s, err := v.New(locktest.Client{Pool: pool})
	require.NoError(t, err)
	ctx := context.Background()
	key := redistest.Key(t)
	l, err := s.TryAcquire(ctx, key, 60*time.Millisecond)
	require.NoError(t, err)
	require.NotNil(t, l)
	require.NoError(t, l.(interface {
		Refresh(context.Context, time.Duration) error
	}).Refresh(ctx, time.Second))
	// Three of the watchdog's renewals, every 20ms.
	time.Sleep(70 * time.Millisecond)
	c := pool.Get()
	defer c.Close()
	pttl, err := redis.Int64(c.Do("PTTL", key))
	require.NoError(t, err)
	require.NoError(t, l.Release(ctx))
	require.Greater(t, pttl, int64(500), "the key's time to live after the watchdog's renewals, ms")
}
