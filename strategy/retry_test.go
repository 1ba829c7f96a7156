package strategy_test

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNoRetry(t *testing.T) {
	for _, failed := range []int{1, 2, 100} {
		_, again := strategy.NoRetry().Delay(failed)
		assert.False(t, again)
	}
}

func TestFixedInterval(t *testing.T) {
	for _, tc := range []struct{ d, want time.Duration }{
		{20 * time.Millisecond, 20 * time.Millisecond},
		{time.Millisecond, time.Millisecond},
		{0, time.Millisecond},
		{time.Microsecond, time.Millisecond},
		{-time.Second, time.Millisecond},
	} {
		r := strategy.FixedInterval(tc.d)
		for _, failed := range []int{1, 2, 10, 1000} {
			d, again := r.Delay(failed)
			assert.True(t, again)
			assert.Equal(t, tc.want, d, "FixedInterval(%v).Delay(%d)", tc.d, failed)
		}
	}
}

func TestBackoff(t *testing.T) {
	const (
		lo      = 10 * time.Millisecond
		hi      = 80 * time.Millisecond
		samples = 200
	)
	r := strategy.Backoff(lo, hi)
	// The n-th delay is drawn from [d/2, d], d = lo·2^(n-1) capped at hi.
	ceilings := []time.Duration{10, 20, 40, 80, 80, 80}
	var prevMax time.Duration
	for i, ceil := range ceilings {
		failed, ceil := i+1, ceil*time.Millisecond
		seen := map[time.Duration]bool{}
		var lowest, highest time.Duration = math.MaxInt64, 0
		for range samples {
			d, again := r.Delay(failed)
			require.True(t, again)
			require.GreaterOrEqual(t, d, ceil/2, "delay %d", failed)
			require.LessOrEqual(t, d, ceil, "delay %d", failed)
			require.LessOrEqual(t, d, hi)
			seen[d] = true
			lowest, highest = min(lowest, d), max(highest, d)
		}
		assert.Greater(t, len(seen), 1, "delay %d has no jitter", failed)
		if ceil < hi {
			// Delays grow: each one is at least the largest before it.
			assert.GreaterOrEqual(t, lowest, prevMax, "delay %d", failed)
		}
		prevMax = highest
	}
	for _, failed := range []int{64, 1000, math.MaxInt} {
		d, again := r.Delay(failed)
		assert.True(t, again)
		assert.GreaterOrEqual(t, d, hi/2, "delay %d", failed)
		assert.LessOrEqual(t, d, hi, "delay %d", failed)
	}
}

func TestBackoffBounds(t *testing.T) {
	for _, tc := range []struct {
		name           string
		lo, hi         time.Duration
		failed         int
		wantLo, wantHi time.Duration
	}{
		{"lo raised to 1ms", 0, 0, 1, 500 * time.Microsecond, time.Millisecond},
		{"negative lo", -time.Second, 4 * time.Millisecond, 3, 2 * time.Millisecond, 4 * time.Millisecond},
		{"hi raised to lo", 30 * time.Millisecond, time.Millisecond, 5, 15 * time.Millisecond, 30 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := strategy.Backoff(tc.lo, tc.hi)
			for range 100 {
				d, again := r.Delay(tc.failed)
				require.True(t, again)
				require.GreaterOrEqual(t, d, tc.wantLo)
				require.LessOrEqual(t, d, tc.wantHi)
			}
		})
	}
}

// With no real cap, doubling the delay must not overflow into a negative
// or zero delay.
func TestBackoffNoOverflow(t *testing.T) {
	r := strategy.Backoff(time.Hour, math.MaxInt64)
	prev := time.Duration(0)
	for failed := 1; failed <= 300; failed++ {
		d, again := r.Delay(failed)
		require.True(t, again)
		require.GreaterOrEqual(t, d, time.Hour/2, "delay %d", failed)
		if failed > 1 {
			// Each ceiling is at least twice the one before, or the cap.
			require.GreaterOrEqual(t, d, prev/2, "delay %d", failed)
		}
		prev = d
	}
}

func TestLimitTries(t *testing.T) {
	for _, tc := range []struct {
		n, delays int // delays: how many failed attempts are retried
	}{
		{3, 2}, {1, 0}, {0, 0}, {-5, 0}, {10, 9},
	} {
		r := strategy.LimitTries(strategy.FixedInterval(7*time.Millisecond), tc.n)
		for failed := 1; failed <= tc.delays+2; failed++ {
			d, again := r.Delay(failed)
			if failed <= tc.delays {
				assert.True(t, again, "LimitTries(_, %d).Delay(%d)", tc.n, failed)
				assert.Equal(t, 7*time.Millisecond, d)
			} else {
				assert.False(t, again, "LimitTries(_, %d).Delay(%d)", tc.n, failed)
			}
		}
	}
	// It asks the wrapped policy, which may give up first.
	_, again := strategy.LimitTries(strategy.NoRetry(), 5).Delay(1)
	assert.False(t, again)
}

