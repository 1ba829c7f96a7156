package countersemaphore_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
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

// TestPermitsBound: of many clients racing for 3 permits, 3 get one; a
// release lets one more in.
func TestPermitsBound(t *testing.T) {
	t.Parallel()
	const permits, clients = 3, 30
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	assert.Equal(t, strategy.Semaphore, strategy.KindOf(newSem(t, p, permits)))

	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		held  []strategy.Lock
		start = make(chan struct{})
	)
	for range clients {
		s := newSem(t, p, permits)
		wg.Go(func() {
			<-start
			l, err := s.TryAcquire(ctx, key, strategytest.TTL)
			if err != nil {
				assert.ErrorIs(t, err, strategy.ErrNotAcquired)
				return
			}
			mu.Lock()
			held = append(held, l)
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	require.Len(t, held, permits, "holders of a semaphore of %d permits", permits)
	assert.Equal(t, 0, free(t, p, key))

	_, err := newSem(t, p, permits).TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	require.NoError(t, held[0].Release(ctx))
	l, err := newSem(t, p, permits).TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err, "a released permit is not free again")
	assert.Equal(t, key, l.Key())
}

// TestAcquireN: several permits at once, all or none.
func TestAcquireN(t *testing.T) {
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

func TestBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	for _, permits := range []int{0, -1} {
		_, err := countersemaphore.New(p, permits)
		require.ErrorIs(t, err, countersemaphore.ErrInvalidPermits)
	}
	for _, pool := range []strategy.Pool{nil, (*redis.Pool)(nil)} {
		_, err := countersemaphore.New(pool, 1)
		require.ErrorIs(t, err, strategy.ErrNilPool)
	}
	s := newSem(t, p, 2)
	for _, n := range []int{0, -1, 3} {
		_, err := s.TryAcquireN(ctx, key, n, strategytest.TTL)
		require.ErrorIs(t, err, countersemaphore.ErrInvalidPermits, "n %d", n)
	}
	_, err := s.TryAcquire(ctx, "", strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrInvalidKey)
	_, err = s.TryAcquire(ctx, key, 0)
	require.ErrorIs(t, err, strategy.ErrInvalidTTL)
	assert.False(t, strategytest.Exists(t, p, key), "bad input wrote the counter")
}

// TestWrongType: a key of another type is an error, not a semaphore full.
func TestWrongType(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "HSET", key, "f", "v")
	_, err := newSem(t, p, 1).TryAcquire(context.Background(), key, strategytest.TTL)
	require.Error(t, err)
	assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
	strategytest.RequireOpError(t, err, "countersemaphore", key)
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
