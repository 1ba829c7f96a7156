// Package strategytest holds the tests that every lock strategy must pass,
// against a real Redis server from package redistest, and helpers for the
// tests that only one strategy needs.
//
// A strategy's test file runs the common tests with one line:
//
//	func TestBasic(t *testing.T) {
//		strategytest.RunBasic(t, "setnxdel", newStrategy, strategytest.WrongTypeNotAcquired)
//	}
package strategytest

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// NewFunc makes a strategy on a pool: the package's New, with the result
// converted to the interface.
type NewFunc func(p strategy.Pool) (strategy.Strategy, error)

// WrongType is what TryAcquire does on a key that holds a value of another
// type than a string.
type WrongType int

const (
	// WrongTypeNotAcquired: the key counts as taken, as SETNX and SET NX
	// see any existing key.
	WrongTypeNotAcquired WrongType = iota + 1
	// WrongTypeError: the attempt fails with the WRONGTYPE error of a
	// command that reads the key as a string.
	WrongTypeError
)

// RunBasic runs the tests every strategy must pass as subtests of t: one
// lock per key, a single winner among racing clients, waiting with each
// retry policy, bad input, an unreachable Redis, and a key of another type.
// name is the strategy's name as its errors report it.
func RunBasic(t *testing.T, name string, newStrategy NewFunc, wrongType WrongType) {
	runBasic(t, &basic{name: name, new: newStrategy, wrongType: wrongType})
}

// RunBasicNoFree is RunBasic for a lock whose Release never frees it, as
// multiget's, copied from a document whose release deletes nothing: where
// RunBasic checks that a release frees the lock, it checks that the lock
// stays taken, and the waiters wait for the holder's TTL instead.
func RunBasicNoFree(t *testing.T, name string, newStrategy NewFunc, wrongType WrongType) {
	runBasic(t, &basic{name: name, new: newStrategy, wrongType: wrongType, noFree: true})
}

// noFreeTTL is the holder's TTL where a waiter must wait for it to expire.
const noFreeTTL = 300 * time.Millisecond

func runBasic(t *testing.T, b *basic) {
	t.Run("AcquireHoldRelease", b.acquireHoldRelease)
	t.Run("OneWinner", b.oneWinner)
	t.Run("Wait", b.wait)
	t.Run("BadInput", b.badInput)
	t.Run("Unreachable", b.unreachable)
	t.Run("WrongType", b.wrongTypeKey)
}

type basic struct {
	name      string
	new       NewFunc
	wrongType WrongType
	noFree    bool // Release leaves the lock to its TTL
}

func (b *basic) strategy(t *testing.T, p strategy.Pool) strategy.Strategy {
	t.Helper()
	s, err := b.new(p)
	require.NoError(t, err)
	require.NotNil(t, s)
	return s
}

// Counting counts the attempts made through it and, when Tried is set,
// sends the count there after each attempt (without blocking).
type Counting struct {
	strategy.Strategy
	Tried chan int64
	n     atomic.Int64
}

// TryAcquire implements strategy.Strategy.
func (c *Counting) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	l, err := c.Strategy.TryAcquire(ctx, key, ttl)
	n := c.n.Add(1)
	if c.Tried != nil {
		select {
		case c.Tried <- n:
		default:
		}
	}
	return l, err
}

// Attempts returns the number of attempts made so far.
func (c *Counting) Attempts() int64 { return c.n.Load() }

// RequireOpError checks that err is an *strategy.OpError of strategy name
// on key, and returns it.
func RequireOpError(t testing.TB, err error, name, key string) *strategy.OpError {
	t.Helper()
	var oe *strategy.OpError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, name, oe.Strategy)
	assert.Equal(t, key, oe.Key)
	return oe
}

// IsTimeout reports whether err is a context deadline or a network timeout.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

