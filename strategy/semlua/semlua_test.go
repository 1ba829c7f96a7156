package semlua_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/semlua"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

func newSem(tb testing.TB, p strategy.Pool, permits int, opts ...semlua.Option) *semlua.Strategy {
	tb.Helper()
	s, err := semlua.New(p, permits, opts...)
	require.NoError(tb, err)
	return s
}

// A semaphore of one permit is a mutex: every mutex test applies to it.
func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "semlua", func(p strategy.Pool) (strategy.Strategy, error) {
		return semlua.New(p, 1)
	}, strategytest.WrongTypeError)
}

func take(t *testing.T, s *semlua.Strategy, key string, n int, ttl time.Duration) *semlua.Lock {
	t.Helper()
	l, err := s.TryAcquireN(context.Background(), key, n, ttl)
	require.NoError(t, err)
	return l.(*semlua.Lock)
}

// N permits and no more, whoever asks, and each release gives back its own.
func TestPermits(t *testing.T) {
	t.Parallel()
	const permits = 3
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, other := newSem(t, p, permits), newSem(t, p, permits)
	assert.Equal(t, permits, s.Permits())
	var locks []strategy.Lock
	for range permits {
		l, err := s.TryAcquire(ctx, key, strategytest.TTL)
		require.NoError(t, err)
		locks = append(locks, l)
	}
	for _, c := range []*semlua.Strategy{s, other} {
		_, err := c.TryAcquire(ctx, key, strategytest.TTL)
		require.ErrorIs(t, err, strategy.ErrNotAcquired)
		assert.Contains(t, err.Error(), "3 of 3 permits taken")
	}
	require.NoError(t, locks[1].Release(ctx))
	l, err := other.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	locks[1] = l
	for _, l := range locks {
		require.NoError(t, l.Release(ctx))
	}
	assert.False(t, strategytest.Exists(t, p, key), "the last release left the set")
}

// Under many goroutines, never more than N hold at once: each holder
// counts itself in while it holds.
func TestPermitBound(t *testing.T) {
	t.Parallel()
	const (
		permits = 4
		workers = 24
		rounds  = 20
	)
	p := redistest.Pool(t)
	key := redistest.Key(t)
	var in, most, taken atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		s := newSem(t, p, permits)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				l, err := strategy.Acquire(ctx, s, key, strategytest.TTL, strategy.FixedInterval(time.Millisecond))
				cancel()
				if !assert.NoError(t, err) {
					return
				}
				n := in.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				taken.Add(1)
				time.Sleep(time.Millisecond)
				in.Add(-1)
				assert.NoError(t, l.Release(context.Background()))
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(workers*rounds), taken.Load())
	assert.LessOrEqual(t, most.Load(), int64(permits), "holders at once")
	assert.Greater(t, most.Load(), int64(1), "the permits were never shared")
	assert.False(t, strategytest.Exists(t, p, key))
}

// TryAcquireN takes all n permits or none: a refused attempt writes
// nothing, and its Release gives all n back at once (Redisson #6343).
func TestAcquireNAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newSem(t, p, 5)
	three := take(t, s, key, 3, strategytest.TTL)
	assert.Equal(t, 3, strategytest.ZCard(t, p, key))
	_, err := s.TryAcquireN(ctx, key, 3, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.Contains(t, err.Error(), "3 of 5 permits taken, 3 wanted")
	assert.Equal(t, 3, strategytest.ZCard(t, p, key), "a refused TryAcquireN took permits")
	two := take(t, s, key, 2, strategytest.TTL)
	require.NoError(t, three.Release(ctx))
	assert.Equal(t, 2, strategytest.ZCard(t, p, key))
	require.ErrorIs(t, three.Release(ctx), strategy.ErrNotHeld)
	assert.Equal(t, 2, strategytest.ZCard(t, p, key))
	require.NoError(t, take(t, s, key, 3, strategytest.TTL).Release(ctx))
	require.NoError(t, two.Release(ctx))
}

