package setnxpx_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/setnxpx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return setnxpx.New(p) }

func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "setnxpx", newStrategy, strategytest.WrongTypeNotAcquired)
}

func TestTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	rp := &strategytest.RecordPool{Pool: p}
	s, err := setnxpx.New(rp)
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
	assert.Equal(t, []string{"SET"}, rp.Names(), "the lock is not one atomic command")
	require.NoError(t, lock.Release(ctx))
}

// The faithful flaw: release DELs whatever is at the key. A holder whose
// lock expired deletes the lock of the client that took it next.
func TestLateReleaseDeletesNextHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := setnxpx.New(p)
	require.NoError(t, err)

	old, err := s.TryAcquire(ctx, key, 30*time.Millisecond)
	require.NoError(t, err)
	strategytest.WaitGone(t, p, key)
	next, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.NotNil(t, next)

	require.NoError(t, old.Release(ctx))
	assert.False(t, strategytest.Exists(t, p, key), "the late release left the next holder's lock")
	third, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err, "a third client should get the lock while the second holds it")
	require.NoError(t, third.Release(ctx))
}

// A key SET by someone else entirely is deleted by a release too.
func TestReleaseDeletesForeignValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := setnxpx.New(p)
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	strategytest.Do(t, p, "SET", key, "someone-else")
	require.NoError(t, lock.Release(ctx))
	assert.False(t, strategytest.Exists(t, p, key))
}

func TestReleaseGoneKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := setnxpx.New(p)
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, 20*time.Millisecond)
	require.NoError(t, err)
	strategytest.WaitGone(t, p, key)
	err = lock.Release(ctx)
	require.ErrorIs(t, err, strategy.ErrNotHeld)
	strategytest.RequireOpError(t, err, "setnxpx", key)

	// Released twice: the second finds nothing either.
	lock, err = s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.NoError(t, lock.Release(ctx))
	require.ErrorIs(t, lock.Release(ctx), strategy.ErrNotHeld)
}
