package luatoken_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return luatoken.New(p) }

func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "luatoken", newStrategy, strategytest.WrongTypeNotAcquired)
}

func acquire(t *testing.T, s *luatoken.Strategy, key string, ttl time.Duration) *luatoken.Lock {
	t.Helper()
	l, err := s.TryAcquire(context.Background(), key, ttl)
	require.NoError(t, err)
	require.IsType(t, &luatoken.Lock{}, l)
	return l.(*luatoken.Lock)
}

// The key holds the lock's token, unique to each acquisition, and expires
// after ttl.
func TestTokenAndTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := luatoken.New(p)
	require.NoError(t, err)

	seen := map[string]bool{}
	for range 3 {
		lock := acquire(t, s, key, strategytest.TTL)
		assert.Equal(t, key, lock.Key())
		require.NotEmpty(t, lock.Token())
		assert.False(t, seen[lock.Token()], "token %q used twice", lock.Token())
		seen[lock.Token()] = true
		v, ok := strategytest.Get(t, p, key)
		require.True(t, ok)
		assert.Equal(t, lock.Token(), v)
		strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
		require.NoError(t, lock.Release(ctx))
	}
}

// A holder whose lock expired and passed to another client cannot release
// the other client's lock.
func TestReleaseOthersToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := luatoken.New(p)
	require.NoError(t, err)

	old := acquire(t, s, key, 30*time.Millisecond)
	strategytest.WaitGone(t, p, key)
	next := acquire(t, s, key, strategytest.TTL)

	err = old.Release(ctx)
	require.ErrorIs(t, err, strategy.ErrNotHeld)
	strategytest.RequireOpError(t, err, "luatoken", key)
	v, ok := strategytest.Get(t, p, key)
	require.True(t, ok, "the late release deleted the next holder's lock")
	assert.Equal(t, next.Token(), v)
	require.NoError(t, next.Release(ctx))
}

// A value written by someone else is not deleted either.
func TestReleaseForeignValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := luatoken.New(p)
	require.NoError(t, err)

	lock := acquire(t, s, key, strategytest.TTL)
	strategytest.Do(t, p, "SET", key, "someone-else")
	require.ErrorIs(t, lock.Release(ctx), strategy.ErrNotHeld)
	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, "someone-else", v)
}

func TestDoubleRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := luatoken.New(p)
	require.NoError(t, err)

	lock := acquire(t, s, key, strategytest.TTL)
	require.NoError(t, lock.Release(ctx))
	require.ErrorIs(t, lock.Release(ctx), strategy.ErrNotHeld)

	next := acquire(t, s, key, strategytest.TTL)
	require.ErrorIs(t, lock.Release(ctx), strategy.ErrNotHeld)
	assert.True(t, strategytest.Exists(t, p, key), "the repeated release deleted the next holder's lock")
	require.NoError(t, next.Release(ctx))
}

// Release still works when the server has forgotten the script: EVALSHA
// fails with NOSCRIPT and the script is sent again with EVAL. The test is
// not parallel: the releases of other tests would load the script again.
func TestReleaseAfterScriptFlush(t *testing.T) {
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	rp := &strategytest.RecordPool{Pool: p}
	s, err := luatoken.New(rp)
	require.NoError(t, err)

	warm := acquire(t, s, key, strategytest.TTL)
	require.NoError(t, warm.Release(ctx)) // the script is now cached

	lock := acquire(t, s, key, strategytest.TTL)
	strategytest.Do(t, p, "SCRIPT", "FLUSH")
	rp.Reset()
	require.NoError(t, lock.Release(ctx))
	assert.False(t, strategytest.Exists(t, p, key))
	names := rp.Names()
	i := slices.Index(names, "EVALSHA")
	require.GreaterOrEqual(t, i, 0, "no EVALSHA: %v", names)
	require.Less(t, i+1, len(names), "no EVAL after the EVALSHA: %v", names)
	assert.Equal(t, "EVAL", names[i+1], "no EVAL after the EVALSHA: %v", names)

	lock = acquire(t, s, key, strategytest.TTL)
	rp.Reset()
	require.NoError(t, lock.Release(ctx))
	assert.False(t, slices.Contains(rp.Names(), "EVAL"), "EVAL after the script was cached again: %v", rp.Names())
}
