package countersemaphore_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/countersemaphore"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newSem(t *testing.T, p strategy.Pool, permits int) *countersemaphore.Strategy {
	t.Helper()
	s, err := countersemaphore.New(p, permits)
	require.NoError(t, err)
	return s
}

// free reads the counter of free permits.
func free(t *testing.T, p *redis.Pool, key string) int {
	t.Helper()
	v, ok := strategytest.Get(t, p, key)
	require.True(t, ok, "the counter is gone")
	n, err := strconv.Atoi(v)
	require.NoError(t, err)
	return n
}

// TestSemaphore: what every semaphore does.
func TestSemaphore(t *testing.T) {
	strategytest.RunCounting(t, strategytest.CountingSpec{
		Name: "countersemaphore",
		New: func(p strategy.Pool, permits int) (strategy.Counting, error) {
			return countersemaphore.New(p, permits)
		},
		ErrInvalidPermits: countersemaphore.ErrInvalidPermits,
	})
}

// TestCounter: K counts the free permits, and never expires.
func TestCounter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newSem(t, p, 3)

	two, err := s.TryAcquireN(ctx, key, 2, strategytest.TTL)
	require.NoError(t, err)
	assert.Equal(t, 1, free(t, p, key))
	_, err = s.TryAcquireN(ctx, key, 2, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.Equal(t, 1, free(t, p, key), "a failed TryAcquireN took permits")
	require.NoError(t, two.Release(ctx))
	assert.Equal(t, 3, free(t, p, key))
	assert.Equal(t, int64(-1), strategytest.PTTL(t, p, key), "the counter has an expiry")
}

// TestExistingCount: a counter already at K keeps its count; the permits
// given to New only create it.
func TestExistingCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, 0)
	_, err := newSem(t, p, 5).TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.Equal(t, 0, free(t, p, key))
}

// TestCrashLosesPermit is the design's break (Redisson 2045, 4462): a
// holder that crashes never releases, nothing expires, and its permit is
// lost for good: long after the TTL it asked for, nobody gets in.
func TestCrashLosesPermit(t *testing.T) {
	t.Parallel()
	const ttl = 20 * time.Millisecond
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)

	_, err := newSem(t, p, 1).TryAcquire(ctx, key, ttl) // then the holder crashes
	require.NoError(t, err)
	time.Sleep(10 * ttl)
	_, err = newSem(t, p, 1).TryAcquire(ctx, key, ttl)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "the crashed holder's permit came back")
	assert.Equal(t, 0, free(t, p, key))
	assert.Equal(t, int64(-1), strategytest.PTTL(t, p, key), "the counter expires: the permit would come back")
}

// TestDoubleReleaseAddsPermit: a release is not tied to an acquire, so a
// lock released twice adds a permit, and a semaphore of one permit lets
// two holders in.
func TestDoubleReleaseAddsPermit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)

	a, err := newSem(t, p, 1).TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.NoError(t, a.Release(ctx))
	require.NoError(t, a.Release(ctx), "the second release failed")
	var holders int
	for range 3 {
		_, err := newSem(t, p, 1).TryAcquire(ctx, key, strategytest.TTL)
		if err == nil {
			holders++
			continue
		}
		require.True(t, errors.Is(err, strategy.ErrNotAcquired), "%v", err)
	}
	assert.Equal(t, 2, holders, "holders of a semaphore of one permit after a double release")
}