// fake is a strategy without Redis: its lock is held by someone else for
// the first busy attempts, and it can fail with err instead.
type fake struct {
	busy     int64
	err      error
	attempts atomic.Int64
	keys     chan string
}

type fakeLock struct{ key string }

func (l fakeLock) Key() string                 { return l.key }
func (fakeLock) Release(context.Context) error { return nil }

func (f *fake) TryAcquire(_ context.Context, key string, _ time.Duration) (strategy.Lock, error) {
	n := f.attempts.Add(1)
	if f.keys != nil {
		f.keys <- key
	}
	if f.err != nil {
		return nil, f.err
	}
	if n <= f.busy {
		return nil, strategy.ErrNotAcquired
	}
	return fakeLock{key}, nil
}

func TestAcquireNilStrategy(t *testing.T) {
	l, err := strategy.Acquire(context.Background(), nil, "k", time.Second, nil)
	assert.Nil(t, l)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nil Strategy")
}

func TestAcquireValidatesFirst(t *testing.T) {
	for _, tc := range []struct {
		key string
		ttl time.Duration
		err error
	}{
		{"", time.Second, strategy.ErrInvalidKey},
		{"k", 0, strategy.ErrInvalidTTL},
		{"k", -time.Second, strategy.ErrInvalidTTL},
		{"k", 500 * time.Microsecond, strategy.ErrInvalidTTL},
	} {
		f := &fake{}
		_, err := strategy.Acquire(context.Background(), f, tc.key, tc.ttl, strategy.FixedInterval(time.Millisecond))
		require.ErrorIs(t, err, tc.err)
		assert.Equal(t, int64(0), f.attempts.Load(), "the strategy was called with key %q ttl %v", tc.key, tc.ttl)
	}
}

func TestAcquireRetriesUntilFree(t *testing.T) {
	f := &fake{busy: 4}
	l, err := strategy.Acquire(context.Background(), f, "k", time.Second, strategy.FixedInterval(time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, "k", l.Key())
	assert.Equal(t, int64(5), f.attempts.Load())
}

func TestAcquireNilRetryTriesOnce(t *testing.T) {
	f := &fake{busy: 1}
	_, err := strategy.Acquire(context.Background(), f, "k", time.Second, nil)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.Equal(t, int64(1), f.attempts.Load())
}

func TestAcquireGivesUpWithRetry(t *testing.T) {
	f := &fake{busy: 100}
	_, err := strategy.Acquire(context.Background(), f, "k", time.Second,
		strategy.LimitTries(strategy.FixedInterval(time.Millisecond), 3))
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, int64(3), f.attempts.Load())
}

func TestAcquireReturnsOtherErrorsAtOnce(t *testing.T) {
	boom := errors.New("boom")
	f := &fake{err: boom}
	_, err := strategy.Acquire(context.Background(), f, "k", time.Second, strategy.FixedInterval(time.Millisecond))
	require.ErrorIs(t, err, boom)
	assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
	assert.Equal(t, int64(1), f.attempts.Load())
}

func TestAcquireContextDone(t *testing.T) {
	t.Run("AlreadyCancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		f := &fake{busy: 100}
		_, err := strategy.Acquire(ctx, f, "k", time.Second, strategy.FixedInterval(time.Hour))
		require.ErrorIs(t, err, strategy.ErrNotAcquired)
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, int64(1), f.attempts.Load())
	})
	t.Run("CancelledWhileWaiting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		f := &fake{busy: 100, keys: make(chan string, 1)}
		done := make(chan error, 1)
		go func() {
			_, err := strategy.Acquire(ctx, f, "k", time.Second, strategy.FixedInterval(time.Hour))
			done <- err
		}()
		<-f.keys // first attempt made; Acquire now waits an hour
		cancel()
		select {
		case err := <-done:
			require.ErrorIs(t, err, strategy.ErrNotAcquired)
			require.ErrorIs(t, err, context.Canceled)
		case <-time.After(10 * time.Second):
			t.Fatal("Acquire did not return after its context was cancelled")
		}
		assert.Equal(t, int64(1), f.attempts.Load())
	})
	t.Run("Deadline", func(t *testing.T) {
		const timeout = 50 * time.Millisecond
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		_, err := strategy.Acquire(ctx, &fake{busy: math.MaxInt64}, "k", time.Second,
			strategy.Backoff(time.Millisecond, time.Hour))
		elapsed := time.Since(start)
		require.ErrorIs(t, err, strategy.ErrNotAcquired)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.GreaterOrEqual(t, elapsed, timeout)
		assert.Less(t, elapsed, timeout+time.Second)
	})
}

// notifier is a fake strategy that announces releases: Acquire must wake
// on the announcement instead of sleeping out its retry delay.
type notifier struct {
	fake
	wake       chan struct{}
	subscribed chan string
	stopped    atomic.Bool
	subErr     error
}

