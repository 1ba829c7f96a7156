package rwlua_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/rwlua"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

func newRW(tb testing.TB, p strategy.Pool, opts ...rwlua.Option) *rwlua.Strategy {
	tb.Helper()
	s, err := rwlua.New(p, opts...)
	require.NoError(tb, err)
	return s
}

// The writer's acquire is a mutex: every mutex test applies to it.
func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "rwlua", func(p strategy.Pool) (strategy.Strategy, error) {
		return rwlua.New(p)
	}, strategytest.WrongTypeError)
}

func read(t *testing.T, s *rwlua.Strategy, key string, ttl time.Duration) *rwlua.Lock {
	t.Helper()
	l, err := s.TryAcquireShared(context.Background(), key, ttl)
	require.NoError(t, err)
	return l.(*rwlua.Lock)
}

func write(t *testing.T, s *rwlua.Strategy, key string, ttl time.Duration) *rwlua.Lock {
	t.Helper()
	l, err := s.TryAcquire(context.Background(), key, ttl)
	require.NoError(t, err)
	return l.(*rwlua.Lock)
}

// Many readers hold the lock at once, each with its own member; a writer
// gets in only once the last has left.
func TestReadersShare(t *testing.T) {
	t.Parallel()
	const n = 32
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	var wg sync.WaitGroup
	locks := make([]strategy.Lock, n)
	errs := make([]error, n)
	for i := range n {
		s := newRW(t, p, rwlua.WithWriterIntent(0)) // a client each
		wg.Add(1)
		go func() {
			defer wg.Done()
			locks[i], errs[i] = s.TryAcquireShared(ctx, key, strategytest.TTL)
		}()
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i], "reader %d", i)
	}
	assert.Equal(t, n, strategytest.ZCard(t, p, key), "members of the set")

	w := newRW(t, p, rwlua.WithWriterIntent(0))
	_, err := w.TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "a writer entered among readers")
	assert.Contains(t, err.Error(), "readers hold it")
	for i, l := range locks {
		_, err := w.TryAcquire(ctx, key, strategytest.TTL)
		require.ErrorIs(t, err, strategy.ErrNotAcquired, "a writer entered with %d readers left", n-i)
		require.NoError(t, l.Release(ctx))
	}
	assert.False(t, strategytest.Exists(t, p, key), "the last release left the set")
	require.NoError(t, write(t, w, key, strategytest.TTL).Release(ctx))
}

// A writer keeps readers and writers out, whoever they are.
func TestWriterExcludes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	// Readers first: no intent outlives the writer (TestWriterProgress
	// has them).
	s, other := newRW(t, p, rwlua.WithWriterIntent(0)), newRW(t, p, rwlua.WithWriterIntent(0))
	wl := write(t, s, key, strategytest.TTL)
	for _, c := range []*rwlua.Strategy{s, other} {
		_, err := c.TryAcquire(ctx, key, strategytest.TTL)
		require.ErrorIs(t, err, strategy.ErrNotAcquired)
		_, err = c.TryAcquireShared(ctx, key, strategytest.TTL)
		require.ErrorIs(t, err, strategy.ErrNotAcquired)
	}
	require.NoError(t, wl.Release(ctx))
	r := read(t, other, key, strategytest.TTL)
	require.NoError(t, r.Release(ctx))
}

// Each reader's hold expires, refreshes and is released alone: another's
// release or refresh never moves it (Redisson #2144, #1604, PR#7098), and
// the key lives as long as the longest hold.
func TestReaderHoldsIndependent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newRW(t, p)
	long := read(t, s, key, 10*time.Second)
	longScore, ok := strategytest.ZScore(t, p, key, "r:"+long.Token())
	require.True(t, ok)
	now := strategytest.ServerMillis(t, p)
	assert.InDelta(t, now+10_000, longScore, float64(strategytest.Margin.Milliseconds()), "the expiry is not the server's time + TTL")

	short := read(t, s, key, 200*time.Millisecond)
	requireScore(t, p, key, long, longScore)
	assert.Greater(t, strategytest.PTTL(t, p, key), int64(9000), "a short reader shortened the key")

	require.NoError(t, short.Refresh(ctx, 300*time.Millisecond))
	requireScore(t, p, key, long, longScore)
	require.NoError(t, short.Release(ctx))
	requireScore(t, p, key, long, longScore)
	assert.Greater(t, strategytest.PTTL(t, p, key), int64(9000), "a reader's release shortened the key")

	// The other way: the long reader leaves, the short one keeps its own
	// time, and the key now lives as long as it.
	short = read(t, s, key, 5*time.Second)
	shortScore, _ := strategytest.ZScore(t, p, key, "r:"+short.Token())
	require.NoError(t, long.Release(ctx))
	requireScore(t, p, key, short, shortScore)
	left := strategytest.PTTL(t, p, key)
	assert.LessOrEqual(t, left, int64(5000))
	assert.Greater(t, left, int64(5000)-strategytest.Margin.Milliseconds())
	ttl, err := short.TTL(ctx)
	require.NoError(t, err)
	assert.InDelta(t, left, ttl.Milliseconds(), 50)
	require.NoError(t, short.Release(ctx))
}

