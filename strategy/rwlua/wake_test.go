package rwlua_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tries counts the attempts of a Strategy that announces releases, as
// they return.
type tries struct {
	s strategy.Strategy
	strategy.EagerNotifier
	n atomic.Int64
}

func counting(s strategy.Strategy) *tries {
	return &tries{s: s, EagerNotifier: s.(strategy.EagerNotifier)}
}

func (c *tries) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	defer c.n.Add(1)
	return c.s.TryAcquire(ctx, key, ttl)
}

// wait starts an Acquire of c that retries once an hour, and returns what
// it returns.
func (c *tries) wait(ctx context.Context, key string) <-chan error {
	done := make(chan error, 1)
	go func() {
		l, err := strategy.Acquire(ctx, c, key, strategytest.TTL, strategy.FixedInterval(time.Hour))
		if err == nil {
			err = l.Release(context.Background())
		}
		done <- err
	}()
	return done
}

// Without WithNotify, a release through a Strategy that leaves the lock
// free wakes that Strategy's waiters, in the process: a writer first,
// and the readers once no writer waits. A release that leaves readers in
// wakes nobody, and a release through another Strategy wakes nobody here.
func TestWakeInProcess(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newRW(t, p)
	r1 := read(t, s, key, strategytest.TTL)
	r2 := read(t, s, key, strategytest.TTL)

	// Each waiter subscribes, fails once, and then sleeps for the hour
	// unless woken.
	w, r := counting(s), counting(strategy.Reader(s))
	wrote := w.wait(ctx, key)
	require.Eventually(t, func() bool { return w.n.Load() == 1 }, 10*time.Second, time.Millisecond)
	readDone := r.wait(ctx, key)
	require.Eventually(t, func() bool { return r.n.Load() == 1 }, 10*time.Second, time.Millisecond)

	require.NoError(t, r1.Release(ctx))
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, int64(1), w.n.Load(), "a release that left a reader in woke the writer")

	// The last reader leaves: the writer wakes, writes and releases, and
	// only its release wakes the reader.
	require.NoError(t, r2.Release(ctx))
	require.NoError(t, <-wrote)
	assert.Equal(t, int64(2), w.n.Load())
	require.NoError(t, <-readDone)
	assert.Equal(t, int64(2), r.n.Load(), "the reader was woken before the writer had released")

	// A writer of another Strategy releases: nobody here hears of it.
	held := write(t, newRW(t, p), key, strategytest.TTL)
	short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	defer stop()
	r.n.Store(0)
	readDone = r.wait(short, key)
	require.Eventually(t, func() bool { return r.n.Load() == 1 }, 10*time.Second, time.Millisecond)
	require.NoError(t, held.Release(ctx))
	require.ErrorIs(t, <-readDone, strategy.ErrNotAcquired)
	assert.Equal(t, int64(1), r.n.Load())
}
