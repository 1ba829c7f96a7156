package multiget_test

import (
	"context"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/multiget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return multiget.New(p) }

func TestBasic(t *testing.T) {
	strategytest.RunBasicNoFree(t, "multiget", newStrategy, strategytest.WrongTypeNotAcquired)
}

// The acquire is SETNX of a token, then PEXPIRE; the release is document
// 002's, command for command, and leaves the lock as it was.
func TestReleaseAsPublished(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	rp := &strategytest.RecordPool{Pool: p}
	s, err := multiget.New(rp)
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	v := strategytest.RequireToken(t, p, key)

	require.NoError(t, lock.Release(ctx))
	assert.Equal(t, []string{"SETNX", "PEXPIRE", "WATCH", "MULTI", "GET", "EXEC", "UNWATCH"}, rp.Names())
	after, ok := strategytest.Get(t, p, key)
	assert.True(t, ok, "the release deleted the lock")
	assert.Equal(t, v, after)
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
}

// What the release's comparison reads: inside MULTI, GET answers QUEUED,
// and the value comes back only in EXEC's reply.
func TestGetInsideMulti(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, "the-uuid")
	c := p.Get()
	defer c.Close()

	for _, cmd := range [][]any{{"WATCH", key}, {"MULTI"}} {
		_, err := c.Do(cmd[0].(string), cmd[1:]...)
		require.NoError(t, err)
	}
	queued, err := redis.String(c.Do("GET", key))
	require.NoError(t, err)
	assert.Equal(t, "QUEUED", queued)
	values, err := redis.Strings(c.Do("EXEC"))
	require.NoError(t, err)
	assert.Equal(t, []string{"the-uuid"}, values)
}

// The lock frees only when its TTL runs out.
func TestFreesOnlyByTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	a, err := multiget.New(p)
	require.NoError(t, err)
	b, err := multiget.New(p)
	require.NoError(t, err)

	lock, err := a.TryAcquire(ctx, key, 50*time.Millisecond)
	require.NoError(t, err)
	require.NoError(t, lock.Release(ctx))
	_, err = b.TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "the lock freed on release")
	strategytest.WaitGone(t, p, key)
	next, err := b.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.NoError(t, next.Release(ctx))
}
