package luatoken_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Refresh of an own lock makes it live longer; it never shortens it. TTL
// reads what is left.
func TestRefreshExtends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newLuatoken(t, p)

	_, lock := tryAcquire(t, s, key, time.Second)
	left, err := lock.TTL(ctx)
	require.NoError(t, err)
	assert.LessOrEqual(t, left, time.Second)
	assert.Greater(t, left, time.Second-strategytest.Margin)

	require.NoError(t, lock.Refresh(ctx, strategytest.TTL))
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
	left, err = lock.TTL(ctx)
	require.NoError(t, err)
	assert.Greater(t, left, strategytest.TTL-strategytest.Margin, "TTL after Refresh")

	// A shorter TTL leaves the longer one in place.
	require.NoError(t, lock.Refresh(ctx, 50*time.Millisecond))
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)

	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, lock.Token(), v, "Refresh changed the value")
	require.NoError(t, lock.Release(ctx))
}

// Refresh and TTL of a lock that expired report ErrNotHeld and do not bring
// the key back.
func TestRefreshExpired(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newLuatoken(t, p)

	_, lock := tryAcquire(t, s, key, 30*time.Millisecond)
	strategytest.WaitGone(t, p, key)

	err := lock.Refresh(ctx, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotHeld)
	op := strategytest.RequireOpError(t, err, "luatoken", key)
	assert.Equal(t, "refresh", op.Op)
	assert.False(t, strategytest.Exists(t, p, key), "Refresh of an expired lock created the key")

	_, err = lock.TTL(ctx)
	require.ErrorIs(t, err, strategy.ErrNotHeld)
	strategytest.RequireOpError(t, err, "luatoken", key)
}

// Refresh and TTL of a lock that passed to someone else report ErrNotHeld
// and leave the other holder's lock as it was.
func TestRefreshOthersLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newLuatoken(t, p)

	_, old := tryAcquire(t, s, key, 30*time.Millisecond)
	strategytest.WaitGone(t, p, key)
	_, next := tryAcquire(t, s, key, 2*time.Second)

	require.ErrorIs(t, old.Refresh(ctx, strategytest.TTL), strategy.ErrNotHeld)
	strategytest.RequireTTLNear(t, p, key, 2*time.Second) // not extended
	_, err := old.TTL(ctx)
	require.ErrorIs(t, err, strategy.ErrNotHeld)

	// A value written by someone else entirely is not touched either.
	strategytest.Do(t, p, "SET", key, "someone-else", "PX", 2000)
	require.ErrorIs(t, next.Refresh(ctx, strategytest.TTL), strategy.ErrNotHeld)
	strategytest.RequireTTLNear(t, p, key, 2*time.Second)
	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, "someone-else", v)
}

// A TTL below a millisecond is refused before anything is sent.
func TestRefreshInvalidTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	rp := &strategytest.RecordPool{Pool: p}
	s := newLuatoken(t, rp)

	_, lock := tryAcquire(t, s, key, strategytest.TTL)
	rp.Reset()
	for _, ttl := range []time.Duration{0, -time.Second, time.Microsecond, 999 * time.Microsecond} {
		err := lock.Refresh(ctx, ttl)
		require.ErrorIs(t, err, strategy.ErrInvalidTTL, "Refresh(%v)", ttl)
	}
	assert.Empty(t, rp.Names(), "commands sent for invalid TTLs")
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
	require.NoError(t, lock.Refresh(ctx, time.Millisecond), "1ms is the smallest valid TTL")
	require.NoError(t, lock.Release(ctx))
}

// TTL of a lock key that someone made persistent says so.
func TestTTLPersisted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newLuatoken(t, p)

	_, lock := tryAcquire(t, s, key, strategytest.TTL)
	strategytest.Do(t, p, "PERSIST", key)
	_, err := lock.TTL(ctx)
	require.ErrorIs(t, err, strategy.ErrBadValue)
	strategytest.RequireOpError(t, err, "luatoken", key)

	// Refresh gives it an expiry again.
	require.NoError(t, lock.Refresh(ctx, strategytest.TTL))
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
	require.NoError(t, lock.Release(ctx))
}

// Refresh and TTL still work after the server forgot the scripts. Not
// parallel: other tests would load the scripts again.
func TestRefreshAfterScriptFlush(t *testing.T) {
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newLuatoken(t, p)

	_, lock := tryAcquire(t, s, key, time.Second)
	strategytest.Do(t, p, "SCRIPT", "FLUSH")
	require.NoError(t, lock.Refresh(ctx, strategytest.TTL))
	strategytest.Do(t, p, "SCRIPT", "FLUSH")
	left, err := lock.TTL(ctx)
	require.NoError(t, err)
	assert.Greater(t, left, strategytest.TTL-strategytest.Margin)
	require.NoError(t, lock.Release(ctx))
}

// Refresh and TTL give up when their context ends, on a server that has
// stopped answering.
func TestRefreshContext(t *testing.T) {
	t.Parallel()
	key := redistest.Key(t)
	sp := &strategytest.SwitchPool{Up: redistest.Pool(t), Dead: strategytest.PoolTo(t, strategytest.SilentServer(t))}
	s := newLuatoken(t, sp)
	_, lock := tryAcquire(t, s, key, strategytest.TTL)
	sp.Down.Store(true)

	for name, call := range map[string]func(context.Context) error{
		"Refresh": func(ctx context.Context) error { return lock.Refresh(ctx, strategytest.TTL) },
		"TTL":     func(ctx context.Context) error { _, err := lock.TTL(ctx); return err },
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		err := call(ctx)
		cancel()
		require.True(t, strategytest.IsTimeout(err), "%s: %v", name, err)
		strategytest.RequireOpError(t, err, "luatoken", key)
		assert.Less(t, time.Since(start), strategytest.Margin, name)
	}
	sp.Down.Store(false)
	require.NoError(t, lock.Release(context.Background()))
}
