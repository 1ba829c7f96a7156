package setnxdel_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/setnxdel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return setnxdel.New(p) }

func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "setnxdel", newStrategy, strategytest.WrongTypeNotAcquired)
}

// The key never expires, whatever ttl says.
func TestNoExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := setnxdel.New(p)
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, int64(-1), strategytest.PTTL(t, p, key))
	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, "1", v)

	_, err = s.TryAcquire(ctx, key, time.Millisecond)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	require.NoError(t, lock.Release(ctx))
}

// The second release finds no key: ErrNotHeld. Had someone locked the key
// in between, it would have deleted their lock.
func TestDoubleRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := setnxdel.New(p)
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.NoError(t, lock.Release(ctx))
	err = lock.Release(ctx)
	require.ErrorIs(t, err, strategy.ErrNotHeld)
	strategytest.RequireOpError(t, err, "setnxdel", key)

	next, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.NoError(t, lock.Release(ctx), "a repeated release should delete the next holder's lock")
	assert.False(t, strategytest.Exists(t, p, key))
	assert.ErrorIs(t, next.Release(ctx), strategy.ErrNotHeld)
}