func (n *notifier) Subscribe(_ context.Context, key string) (<-chan struct{}, func(), error) {
	if n.subErr != nil {
		return nil, nil, n.subErr
	}
	n.subscribed <- key
	var once sync.Once
	return n.wake, func() { once.Do(func() { n.stopped.Store(true) }) }, nil
}

func TestAcquireWakesOnNotify(t *testing.T) {
	n := &notifier{
		fake:       fake{busy: 2, keys: make(chan string, 3)},
		wake:       make(chan struct{}),
		subscribed: make(chan string, 1),
	}
	done := acquireHourly(n)
	assert.Equal(t, "k", <-n.keys, "the first attempt comes before the subscription")
	assert.Equal(t, "k", <-n.subscribed)
	<-n.keys // the attempt right after subscribing failed too
	n.wake <- struct{}{}
	awaitWoken(t, done)
	assert.Equal(t, int64(3), n.attempts.Load())
	assert.True(t, n.stopped.Load(), "the subscription was not ended")
}

// A free lock costs no subscription, and a lock released between the first
// attempt and the subscription is taken at once, without waiting.
func TestAcquireSubscribesOnlyWhenTaken(t *testing.T) {
	free := &notifier{subscribed: make(chan string, 1)}
	_, err := strategy.Acquire(context.Background(), free, "k", time.Second, strategy.FixedInterval(time.Hour))
	require.NoError(t, err)
	assert.Empty(t, free.subscribed, "subscribed for a free lock")
	assert.Equal(t, int64(1), free.attempts.Load())

	released := &notifier{fake: fake{busy: 1}, wake: make(chan struct{}), subscribed: make(chan string, 1)}
	start := time.Now()
	_, err = strategy.Acquire(context.Background(), released, "k", time.Second, strategy.FixedInterval(time.Hour))
	require.NoError(t, err)
	assert.Less(t, time.Since(start), time.Minute, "waited out the retry delay")
	assert.Len(t, released.subscribed, 1)
	assert.Equal(t, int64(2), released.attempts.Load())
	assert.True(t, released.stopped.Load(), "the subscription was not ended")
}

// A Notifier that announces nothing (a nil channel) is polled as any
// Strategy: no second attempt at once after its Subscribe, which
// subscribed to nothing, but the retry delay first.
func TestAcquireNilSubscription(t *testing.T) {
	n := &notifier{fake: fake{busy: 1}, subscribed: make(chan string, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := strategy.Acquire(ctx, n, "k", time.Second, strategy.FixedInterval(time.Hour))
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, int64(1), n.attempts.Load(), "tried again at once")
	assert.Len(t, n.subscribed, 1)
	assert.True(t, n.stopped.Load(), "the subscription was not ended")

	polled := &notifier{fake: fake{busy: 1}, subscribed: make(chan string, 1)}
	_, err = strategy.Acquire(context.Background(), polled, "k", time.Second, strategy.FixedInterval(time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, int64(2), polled.attempts.Load())
}

func TestAcquireSubscribeError(t *testing.T) {
	boom := errors.New("subscribe failed")
	n := &notifier{fake: fake{busy: 1}, subErr: boom}
	_, err := strategy.Acquire(context.Background(), n, "k", time.Second, strategy.FixedInterval(time.Millisecond))
	require.ErrorIs(t, err, boom)
	assert.Equal(t, int64(1), n.attempts.Load())
}

// eager is a notifier that asks to be subscribed before the first attempt.
type eager struct{ *notifier }

func (eager) SubscribeFirst() bool { return true }

// An EagerNotifier that subscribes first is subscribed before the first
// attempt, and Acquire then makes no attempt at once after a refusal: it
// waits for the wake.
func TestAcquireSubscribesFirst(t *testing.T) {
	n := eager{&notifier{
		fake:       fake{busy: 1, keys: make(chan string, 2)},
		wake:       make(chan struct{}),
		subscribed: make(chan string, 1),
	}}
	done := acquireHourly(n)
	assert.Equal(t, "k", <-n.subscribed)
	assert.Equal(t, "k", <-n.keys)
	n.wake <- struct{}{} // taken once the first attempt has failed
	awaitWoken(t, done)
	assert.Equal(t, int64(2), n.attempts.Load(), "an attempt at once after the refusal")
	assert.True(t, n.stopped.Load(), "the subscription was not ended")
}

// acquireHourly starts an Acquire of k on s that retries once an hour.
func acquireHourly(s strategy.Strategy) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := strategy.Acquire(context.Background(), s, "k", time.Second, strategy.FixedInterval(time.Hour))
		done <- err
	}()
	return done
}

// awaitWoken waits for an Acquire that only a wake can end.
func awaitWoken(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Acquire slept through the release announcement")
	}
}