func requireScore(t *testing.T, p *redis.Pool, key string, l *rwlua.Lock, want int64) {
	t.Helper()
	got, ok := strategytest.ZScore(t, p, key, "r:"+l.Token())
	require.True(t, ok, "reader %s is gone", l.Token())
	require.Equal(t, want, got, "reader %s's expiry moved", l.Token())
}

// A holder that crashes (never releases) frees the lock within its TTL:
// the key expires with its last member, and the scripts prune the member
// by the server's clock before that.
func TestCrashFreesWithinTTL(t *testing.T) {
	t.Parallel()
	const ttl = 150 * time.Millisecond
	p := redistest.Pool(t)
	for _, c := range []struct {
		name  string
		crash func(s *rwlua.Strategy, key string)
	}{
		{"Reader", func(s *rwlua.Strategy, key string) { read(t, s, key, ttl) }},
		{"Writer", func(s *rwlua.Strategy, key string) { write(t, s, key, ttl) }},
	} {
		key := redistest.Key(t) + c.name
		s := newRW(t, p)
		start := time.Now()
		c.crash(s, key)
		assert.LessOrEqual(t, strategytest.PTTL(t, p, key), ttl.Milliseconds())
		ctx, cancel := context.WithTimeout(context.Background(), ttl+strategytest.Margin)
		l, err := strategy.Acquire(ctx, newRW(t, p), key, strategytest.TTL, strategy.FixedInterval(2*time.Millisecond))
		cancel()
		require.NoError(t, err, "%s: the crashed hold did not expire", c.name)
		assert.GreaterOrEqual(t, time.Since(start), ttl-5*time.Millisecond, "%s: the lock was taken before the hold's TTL", c.name)
		require.NoError(t, l.Release(context.Background()))
	}
}

// A late Refresh or Release of a hold that expired fails with ErrNotHeld
// and writes nothing: it neither takes the lock back nor touches the
// holder that came since (swarthy/redis-semaphore#175, Redisson #4086).
func TestLateRefreshAndRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newRW(t, p)
	r := read(t, s, key, 30*time.Millisecond)
	w := write(t, s, key+"w", 30*time.Millisecond)
	strategytest.WaitGone(t, p, key)
	strategytest.WaitGone(t, p, key+"w")

	for _, l := range []*rwlua.Lock{r, w} {
		require.ErrorIs(t, l.Refresh(ctx, strategytest.TTL), strategy.ErrNotHeld)
		assert.False(t, strategytest.Exists(t, p, l.Key()), "a late Refresh took the lock back")
		_, err := l.TTL(ctx)
		require.ErrorIs(t, err, strategy.ErrNotHeld)
	}

	// Someone else's lock now: a writer on key, readers on key+"w".
	w2 := write(t, s, key, strategytest.TTL)
	r2 := read(t, newRW(t, p, rwlua.WithWriterIntent(0)), key+"w", strategytest.TTL)
	for _, l := range []*rwlua.Lock{r, w} {
		require.ErrorIs(t, l.Refresh(ctx, strategytest.TTL), strategy.ErrNotHeld)
		require.ErrorIs(t, l.Release(ctx), strategy.ErrNotHeld)
	}
	assert.Equal(t, 1, strategytest.ZCard(t, p, key))
	assert.Equal(t, 1, strategytest.ZCard(t, p, key+"w"))
	require.NoError(t, w2.Refresh(ctx, strategytest.TTL))
	require.NoError(t, w2.Release(ctx))
	require.NoError(t, r2.Release(ctx))
}

// A second Release fails with ErrNotHeld and removes nobody else's hold.
func TestDoubleRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newRW(t, p)
	a, b := read(t, s, key, strategytest.TTL), read(t, s, key, strategytest.TTL)
	require.NoError(t, a.Release(ctx))
	require.ErrorIs(t, a.Release(ctx), strategy.ErrNotHeld)
	assert.Equal(t, 1, strategytest.ZCard(t, p, key))
	require.NoError(t, b.Refresh(ctx, strategytest.TTL))
	require.NoError(t, b.Release(ctx))
	require.ErrorIs(t, b.Release(ctx), strategy.ErrNotHeld)
}