// A second or late Release never gives back more than the hold took
// (Redisson #4086, #6343): it fails with ErrNotHeld and the count stays.
func TestReleaseOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newSem(t, p, 2)
	a := take(t, s, key, 1, strategytest.TTL)
	late := take(t, s, key, 1, 30*time.Millisecond)
	require.NoError(t, a.Release(ctx))
	require.ErrorIs(t, a.Release(ctx), strategy.ErrNotHeld)

	// late expires; two others take both permits; late's Release and
	// Refresh must free none of them.
	deadline := time.Now().Add(strategytest.Margin)
	for strategytest.Exists(t, p, key) {
		require.True(t, time.Now().Before(deadline), "the expired permit stayed")
		time.Sleep(2 * time.Millisecond)
	}
	b, c := take(t, s, key, 1, strategytest.TTL), take(t, s, key, 1, strategytest.TTL)
	require.ErrorIs(t, late.Release(ctx), strategy.ErrNotHeld)
	require.ErrorIs(t, late.Refresh(ctx, strategytest.TTL), strategy.ErrNotHeld)
	assert.Equal(t, 2, strategytest.ZCard(t, p, key))
	_, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "a late release raised the count")
	require.NoError(t, b.Release(ctx))
	require.NoError(t, c.Release(ctx))
}

// A late Refresh never takes a permit back (swarthy/redis-semaphore#175):
// the hold expired, so it fails and writes nothing, even with permits free.
func TestLateRefresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newSem(t, p, 3)
	l := take(t, s, key, 2, 30*time.Millisecond)
	strategytest.WaitGone(t, p, key)
	require.ErrorIs(t, l.Refresh(ctx, strategytest.TTL), strategy.ErrNotHeld)
	assert.False(t, strategytest.Exists(t, p, key), "a late Refresh took permits back")
	_, err := l.TTL(ctx)
	require.ErrorIs(t, err, strategy.ErrNotHeld)
}

// A holder that crashes gives its permits back within its TTL (Redisson
// #2045, #4462), by the server's clock; the others keep their own expiry.
func TestCrashReturnsPermits(t *testing.T) {
	t.Parallel()
	const ttl = 150 * time.Millisecond
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newSem(t, p, 2)
	live := take(t, s, key, 1, strategytest.TTL)
	liveScore, ok := strategytest.ZScore(t, p, key, live.Token()+":1")
	require.True(t, ok)
	now := strategytest.ServerMillis(t, p)
	assert.InDelta(t, now+strategytest.TTL.Milliseconds(), liveScore, float64(strategytest.Margin.Milliseconds()))
	start := time.Now()
	take(t, s, key, 1, ttl) // crashes: never released
	_, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)

	wctx, cancel := context.WithTimeout(ctx, ttl+strategytest.Margin)
	defer cancel()
	l, err := strategy.Acquire(wctx, s, key, strategytest.TTL, strategy.FixedInterval(2*time.Millisecond))
	require.NoError(t, err, "the crashed holder's permit did not come back")
	assert.GreaterOrEqual(t, time.Since(start), ttl-5*time.Millisecond, "the permit came back before its TTL")
	got, _ := strategytest.ZScore(t, p, key, live.Token()+":1")
	assert.Equal(t, liveScore, got, "the live holder's expiry moved")
	require.NoError(t, l.Release(ctx))
	require.NoError(t, live.Release(ctx))
}

// Refresh extends the hold's own permits only, never shortens them, and
// the key lives as long as the longest hold.
func TestRefreshOwnOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newSem(t, p, 4)
	a := take(t, s, key, 2, strategytest.TTL)
	b := take(t, s, key, 1, time.Second)
	aScore, _ := strategytest.ZScore(t, p, key, a.Token()+":2")
	require.NoError(t, b.Refresh(ctx, 5*time.Second))
	require.NoError(t, b.Refresh(ctx, time.Millisecond)) // never shortens
	left, err := b.TTL(ctx)
	require.NoError(t, err)
	assert.Greater(t, left, 4*time.Second)
	got, _ := strategytest.ZScore(t, p, key, a.Token()+":2")
	assert.Equal(t, aScore, got)
	require.NoError(t, a.Release(ctx))
	assert.LessOrEqual(t, strategytest.PTTL(t, p, key), int64(5000))
	require.NoError(t, b.Release(ctx))
}

