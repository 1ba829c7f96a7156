package zsetsemaphore_test

import (
	"context"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/zsetsemaphore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newSem returns a semaphore of permits permits whose clock reads at.
func newSem(t *testing.T, p strategy.Pool, permits int, at time.Time, opts ...zsetsemaphore.Option) *zsetsemaphore.Strategy {
	t.Helper()
	clock := strategytest.NewManualClock(at)
	s, err := zsetsemaphore.New(p, permits, append([]zsetsemaphore.Option{zsetsemaphore.WithClock(clock.Clock())}, opts...)...)
	require.NoError(t, err)
	return s
}

// members reads the set: member to score.
func members(t *testing.T, p *redis.Pool, key string) map[string]int64 {
	t.Helper()
	m, err := redis.Int64Map(strategytest.Do(t, p, "ZRANGE", key, 0, -1, "WITHSCORES"), nil)
	require.NoError(t, err)
	return m
}

// TestSemaphore: what every semaphore does.
func TestSemaphore(t *testing.T) {
	strategytest.RunCounting(t, strategytest.CountingSpec{
		Name: "zsetsemaphore",
		New: func(p strategy.Pool, permits int) (strategy.Counting, error) {
			return zsetsemaphore.New(p, permits)
		},
		ErrInvalidPermits: zsetsemaphore.ErrInvalidPermits,
	})
}

// TestModel: the members are <identifier>_<i>, scored by the client's
// clock; K expires after the TTL; n permits are taken all or none; a
// refresh scores them again with the refresher's clock.
func TestModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	clock := strategytest.NewManualClock(strategytest.T0)
	s, err := zsetsemaphore.New(p, 3, zsetsemaphore.WithClock(clock.Clock()))
	require.NoError(t, err)

	l, err := s.TryAcquireN(ctx, key, 2, strategytest.TTL)
	require.NoError(t, err)
	id := l.(*zsetsemaphore.Lock).Identifier()
	t0 := strategytest.T0.UnixMilli()
	assert.Equal(t, map[string]int64{id + "_0": t0, id + "_1": t0}, members(t, p, key))
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)

	_, err = s.TryAcquireN(ctx, key, 2, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.Len(t, members(t, p, key), 2, "a failed TryAcquireN added members")

	clock.Set(strategytest.T0.Add(time.Second))
	require.NoError(t, l.(strategy.Refresher).Refresh(ctx, strategytest.TTL))
	assert.Equal(t, map[string]int64{id + "_0": t0 + 1000, id + "_1": t0 + 1000}, members(t, p, key))
	require.NoError(t, l.Release(ctx))
	assert.False(t, strategytest.Exists(t, p, key))
	require.ErrorIs(t, l.(strategy.Refresher).Refresh(ctx, strategytest.TTL), strategy.ErrNotHeld, "a released lock refreshed")
	assert.False(t, strategytest.Exists(t, p, key), "a refresh after release took the permits again")
}

// TestNilClock: a nil clock is refused.
func TestNilClock(t *testing.T) {
	t.Parallel()
	_, err := zsetsemaphore.New(redistest.Pool(t), 1, zsetsemaphore.WithClock(nil))
	require.Error(t, err)
}

// TestClockSkew is the design's break, which its README admits: a client
// whose clock runs more than the TTL ahead drops the live holder's member
// as expired and takes the one permit: two holders. A client within the
// TTL does not; and the holder, whose member is gone, finds out only at
// its next refresh.
func TestClockSkew(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	ttl := strategytest.TTL

	a, err := newSem(t, p, 1, strategytest.T0).TryAcquire(ctx, key, ttl)
	require.NoError(t, err)
	_, err = newSem(t, p, 1, strategytest.T0.Add(ttl/2)).TryAcquire(ctx, key, ttl)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "a client within the TTL took the permit")

	b, err := newSem(t, p, 1, strategytest.T0.Add(2*ttl)).TryAcquire(ctx, key, ttl)
	require.NoError(t, err, "a client 2×ttl ahead did not take the held permit")
	id := b.(*zsetsemaphore.Lock).Identifier()
	assert.Equal(t, map[string]int64{id + "_0": strategytest.T0.Add(2 * ttl).UnixMilli()}, members(t, p, key),
		"the holder's member is still there")
	require.ErrorIs(t, a.(strategy.Refresher).Refresh(ctx, ttl), strategy.ErrNotHeld)
}

// TestClockBehind: a holder whose clock runs more than the TTL behind
// writes a score that the next client, on time, drops at once.
func TestClockBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	ttl := strategytest.TTL

	_, err := newSem(t, p, 1, strategytest.T0.Add(-2*ttl)).TryAcquire(ctx, key, ttl)
	require.NoError(t, err)
	_, err = newSem(t, p, 1, strategytest.T0).TryAcquire(ctx, key, ttl)
	require.NoError(t, err, "a client on time did not take the permit of a holder behind")
}

// TestShortTTLDropsSet: every acquire sets K's expiry to its own TTL. A
// holder with a short TTL that crashes takes the whole set with it when
// K expires, and the holders with a long TTL lose their permits while
// they hold them: three holders of a semaphore of two.
func TestShortTTLDropsSet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	now := time.Now()

	_, err := newSem(t, p, 2, now).TryAcquire(ctx, key, strategytest.TTL) // A, 10 s
	require.NoError(t, err)
	_, err = newSem(t, p, 2, now).TryAcquire(ctx, key, 50*time.Millisecond) // B, then crashes
	require.NoError(t, err)
	strategytest.WaitGone(t, p, key)
	for _, c := range []string{"C", "D"} {
		_, err := newSem(t, p, 2, now).TryAcquire(ctx, key, strategytest.TTL)
		require.NoError(t, err, "%s did not get in beside A", c)
	}
}

// TestLateRefresh: a holder whose permit expired and passed to another
// client. Its refresh reports the loss; the refresh from before issue 175
// was fixed takes the permit back and reports nothing.
func TestLateRefresh(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       []zsetsemaphore.Option
		reacquires bool
	}{
		{"Fixed", nil, false},
		{"Issue175", []zsetsemaphore.Option{zsetsemaphore.WithLateRefreshReacquires()}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			p := redistest.Pool(t)
			key := redistest.Key(t)
			ttl := strategytest.TTL
			clock := strategytest.NewManualClock(strategytest.T0)
			s, err := zsetsemaphore.New(p, 1, append([]zsetsemaphore.Option{zsetsemaphore.WithClock(clock.Clock())}, tc.opts...)...)
			require.NoError(t, err)

			a, err := s.TryAcquire(ctx, key, ttl)
			require.NoError(t, err)
			clock.Set(strategytest.T0.Add(ttl + time.Millisecond)) // A's refresh is late
			b, err := s.TryAcquire(ctx, key, ttl)
			require.NoError(t, err, "the expired permit was not taken")
			require.NoError(t, b.Release(ctx))

			err = a.(strategy.Refresher).Refresh(ctx, ttl)
			if !tc.reacquires {
				require.ErrorIs(t, err, strategy.ErrNotHeld)
				assert.False(t, strategytest.Exists(t, p, key))
				return
			}
			require.NoError(t, err, "the late refresh did not take the permit back")
			id := a.(*zsetsemaphore.Lock).Identifier()
			assert.Equal(t, map[string]int64{id + "_0": clock.Now().UnixMilli()}, members(t, p, key))
		})
	}
}