// Writers first: once a writer's attempt has failed, no new reader enters,
// and the writer gets in at its first attempt after the readers that held
// the lock have left, however many readers keep coming. Readers first, the
// same chain of overlapping readers keeps the writer out for as long as it
// lasts. Each round: the writer tries, a new reader tries, the oldest
// reader leaves.
func TestWriterProgress(t *testing.T) {
	t.Parallel()
	const rounds = 50
	ctx := context.Background()
	p := redistest.Pool(t)
	for _, c := range []struct {
		name   string
		intent time.Duration
		wantIn int // the round the writer gets in at; 0: never
	}{
		{"WritersFirst", rwlua.DefaultWriterIntent, 2},
		{"ReadersFirst", 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			key := redistest.Key(t)
			writer, readers := newRW(t, p, rwlua.WithWriterIntent(c.intent)), newRW(t, p, rwlua.WithWriterIntent(c.intent))
			held := []strategy.Lock{read(t, readers, key, strategytest.TTL)}
			in := 0
			for round := 1; round <= rounds && in == 0; round++ {
				w, err := writer.TryAcquire(ctx, key, strategytest.TTL)
				if err == nil {
					in = round
					assert.Empty(t, held, "the writer entered among readers")
					require.NoError(t, w.Release(ctx))
					break
				}
				require.ErrorIs(t, err, strategy.ErrNotAcquired)
				r, err := readers.TryAcquireShared(ctx, key, strategytest.TTL)
				if err == nil {
					held = append(held, r)
				} else {
					require.ErrorIs(t, err, strategy.ErrNotAcquired)
					assert.Contains(t, err.Error(), "a writer waits")
				}
				if len(held) > 0 {
					require.NoError(t, held[0].Release(ctx))
					held = held[1:]
				}
			}
			assert.Equal(t, c.wantIn, in, "the round the writer got in at")
			for _, l := range held {
				require.NoError(t, l.Release(ctx))
			}
		})
	}
}

// The same under real concurrency: readers keep coming from goroutines,
// each holding for a while and overlapping the others; the writer, waiting
// with Acquire and woken by notifications, gets in within the readers'
// hold plus its retry interval, well inside the bound checked.
func TestWriterProgressConcurrent(t *testing.T) {
	t.Parallel()
	const (
		readers = 8
		hold    = 20 * time.Millisecond
	)
	p := redistest.Pool(t)
	key := redistest.Key(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for range readers {
		s := newRW(t, p, rwlua.WithNotify())
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				l, err := strategy.Acquire(ctx, strategy.Reader(s), key, strategytest.TTL, strategy.FixedInterval(time.Millisecond))
				if err != nil {
					return
				}
				time.Sleep(hold)
				_ = l.Release(context.Background())
			}
		}()
	}
	// Let the readers overlap first.
	deadline := time.Now().Add(strategytest.Margin)
	for strategytest.ZCard(t, p, key) < 2 {
		require.True(t, time.Now().Before(deadline), "the readers never overlapped")
		time.Sleep(time.Millisecond)
	}
	w := newRW(t, p, rwlua.WithNotify())
	start := time.Now()
	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	l, err := strategy.Acquire(wctx, w, key, strategytest.TTL, strategy.FixedInterval(5*time.Millisecond))
	require.NoError(t, err, "the writer starved")
	waited := time.Since(start)
	t.Logf("the writer waited %v", waited)
	assert.Less(t, waited, hold+strategytest.Margin)
	first, err := redis.Strings(strategytest.Do(t, p, "ZRANGE", key, 0, -1), nil)
	require.NoError(t, err)
	assert.Len(t, first, 1, "readers beside the writer")
	require.NoError(t, l.Release(context.Background()))
	cancel()
	wg.Wait()
}