func (b *basic) acquireHoldRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, other := b.strategy(t, p), b.strategy(t, p)

	lock, err := s.TryAcquire(ctx, key, TTL)
	require.NoError(t, err)
	require.NotNil(t, lock)
	assert.Equal(t, key, lock.Key())
	assert.True(t, Exists(t, p, key), "the lock key was not written")

	// Neither the same client nor another one gets the held lock.
	for _, c := range []strategy.Strategy{s, other} {
		l, err := c.TryAcquire(ctx, key, TTL)
		require.ErrorIs(t, err, strategy.ErrNotAcquired)
		assert.Nil(t, l)
		assert.Contains(t, err.Error(), b.name)
	}

	require.NoError(t, lock.Release(ctx))
	if b.noFree {
		assert.True(t, Exists(t, p, key), "Release deleted the lock key")
		_, err = other.TryAcquire(ctx, key, TTL)
		require.ErrorIs(t, err, strategy.ErrNotAcquired, "the lock freed on release")
		return
	}
	assert.False(t, Exists(t, p, key), "Release left the lock key")

	lock, err = other.TryAcquire(ctx, key, TTL)
	require.NoError(t, err, "the released lock cannot be acquired again")
	assert.Equal(t, key, lock.Key())
	require.NoError(t, lock.Release(ctx))
}

func (b *basic) oneWinner(t *testing.T) {
	t.Parallel()
	const n = 100
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)

	var (
		ready, done sync.WaitGroup
		start       = make(chan struct{})
		locks       = make([]strategy.Lock, n)
		errs        = make([]error, n)
	)
	for i := range n {
		s := b.strategy(t, p) // a client each
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			locks[i], errs[i] = s.TryAcquire(ctx, key, TTL)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()

	var winners []strategy.Lock
	for i := range n {
		if errs[i] != nil {
			require.ErrorIs(t, errs[i], strategy.ErrNotAcquired, "client %d", i)
			continue
		}
		require.NotNil(t, locks[i])
		winners = append(winners, locks[i])
	}
	require.Len(t, winners, 1, "clients that got the lock")
	require.NoError(t, winners[0].Release(ctx))
}

type policy struct {
	name string
	r    strategy.Retry
}

// waitPolicies wait for a release: each retries for far longer than the
// tests take.
var waitPolicies = []policy{
	{"FixedInterval", strategy.FixedInterval(5 * time.Millisecond)},
	{"Backoff", strategy.Backoff(time.Millisecond, 20*time.Millisecond)},
	{"LimitTries", strategy.LimitTries(strategy.FixedInterval(5*time.Millisecond), 1_000_000)},
}

func (b *basic) wait(t *testing.T) {
	for _, pol := range waitPolicies {
		t.Run("UntilReleased/"+pol.name, func(t *testing.T) { b.untilReleased(t, pol.r) })
	}
	deadlinePolicies := append(waitPolicies[:len(waitPolicies):len(waitPolicies)],
		policy{"FixedHour", strategy.FixedInterval(time.Hour)},
		policy{"BackoffHour", strategy.Backoff(time.Hour, 2*time.Hour)})
	for _, pol := range deadlinePolicies {
		t.Run("UntilDeadline/"+pol.name, func(t *testing.T) { b.untilDeadline(t, pol.r) })
	}
	t.Run("NoRetry", func(t *testing.T) { b.oneTry(t, strategy.NoRetry()) })
	t.Run("NilRetry", func(t *testing.T) { b.oneTry(t, nil) })
	t.Run("LimitTries3", b.limitTries3)
	t.Run("Cancel", b.cancel)
}

// hold takes the lock on key for the test, released at cleanup.
func (b *basic) hold(t *testing.T, p strategy.Pool, key string) strategy.Lock {
	t.Helper()
	return b.holdFor(t, p, key, TTL)
}

// holdFor takes the lock on key for ttl.
func (b *basic) holdFor(t *testing.T, p strategy.Pool, key string, ttl time.Duration) strategy.Lock {
	t.Helper()
	lock, err := b.strategy(t, p).TryAcquire(context.Background(), key, ttl)
	require.NoError(t, err)
	return lock
}

