package tokengetdel_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/tokengetdel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return tokengetdel.New(p) }

func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "tokengetdel", newStrategy, strategytest.WrongTypeNotAcquired)
}

// Each acquisition writes a token of its own with one SET NX PX; the
// release is a GET and a DEL.
func TestTokenAndCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	rp := &strategytest.RecordPool{Pool: p}
	s, err := tokengetdel.New(rp)
	require.NoError(t, err)

	seen := map[string]bool{}
	for range 2 {
		key := redistest.Key(t)
		lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
		require.NoError(t, err)
		v := strategytest.RequireToken(t, p, key)
		assert.False(t, seen[v], "token %s written twice", v)
		seen[v] = true
		strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
		require.NoError(t, lock.Release(ctx))
		assert.False(t, strategytest.Exists(t, p, key))
	}
	assert.Equal(t, []string{"SET", "GET", "DEL", "SET", "GET", "DEL"}, rp.Names())
}

// A release that starts after the lock passed on sees the other token and
// leaves the lock alone, with ErrNotHeld; so does a second release.
func TestLateReleaseLeavesNextHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	rp := &strategytest.RecordPool{Pool: p}
	a, err := tokengetdel.New(rp)
	require.NoError(t, err)
	b, err := tokengetdel.New(p)
	require.NoError(t, err)

	old, err := a.TryAcquire(ctx, key, 30*time.Millisecond)
	require.NoError(t, err)
	strategytest.WaitGone(t, p, key)
	next, err := b.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)

	err = old.Release(ctx)
	require.ErrorIs(t, err, strategy.ErrNotHeld)
	strategytest.RequireOpError(t, err, "tokengetdel", key)
	assert.Equal(t, []string{"SET", "GET"}, rp.Names(), "a release that found another token went on")
	assert.True(t, strategytest.Exists(t, p, key), "the late release deleted the next holder's lock")

	require.NoError(t, next.Release(ctx))
	require.ErrorIs(t, next.Release(ctx), strategy.ErrNotHeld, "a second release")
}

// The race document 004 names: the lock expires and B takes it between A's
// GET and A's DEL, and A's DEL deletes B's lock.
func TestRaceBetweenGetAndDel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	b, err := tokengetdel.New(p)
	require.NoError(t, err)
	rp, bErr := strategytest.TakeOver(t, p, key, "DEL", b)
	a, err := tokengetdel.New(rp)
	require.NoError(t, err)

	lock, err := a.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.NoError(t, lock.Release(ctx), "A's release could not tell it deleted B's lock")
	require.NoError(t, bErr(), "B did not take the lock between A's GET and DEL")
	assert.False(t, strategytest.Exists(t, p, key), "A's DEL left B's lock")
}

// DEL that finds nothing, the lock having expired after the GET, reports
// ErrNotHeld.
func TestExpiredBetweenGetAndDel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	rp := &strategytest.RecordPool{Pool: p, Before: func(c strategytest.Command) {
		if c.Name == "DEL" {
			strategytest.Do(t, p, "DEL", key)
		}
	}}
	s, err := tokengetdel.New(rp)
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	err = lock.Release(ctx)
	require.ErrorIs(t, err, strategy.ErrNotHeld)
	oe := strategytest.RequireOpError(t, err, "tokengetdel", key)
	assert.Equal(t, "DEL", oe.Op)
}
