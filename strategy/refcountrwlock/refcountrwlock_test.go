package refcountrwlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/refcountrwlock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return refcountrwlock.New(p) }

func newRW(t *testing.T, p strategy.Pool, opts ...refcountrwlock.Option) *refcountrwlock.Strategy {
	t.Helper()
	s, err := refcountrwlock.New(p, opts...)
	require.NoError(t, err)
	return s
}

// TestBasic: the write lock is a mutex.
func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "refcountrwlock", newStrategy, strategytest.WrongTypeNotAcquired)
}

// TestShared: what every read-write lock does.
func TestShared(t *testing.T) {
	strategytest.RunShared(t, "refcountrwlock", func(p strategy.Pool) (strategy.Shared, error) { return refcountrwlock.New(p) })
}

// TestReadersShare: readers hold K together under the readers' token,
// counted; a writer waits, and by default its intent keeps new readers
// out; the last reader deletes K and the writer gets in.
func TestReadersShare(t *testing.T) {
	for _, tc := range []struct {
		name         string
		opts         []refcountrwlock.Option
		readersAfter bool // a reader gets in while a writer waits
	}{
		{"PreferWriter", nil, false},
		{"PreferReader", []refcountrwlock.Option{refcountrwlock.WithReaderPreference()}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			p := redistest.Pool(t)
			key := redistest.Key(t)
			var reads []strategy.Lock
			for range 2 {
				r, err := newRW(t, p, tc.opts...).TryAcquireShared(ctx, key, strategytest.TTL)
				require.NoError(t, err, "a reader was kept out by a reader")
				reads = append(reads, r)
			}
			v, _ := strategytest.Get(t, p, key)
			assert.Equal(t, refcountrwlock.ReaderToken, v)
			n, _ := strategytest.Get(t, p, refcountrwlock.ReadersKey(key))
			assert.Equal(t, "2", n)
			assert.Equal(t, int64(-1), strategytest.PTTL(t, p, refcountrwlock.ReadersKey(key)), "the count expires")

			w := newRW(t, p, tc.opts...)
			_, err := w.TryAcquire(ctx, key, strategytest.TTL)
			require.ErrorIs(t, err, strategy.ErrNotAcquired, "a writer got in beside readers")
			r, err := newRW(t, p, tc.opts...).TryAcquireShared(ctx, key, strategytest.TTL)
			if tc.readersAfter {
				require.NoError(t, err)
				reads = append(reads, r)
			} else {
				require.ErrorIs(t, err, strategy.ErrNotAcquired, "a reader got in while a writer waits")
			}
			for _, r := range reads {
				require.NoError(t, r.Release(ctx))
			}
			assert.False(t, strategytest.Exists(t, p, key), "the last reader left K")
			wl, err := w.TryAcquire(ctx, key, strategytest.TTL)
			require.NoError(t, err)
			_, err = newRW(t, p, tc.opts...).TryAcquireShared(ctx, key, strategytest.TTL)
			require.ErrorIs(t, err, strategy.ErrNotAcquired, "a reader got in beside a writer")
			require.NoError(t, wl.Release(ctx))
		})
	}
}

// TestCrashedReader is the design's break: a reader crashes and leaves
// its count; K expires. The next reader finds the count above zero and
// holds without K; a writer then takes K: a reader and a writer hold at
// once (reader-crash-recovery).
func TestCrashedReader(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)

	_, err := newRW(t, p).TryAcquireShared(ctx, key, 50*time.Millisecond) // then crashes
	require.NoError(t, err)
	strategytest.WaitGone(t, p, key)
	assert.True(t, strategytest.Exists(t, p, refcountrwlock.ReadersKey(key)), "the crashed reader's count is gone")

	r, err := newRW(t, p).TryAcquireShared(ctx, key, strategytest.TTL)
	require.NoError(t, err, "the next reader was kept out")
	assert.False(t, strategytest.Exists(t, p, key), "the reader took K")
	w, err := newRW(t, p).TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err, "no writer got in beside the reader")

	// The reader's refresh finds the writer's token at K.
	require.ErrorIs(t, r.(strategy.Refresher).Refresh(ctx, strategytest.TTL), strategy.ErrNotHeld)
	require.NoError(t, w.Release(ctx))

	// The writer deleted the count; the reader's release takes it below
	// zero, and from then on every reader holds without K, beside writers.
	require.NoError(t, r.Release(ctx))
	n, _ := strategytest.Get(t, p, refcountrwlock.ReadersKey(key))
	assert.Equal(t, "-1", n)
	_, err = newRW(t, p).TryAcquireShared(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	assert.False(t, strategytest.Exists(t, p, key), "the reader took K")
	_, err = newRW(t, p).TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err, "no writer got in beside the second stranded reader")
}