// untilReleased: a waiter gets the lock once the holder releases it, or,
// for a lock whose release does not free it, once the holder's TTL is over.
func (b *basic) untilReleased(t *testing.T, r strategy.Retry) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	ttl := TTL
	if b.noFree {
		ttl = noFreeTTL
	}
	holder := b.holdFor(t, p, key, ttl)

	type release struct {
		at  time.Time
		err error
	}
	released := make(chan release, 1)
	timer := time.AfterFunc(100*time.Millisecond, func() {
		at := time.Now()
		released <- release{at, holder.Release(context.Background())}
	})
	defer timer.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &Counting{Strategy: b.strategy(t, p)}
	lock, err := strategy.Acquire(ctx, c, key, TTL, r)
	got := time.Now()
	require.NoError(t, err)
	rel := <-released
	require.NoError(t, rel.err)
	assert.True(t, got.After(rel.at), "Acquire returned %v before the release", rel.at.Sub(got))
	assert.Greater(t, c.Attempts(), int64(1), "Acquire did not retry")
	assert.Equal(t, key, lock.Key())
	require.NoError(t, lock.Release(ctx))
}

func (b *basic) untilDeadline(t *testing.T, r strategy.Retry) {
	t.Parallel()
	const timeout = 150 * time.Millisecond
	p := redistest.Pool(t)
	key := redistest.Key(t)
	holder := b.hold(t, p, key)

	c := &Counting{Strategy: b.strategy(t, p)}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	lock, err := strategy.Acquire(ctx, c, key, TTL, r)
	elapsed := time.Since(start)
	assert.Nil(t, lock)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.GreaterOrEqual(t, elapsed, timeout)
	assert.Less(t, elapsed, timeout+Margin)
	assert.GreaterOrEqual(t, c.Attempts(), int64(1))
	require.NoError(t, holder.Release(context.Background()), "the waiter broke the holder's lock")
}

func (b *basic) oneTry(t *testing.T, r strategy.Retry) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	holder := b.hold(t, p, key)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &Counting{Strategy: b.strategy(t, p)}
	start := time.Now()
	lock, err := strategy.Acquire(ctx, c, key, TTL, r)
	assert.Less(t, time.Since(start), Margin)
	assert.Nil(t, lock)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.NoError(t, ctx.Err())
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, int64(1), c.Attempts())
	require.NoError(t, holder.Release(context.Background()))
}

func (b *basic) limitTries3(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	holder := b.hold(t, p, key)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &Counting{Strategy: b.strategy(t, p)}
	lock, err := strategy.Acquire(ctx, c, key, TTL, strategy.LimitTries(strategy.FixedInterval(time.Millisecond), 3))
	assert.Nil(t, lock)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, int64(3), c.Attempts())
	require.NoError(t, holder.Release(context.Background()))
}

func (b *basic) cancel(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	holder := b.hold(t, p, key)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &Counting{Strategy: b.strategy(t, p), Tried: make(chan int64, 1)}
	type result struct {
		lock strategy.Lock
		err  error
	}
	done := make(chan result, 1)
	go func() {
		l, err := strategy.Acquire(ctx, c, key, TTL, strategy.FixedInterval(time.Hour))
		done <- result{l, err}
	}()
	<-c.Tried // the first attempt failed; Acquire now waits an hour
	cancelled := time.Now()
	cancel()
	var res result
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Acquire did not return after its context was cancelled")
	}
	assert.Less(t, time.Since(cancelled), Margin)
	assert.Nil(t, res.lock)
	require.ErrorIs(t, res.err, strategy.ErrNotAcquired)
	require.ErrorIs(t, res.err, context.Canceled)
	assert.Equal(t, int64(1), c.Attempts())
	require.NoError(t, holder.Release(context.Background()))
}

