package watchdel_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/watchdel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return watchdel.New(p) }

func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "watchdel", newStrategy, strategytest.WrongTypeNotAcquired)
}

// The acquire is SETNX of a token, then PEXPIRE; the release WATCH, GET,
// MULTI, DEL, EXEC.
func TestCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	rp := &strategytest.RecordPool{Pool: p}
	s, err := watchdel.New(rp)
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	strategytest.RequireToken(t, p, key)
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
	require.NoError(t, lock.Release(ctx))
	assert.False(t, strategytest.Exists(t, p, key))
	assert.Equal(t, []string{"SETNX", "PEXPIRE", "WATCH", "GET", "MULTI", "DEL", "EXEC"}, rp.Names())
}

// Whenever the lock passes to B during A's release, after A's WATCH, A
// deletes nothing and reports ErrNotHeld: before the GET, the GET sees B's
// token; later, EXEC finds the key changed and runs nothing.
func TestTakenDuringRelease(t *testing.T) {
	for _, before := range []string{"GET", "MULTI", "DEL", "EXEC"} {
		t.Run("Before"+before, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			p := redistest.Pool(t)
			key := redistest.Key(t)
			b, err := watchdel.New(p)
			require.NoError(t, err)
			rp, bErr := strategytest.TakeOver(t, p, key, before, b)
			a, err := watchdel.New(rp)
			require.NoError(t, err)

			lock, err := a.TryAcquire(ctx, key, strategytest.TTL)
			require.NoError(t, err)
			err = lock.Release(ctx)
			require.NoError(t, bErr(), "B did not take the lock during A's release")
			require.ErrorIs(t, err, strategy.ErrNotHeld)
			strategytest.RequireOpError(t, err, "watchdel", key)
			assert.True(t, strategytest.Exists(t, p, key), "A's release deleted B's lock")
		})
	}
}

// A release that finds the key gone, or someone else's, stops after the GET
// and reports ErrNotHeld; so does a second release.
func TestReleaseNotHeld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	rp := &strategytest.RecordPool{Pool: p}
	s, err := watchdel.New(rp)
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, 20*time.Millisecond)
	require.NoError(t, err)
	strategytest.WaitGone(t, p, key)
	require.ErrorIs(t, lock.Release(ctx), strategy.ErrNotHeld)
	assert.Equal(t, []string{"SETNX", "PEXPIRE", "WATCH", "GET", "UNWATCH"}, rp.Names())

	lock, err = s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	strategytest.Do(t, p, "SET", key, "someone-else")
	require.ErrorIs(t, lock.Release(ctx), strategy.ErrNotHeld)
	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, "someone-else", v)

	strategytest.Do(t, p, "DEL", key)
	lock, err = s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.NoError(t, lock.Release(ctx))
	require.ErrorIs(t, lock.Release(ctx), strategy.ErrNotHeld, "a second release")
}