// With WithNotify the release that leaves the lock free wakes every
// waiter: a writer waiting for readers, readers waiting for a writer.
func TestNotify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newRW(t, p, rwlua.WithNotify(), rwlua.WithWriterIntent(0))
	w := write(t, s, key, strategytest.TTL)

	const waiters = 3
	type result struct {
		l   strategy.Lock
		err error
		at  time.Time
	}
	results := make(chan result, waiters)
	for range waiters {
		go func() {
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			l, err := strategy.Acquire(wctx, strategy.Reader(s), key, strategytest.TTL, strategy.FixedInterval(time.Hour))
			results <- result{l, err, time.Now()}
		}()
	}
	// Wait until all three subscribed and failed once: the Acquires then
	// sleep an hour unless woken.
	time.Sleep(100 * time.Millisecond)
	released := time.Now()
	require.NoError(t, w.Release(ctx))
	var locks []strategy.Lock
	for range waiters {
		r := <-results
		require.NoError(t, r.err)
		assert.Less(t, r.at.Sub(released), strategytest.Margin)
		locks = append(locks, r.l)
	}

	// And a writer waiting for the readers wakes when the last leaves.
	done := make(chan result, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		l, err := strategy.Acquire(wctx, s, key, strategytest.TTL, strategy.FixedInterval(time.Hour))
		done <- result{l, err, time.Now()}
	}()
	time.Sleep(100 * time.Millisecond)
	for _, l := range locks {
		require.NoError(t, l.Release(ctx))
	}
	released = time.Now()
	r := <-done
	require.NoError(t, r.err)
	assert.Less(t, r.at.Sub(released), strategytest.Margin)
	require.NoError(t, r.l.Release(ctx))
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	s := newRW(t, p)
	_, err := s.TryAcquireShared(ctx, "", strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrInvalidKey)
	_, err = s.TryAcquireShared(ctx, redistest.Key(t), time.Millisecond-1)
	require.ErrorIs(t, err, strategy.ErrInvalidTTL)
	l := read(t, s, redistest.Key(t), strategytest.TTL)
	require.ErrorIs(t, l.Refresh(ctx, 0), strategy.ErrInvalidTTL)
	require.NoError(t, l.Release(ctx))

	for _, opts := range [][]rwlua.Option{
		{rwlua.WithWriterIntent(-time.Second)},
		{rwlua.WithWriterIntent(time.Microsecond)},
		{rwlua.WithAutoRenew(-time.Second)},
		{rwlua.WithMaxHold(time.Second)},
		{rwlua.WithAutoRenew(0), rwlua.WithMaxHold(0)},
		{rwlua.WithLeaseMargin(-time.Second)},
	} {
		_, err := rwlua.New(p, opts...)
		require.ErrorIs(t, err, rwlua.ErrInvalidOption)
	}
	_, err = newRW(t, p, rwlua.WithAutoRenew(time.Second)).TryAcquireShared(ctx, redistest.Key(t), time.Second)
	require.ErrorIs(t, err, strategy.ErrInvalidTTL)
}

// A renewing hold outlives its TTL while held, renews its own member only,
// and sends nothing once Release has returned (Redisson PR#7251).
func TestAutoRenew(t *testing.T) {
	t.Parallel()
	const ttl = 90 * time.Millisecond
	ctx := context.Background()
	p := redistest.Pool(t)
	rec := &strategytest.RecordPool{Pool: p}
	key := redistest.Key(t)
	s := newRW(t, rec, rwlua.WithAutoRenew(0))
	other := read(t, newRW(t, p), key, strategytest.TTL)
	otherScore, _ := strategytest.ZScore(t, p, key, "r:"+other.Token())
	l := read(t, s, key, ttl)
	lease, ok := l.Lease()
	require.True(t, ok)
	time.Sleep(4 * ttl)
	require.NoError(t, lease.Err(), "the lease ended: %v", context.Cause(lease))
	left, err := l.TTL(ctx)
	require.NoError(t, err, "the hold expired though renewed")
	assert.Greater(t, left, time.Duration(0))
	requireScore(t, p, key, other, otherScore)

	require.NoError(t, l.Release(ctx))
	require.ErrorIs(t, context.Cause(lease), rwlua.ErrReleased)
	rec.Reset()
	time.Sleep(2 * ttl)
	assert.Empty(t, rec.Commands(), "commands sent after Release returned")
	require.NoError(t, other.Release(ctx))
}

// The suite learns the kind from the interfaces.
func TestKind(t *testing.T) {
	assert.Equal(t, strategy.ReadWrite, strategy.KindOf(newRW(t, redistest.Pool(t))))
}

// A renewal that finds the hold gone ends the lease as lost, and leaves
// the other holders alone.
func TestLeaseLost(t *testing.T) {
	t.Parallel()
	const ttl = 90 * time.Millisecond
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	other := read(t, newRW(t, p), key, strategytest.TTL)
	l := read(t, newRW(t, p, rwlua.WithAutoRenew(0)), key, ttl)
	lease, _ := l.Lease()
	strategytest.Do(t, p, "ZREM", key, "r:"+l.Token())
	select {
	case <-lease.Done():
	case <-time.After(ttl + strategytest.Margin):
		t.Fatal("the lease outlived its hold")
	}
	cause := context.Cause(lease)
	require.ErrorIs(t, cause, rwlua.ErrLeaseLost)
	require.ErrorIs(t, cause, strategy.ErrNotHeld)
	var le *rwlua.LeaseError
	require.ErrorAs(t, cause, &le)
	assert.Equal(t, "rwlua", le.Strategy)
	require.ErrorIs(t, l.Refresh(ctx, ttl), strategy.ErrNotHeld)
	require.ErrorIs(t, l.Release(ctx), strategy.ErrNotHeld)
	assert.Equal(t, 1, strategytest.ZCard(t, p, key), "the other reader went")
	require.NoError(t, other.Release(ctx))
}