// The key lives as long as its longest hold, whichever order the holds
// come and go in: a shorter hold taken later never shortens it, the
// release of another changes nothing, and the release of the longest
// (of one permit or several) fits it to the next. A score that is not a whole
// number of milliseconds (written by hand here; the scripts never write
// one) is fitted to as well.
func TestKeyFitsLongestHold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newSem(t, p, 4)
	long := take(t, s, key, 1, 10*time.Second)
	strategytest.RequireTTLNear(t, p, key, 10*time.Second)
	short := take(t, s, key, 2, time.Second)
	strategytest.RequireTTLNear(t, p, key, 10*time.Second)
	require.NoError(t, long.Release(ctx))
	strategytest.RequireTTLNear(t, p, key, time.Second)

	l := take(t, s, key, 1, 10*time.Second)
	strategytest.Do(t, p, "ZADD", key, fmt.Sprintf("%d.5", strategytest.ServerMillis(t, p)+5000), "by-hand")
	require.NoError(t, short.Release(ctx))
	strategytest.RequireTTLNear(t, p, key, 10*time.Second)
	require.NoError(t, l.Release(ctx))
	strategytest.RequireTTLNear(t, p, key, 5*time.Second)
	both := take(t, s, key, 2, 20*time.Second)
	strategytest.RequireTTLNear(t, p, key, 20*time.Second)
	require.NoError(t, both.Release(ctx))
	strategytest.RequireTTLNear(t, p, key, 5*time.Second)
}

// With WithNotify a release of n permits wakes n waiters at once.
func TestNotify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newSem(t, p, 2, semlua.WithNotify())
	both := take(t, s, key, 2, strategytest.TTL)
	type result struct {
		l   strategy.Lock
		err error
		at  time.Time
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			l, err := strategy.Acquire(wctx, s, key, strategytest.TTL, strategy.FixedInterval(time.Hour))
			results <- result{l, err, time.Now()}
		}()
	}
	time.Sleep(100 * time.Millisecond)
	released := time.Now()
	require.NoError(t, both.Release(ctx))
	for range 2 {
		r := <-results
		require.NoError(t, r.err)
		assert.Less(t, r.at.Sub(released), strategytest.Margin)
		require.NoError(t, r.l.Release(ctx))
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	for _, n := range []int{0, -1} {
		_, err := semlua.New(p, n)
		require.ErrorIs(t, err, semlua.ErrInvalidPermits)
	}
	s := newSem(t, p, 3)
	for _, n := range []int{0, -1, 4} {
		key := redistest.Key(t)
		_, err := s.TryAcquireN(ctx, key, n, strategytest.TTL)
		require.ErrorIs(t, err, semlua.ErrInvalidPermits, "n = %d", n)
		assert.False(t, strategytest.Exists(t, p, key))
	}
	_, err := s.TryAcquireN(ctx, "", 1, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrInvalidKey)
	_, err = s.TryAcquireN(ctx, redistest.Key(t), 1, 0)
	require.ErrorIs(t, err, strategy.ErrInvalidTTL)
	for _, opts := range [][]semlua.Option{
		{semlua.WithAutoRenew(-time.Second)},
		{semlua.WithMaxHold(time.Second)},
		{semlua.WithLeaseMargin(-time.Second)},
	} {
		_, err := semlua.New(p, 1, opts...)
		require.ErrorIs(t, err, semlua.ErrInvalidOption)
	}
}

// A renewing hold outlives its TTL while held and sends nothing once
// Release has returned.
func TestAutoRenew(t *testing.T) {
	t.Parallel()
	const ttl = 90 * time.Millisecond
	ctx := context.Background()
	p := redistest.Pool(t)
	rec := &strategytest.RecordPool{Pool: p}
	key := redistest.Key(t)
	s := newSem(t, rec, 2, semlua.WithAutoRenew(0))
	l := take(t, s, key, 2, ttl)
	lease, ok := l.Lease()
	require.True(t, ok)
	time.Sleep(4 * ttl)
	require.NoError(t, lease.Err(), "the lease ended: %v", context.Cause(lease))
	_, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "the renewed permits were lost")
	require.NoError(t, l.Release(ctx))
	require.ErrorIs(t, context.Cause(lease), semlua.ErrReleased)
	rec.Reset()
	time.Sleep(2 * ttl)
	assert.Empty(t, rec.Commands(), "commands sent after Release returned")
}

// The suite learns the kind from the interfaces.
func TestKind(t *testing.T) {
	assert.Equal(t, strategy.Semaphore, strategy.KindOf(newSem(t, redistest.Pool(t), 2)))
}