func (b *basic) badInput(t *testing.T) {
	t.Run("EmptyKey", func(t *testing.T) {
		t.Parallel()
		s := b.strategy(t, redistest.Pool(t))
		l, err := s.TryAcquire(context.Background(), "", TTL)
		assert.Nil(t, l)
		require.ErrorIs(t, err, strategy.ErrInvalidKey)
		assert.Contains(t, err.Error(), b.name)
		_, err = strategy.Acquire(context.Background(), s, "", TTL, strategy.FixedInterval(time.Millisecond))
		require.ErrorIs(t, err, strategy.ErrInvalidKey)
	})
	t.Run("TTL", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		p := redistest.Pool(t)
		s := b.strategy(t, p)
		for _, ttl := range []time.Duration{0, -time.Second, 500 * time.Microsecond, time.Millisecond - 1} {
			key := redistest.Key(t)
			l, err := s.TryAcquire(ctx, key, ttl)
			assert.Nil(t, l, "ttl %v", ttl)
			require.ErrorIs(t, err, strategy.ErrInvalidTTL, "ttl %v", ttl)
			_, err = strategy.Acquire(ctx, s, key, ttl, strategy.FixedInterval(time.Millisecond))
			require.ErrorIs(t, err, strategy.ErrInvalidTTL, "ttl %v", ttl)
			assert.False(t, Exists(t, p, key), "ttl %v: the key was written", ttl)
		}
		// One millisecond is the smallest TTL, and valid.
		l, err := s.TryAcquire(ctx, redistest.Key(t), time.Millisecond)
		require.NoError(t, err)
		_ = l.Release(ctx) // may have expired: only the acquire matters
	})
	t.Run("NilPool", func(t *testing.T) {
		t.Parallel()
		for _, p := range []strategy.Pool{nil, (*redis.Pool)(nil)} {
			s, err := b.new(p)
			require.ErrorIs(t, err, strategy.ErrNilPool, "pool %#v", p)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), b.name)
		}
	})
}

