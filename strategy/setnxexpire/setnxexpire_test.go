package setnxexpire_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/setnxexpire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return setnxexpire.New(p) }

func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "setnxexpire", newStrategy, strategytest.WrongTypeNotAcquired)
}

func TestTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := setnxexpire.New(p)
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
	require.NoError(t, lock.Release(ctx))
}

// A lock whose holder never releases it expires after ttl.
func TestExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := setnxexpire.New(p)
	require.NoError(t, err)

	_, err = s.TryAcquire(ctx, key, 30*time.Millisecond)
	require.NoError(t, err)
	_, err = s.TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	strategytest.WaitGone(t, p, key)
	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.NoError(t, lock.Release(ctx))
}

// Document 002's repair is copied with its bug: it checks for TTL -2 (no
// key) where -1 (no expiry) was meant, so a lock left without expiry by a
// client that crashed between SETNX and EXPIRE stays without one.
func TestRepairNeverFires(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, 1) // the crashed client's SETNX
	s, err := setnxexpire.New(p)
	require.NoError(t, err)

	for range 3 {
		_, err = s.TryAcquire(ctx, key, strategytest.TTL)
		require.ErrorIs(t, err, strategy.ErrNotAcquired)
		assert.Equal(t, int64(-1), strategytest.PTTL(t, p, key), "the lock got an expiry")
	}
}

// The repair fires only when the key is gone by the time TTL is read, where
// its PEXPIRE has nothing to act on.
func TestRepairOnGoneKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, 1)
	rp := &strategytest.RecordPool{Pool: p, Before: func(c strategytest.Command) {
		if c.Name == "TTL" {
			strategytest.Do(t, p, "DEL", key) // the holder releases just then
		}
	}}
	s, err := setnxexpire.New(rp)
	require.NoError(t, err)

	_, err = s.TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.Equal(t, []string{"SETNX", "TTL", "PEXPIRE"}, rp.Names())
	assert.False(t, strategytest.Exists(t, p, key))
}
