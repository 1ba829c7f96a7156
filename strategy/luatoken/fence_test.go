package luatoken_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fencing tokens increase strictly over 1,000 acquisitions by 8 concurrent
// clients: each holder writes its token down while it holds the lock, so
// the list is in acquisition order.
func TestFencingTokensIncrease(t *testing.T) {
	t.Parallel()
	const clients, total = 8, 1000
	key := redistest.Key(t)

	var (
		mu     sync.Mutex
		tokens []int64
	)
	var wg sync.WaitGroup
	for range clients {
		s := newLuatoken(t, redistest.Pool(t), luatoken.WithFencing(), luatoken.WithNotify())
		wg.Go(func() {
			for {
				mu.Lock()
				done := len(tokens) >= total
				mu.Unlock()
				if done {
					return
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				l, err := strategy.Acquire(ctx, s, key, strategytest.TTL, strategy.Backoff(time.Millisecond, 5*time.Millisecond))
				cancel()
				if !assert.NoError(t, err) {
					return
				}
				token, ok := strategy.FencingToken(l)
				if !assert.True(t, ok, "%T has no fencing token", l) {
					return
				}
				mu.Lock()
				if len(tokens) < total {
					tokens = append(tokens, token)
				}
				mu.Unlock()
				assert.NoError(t, l.Release(context.Background()))
			}
		})
	}
	wg.Wait()
	require.Len(t, tokens, total)
	for i := 1; i < len(tokens); i++ {
		require.Greater(t, tokens[i], tokens[i-1], "token %d of %d", i, total)
	}
	// Nobody else used the key: the tokens are 1, 2, 3, ... (an extra
	// acquisition or two may have happened after the count was reached).
	assert.Equal(t, int64(1), tokens[0])
	sorted := slices.Clone(tokens)
	slices.Sort(sorted)
	assert.Equal(t, len(tokens), len(slices.Compact(sorted)), "tokens repeat")
}

// The counter lives beside the lock key, survives releases and expiry, and
// a token is drawn only when the lock is taken.
func TestFencingCounterKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newLuatoken(t, p, luatoken.WithFencing())
	counter := luatoken.FenceKey(key)
	assert.Equal(t, "{"+key+"}:fence", counter)

	l, _ := tryAcquire(t, s, key, strategytest.TTL)
	assert.Equal(t, int64(1), fenceOf(t, l))
	_, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	v, _ := strategytest.Get(t, p, counter)
	assert.Equal(t, "1", v, "a failed attempt drew a token")
	require.NoError(t, l.Release(ctx))
	assert.True(t, strategytest.Exists(t, p, counter), "Release deleted the counter")
	assert.Equal(t, int64(-1), strategytest.PTTL(t, p, counter), "the counter expires")

	l, _ = tryAcquire(t, s, key, 30*time.Millisecond)
	assert.Equal(t, int64(2), fenceOf(t, l))
	strategytest.WaitGone(t, p, key)
	l, _ = tryAcquire(t, s, key, strategytest.TTL)
	assert.Equal(t, int64(3), fenceOf(t, l))
	require.NoError(t, l.Release(ctx))

	// Clients without WithFencing do not draw tokens; fenced ones still
	// count on from where they were.
	_, plain := tryAcquire(t, newLuatoken(t, p), key, strategytest.TTL)
	require.NoError(t, plain.Release(ctx))
	l, _ = tryAcquire(t, s, key, strategytest.TTL)
	assert.Equal(t, int64(4), fenceOf(t, l))
	require.NoError(t, l.Release(ctx))
}

// A key with a hash tag keeps it: the counter is the key plus ":fence".
func TestFenceKeyNames(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"orders:42":        "{orders:42}:fence",
		"{order:42}:lock":  "{order:42}:lock:fence",
		"lock:{user:7}":    "lock:{user:7}:fence",
		"a{b":              "{a{b}:fence",
		"a{}{b}":           "{" + slotTag(t, "a{}{b}") + "}:fence:a{}{b}",
		"a}b":              "{20658}:fence:a}b",
		"{}":               "{" + slotTag(t, "{}") + "}:fence:{}",
		"plain key, no {}": "{" + slotTag(t, "plain key, no {}") + "}:fence:plain key, no {}",
	} {
		assert.Equal(t, want, luatoken.FenceKey(key), "FenceKey(%q)", key)
	}
}

// slotTag returns the number FenceKey puts in the tag for key.
func slotTag(t *testing.T, key string) string {
	t.Helper()
	fk := luatoken.FenceKey(key)
	end := len(fk) - len("}:fence:"+key)
	require.Greater(t, end, 1, fk)
	_, err := strconv.Atoi(fk[1:end])
	require.NoError(t, err, fk)
	return fk[1:end]
}

// Fencing works with every key shape, including one that needs a numeric
// tag, and the counter is where FenceKey says.
func TestFencingOddKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	s := newLuatoken(t, p, luatoken.WithFencing())
	base := redistest.Key(t)
	for _, key := range []string{base + "{tag}", base + "}", base + "{"} {
		for want := int64(1); want <= 2; want++ {
			l, _ := tryAcquire(t, s, key, strategytest.TTL)
			assert.Equal(t, want, fenceOf(t, l), key)
			require.NoError(t, l.Release(ctx))
		}
		v, _ := strategytest.Get(t, p, luatoken.FenceKey(key))
		assert.Equal(t, "2", v, "counter of %q", key)
	}
}

// Every combination of options returns a *Lock, whose FencingToken and
// Lease say whether WithFencing and WithAutoRenew are on.
func TestLockTypes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	for _, c := range []struct {
		opts           []luatoken.Option
		fenced, leased bool
	}{
		{nil, false, false},
		{[]luatoken.Option{luatoken.WithFencing()}, true, false},
		{[]luatoken.Option{luatoken.WithAutoRenew(0)}, false, true},
		{[]luatoken.Option{luatoken.WithFencing(), luatoken.WithAutoRenew(0)}, true, true},
	} {
		key := redistest.Key(t)
		l, lock := tryAcquire(t, newLuatoken(t, p, c.opts...), key, strategytest.TTL)
		token, fenced := lock.FencingToken()
		lease, leased := lock.Lease()
		assert.Equal(t, c.fenced, fenced, "%v: fenced", c.opts)
		assert.Equal(t, c.fenced, token > 0, "%v: token %d", c.opts, token)
		assert.Equal(t, c.leased, leased, "%v: leased", c.opts)
		assert.Equal(t, c.leased, lease != nil, "%v: lease %v", c.opts, lease)
		_, fenced = strategy.FencingToken(l)
		_, leased = strategy.Lease(l)
		assert.Equal(t, c.fenced, fenced, "%v: strategy.FencingToken", c.opts)
		assert.Equal(t, c.leased, leased, "%v: strategy.Lease", c.opts)
		assert.Equal(t, key, lock.Key())
		v, _ := strategytest.Get(t, p, key)
		assert.Equal(t, lock.Token(), v)
		require.NoError(t, l.Release(ctx))
	}
}

// A counter key that holds something else makes the acquire fail with the
// server's error, and leaves no lock behind: the script gives the lock back.
func TestFencingCounterWrongType(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newLuatoken(t, p, luatoken.WithFencing())
	strategytest.Do(t, p, "SET", luatoken.FenceKey(key), "not a number")
	_, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.Error(t, err)
	require.NotErrorIs(t, err, strategy.ErrNotAcquired)
	strategytest.RequireOpError(t, err, "luatoken", key)
	assert.Contains(t, err.Error(), "ERR value is not an integer")
	assert.False(t, strategytest.Exists(t, p, key), "a lock without a token was left behind")
}