func (b *basic) unreachable(t *testing.T) {
	t.Run("Refused", func(t *testing.T) {
		t.Parallel()
		key := redistest.Key(t)
		s := b.strategy(t, PoolTo(t, ClosedPort(t)))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()

		start := time.Now()
		l, err := s.TryAcquire(ctx, key, TTL)
		assert.Less(t, time.Since(start), Margin)
		assert.Nil(t, l)
		RequireOpError(t, err, b.name, key)
		var ne *net.OpError
		require.ErrorAs(t, err, &ne)
		assert.Equal(t, "dial", ne.Op)
		assert.NotErrorIs(t, err, strategy.ErrNotAcquired)

		// Acquire does not retry what is not a held lock.
		c := &Counting{Strategy: s}
		_, err = strategy.Acquire(ctx, c, key, TTL, strategy.FixedInterval(time.Millisecond))
		RequireOpError(t, err, b.name, key)
		assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
		assert.Equal(t, int64(1), c.Attempts())
	})
	timesOut := func(t *testing.T, addr string) {
		t.Parallel()
		const timeout = 200 * time.Millisecond
		key := redistest.Key(t)
		s := b.strategy(t, PoolTo(t, addr))
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		l, err := s.TryAcquire(ctx, key, TTL)
		elapsed := time.Since(start)
		assert.Nil(t, l)
		RequireOpError(t, err, b.name, key)
		assert.True(t, IsTimeout(err), "not a timeout: %v", err)
		assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
		assert.GreaterOrEqual(t, elapsed, timeout, "the server answered")
		assert.Less(t, elapsed, timeout+Margin)

		// Acquire gives up at the deadline and keeps the cause.
		start = time.Now()
		ctx, cancel = context.WithTimeout(context.Background(), timeout)
		defer cancel()
		l, err = strategy.Acquire(ctx, s, key, TTL, strategy.FixedInterval(time.Millisecond))
		elapsed = time.Since(start)
		assert.Nil(t, l)
		require.ErrorIs(t, err, strategy.ErrNotAcquired)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		RequireOpError(t, err, b.name, key)
		assert.GreaterOrEqual(t, elapsed, timeout, "the server answered")
		assert.Less(t, elapsed, timeout+Margin)
	}
	t.Run("DialHangs", func(t *testing.T) { timesOut(t, HangingAddr(t)) })
	t.Run("NoAnswer", func(t *testing.T) { timesOut(t, SilentServer(t)) })

	t.Run("Release", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		up := redistest.Pool(t)
		key := redistest.Key(t)
		sp := &SwitchPool{Up: up, Dead: PoolTo(t, ClosedPort(t))}
		lock, err := b.strategy(t, sp).TryAcquire(ctx, key, TTL)
		require.NoError(t, err)

		sp.Down.Store(true)
		err = lock.Release(ctx)
		RequireOpError(t, err, b.name, key)
		var ne *net.OpError
		require.ErrorAs(t, err, &ne)
		assert.NotErrorIs(t, err, strategy.ErrNotHeld)
		assert.True(t, Exists(t, up, key))

		sp.Down.Store(false)
		require.NoError(t, lock.Release(ctx))
		assert.Equal(t, b.noFree, Exists(t, up, key), "whether the lock key is left after Release")
	})
	t.Run("ReleaseNoAnswer", func(t *testing.T) {
		t.Parallel()
		const timeout = 200 * time.Millisecond
		up := redistest.Pool(t)
		key := redistest.Key(t)
		sp := &SwitchPool{Up: up, Dead: PoolTo(t, SilentServer(t))}
		lock, err := b.strategy(t, sp).TryAcquire(context.Background(), key, TTL)
		require.NoError(t, err)

		sp.Down.Store(true)
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		err = lock.Release(ctx)
		elapsed := time.Since(start)
		RequireOpError(t, err, b.name, key)
		assert.True(t, IsTimeout(err), "not a timeout: %v", err)
		assert.GreaterOrEqual(t, elapsed, timeout, "the server answered")
		assert.Less(t, elapsed, timeout+Margin)
		assert.True(t, Exists(t, up, key))

		sp.Down.Store(false)
		require.NoError(t, lock.Release(context.Background()))
	})
}

func (b *basic) wrongTypeKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	Do(t, p, "RPUSH", key, "x")
	s := b.strategy(t, p)

	l, err := s.TryAcquire(ctx, key, TTL)
	assert.Nil(t, l, "a key of another type was reported acquired")
	c := &Counting{Strategy: s}
	_, aerr := strategy.Acquire(ctx, c, key, TTL, strategy.LimitTries(strategy.FixedInterval(time.Millisecond), 3))
	switch b.wrongType {
	case WrongTypeNotAcquired:
		require.ErrorIs(t, err, strategy.ErrNotAcquired)
		require.ErrorIs(t, aerr, strategy.ErrNotAcquired)
		assert.Equal(t, int64(3), c.Attempts(), "Acquire should wait for a taken key")
	case WrongTypeError:
		for _, e := range []error{err, aerr} {
			RequireOpError(t, e, b.name, key)
			var re redis.Error
			require.ErrorAs(t, e, &re)
			assert.Contains(t, re.Error(), "WRONGTYPE")
			assert.NotErrorIs(t, e, strategy.ErrNotAcquired)
		}
		assert.Equal(t, int64(1), c.Attempts(), "Acquire retried an error")
	default:
		t.Fatalf("unknown WrongType %d", b.wrongType)
	}

	// The list is left as it was.
	typ, err := redis.String(Do(t, p, "TYPE", key), nil)
	require.NoError(t, err)
	assert.Equal(t, "list", typ)
	items, err := redis.Strings(Do(t, p, "LRANGE", key, 0, -1), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"x"}, items)
	assert.Equal(t, int64(-1), PTTL(t, p, key))
}
