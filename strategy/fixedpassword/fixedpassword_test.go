package fixedpassword_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/fixedpassword"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return fixedpassword.New(p) }

func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "fixedpassword", newStrategy, strategytest.WrongTypeNotAcquired)
}

// Every lock writes the same password, with one SET NX PX, and is released
// with one script.
func TestValueAndCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	rp := &strategytest.RecordPool{Pool: p}
	s, err := fixedpassword.New(rp)
	require.NoError(t, err)

	for range 2 {
		key := redistest.Key(t)
		lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
		require.NoError(t, err)
		v, ok := strategytest.Get(t, p, key)
		require.True(t, ok)
		assert.Equal(t, "abc123", v)
		strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
		require.NoError(t, lock.Release(ctx))
		assert.False(t, strategytest.Exists(t, p, key))
	}
	names := rp.Names()
	require.Len(t, names, 4)
	assert.Equal(t, "SET", names[0])
	assert.Contains(t, []string{"EVALSHA", "EVAL"}, names[1], "the release is not one script")
}

// The faithful flaw: the password is everyone's, so a holder whose lock
// expired deletes the lock of the client that took it next.
func TestLateReleaseDeletesNextHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	a, err := fixedpassword.New(p)
	require.NoError(t, err)
	b, err := fixedpassword.New(p)
	require.NoError(t, err)

	old, err := a.TryAcquire(ctx, key, 30*time.Millisecond)
	require.NoError(t, err)
	strategytest.WaitGone(t, p, key)
	_, err = b.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)

	require.NoError(t, old.Release(ctx), "the late release could not tell the lock was not its own")
	assert.False(t, strategytest.Exists(t, p, key), "the late release left the next holder's lock")
}

// A second release deletes the lock taken in between, and reports success.
func TestDoubleRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := fixedpassword.New(p)
	require.NoError(t, err)

	first, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.NoError(t, first.Release(ctx))
	_, err = s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.NoError(t, first.Release(ctx))
	assert.False(t, strategytest.Exists(t, p, key), "the second release left the lock taken in between")
}

// The script answers -1, and Release reports ErrNotHeld, where the key is
// gone or holds a value other than the password; such a value is left alone.
func TestReleaseNotHeld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	s, err := fixedpassword.New(p)
	require.NoError(t, err)

	key := redistest.Key(t)
	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	strategytest.Do(t, p, "SET", key, "someone-else")
	err = lock.Release(ctx)
	require.ErrorIs(t, err, strategy.ErrNotHeld)
	strategytest.RequireOpError(t, err, "fixedpassword", key)
	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, "someone-else", v)

	key = redistest.Key(t)
	lock, err = s.TryAcquire(ctx, key, 20*time.Millisecond)
	require.NoError(t, err)
	strategytest.WaitGone(t, p, key)
	require.ErrorIs(t, lock.Release(ctx), strategy.ErrNotHeld)
}
