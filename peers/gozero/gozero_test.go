package gozero_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/peers/gozero"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zeromicro/go-zero/core/logx"
	"github.com/zeromicro/go-zero/core/stores/redis"
)

func TestMain(m *testing.M) {
	logx.Disable()
	redistest.Main(m)
}

func store(t *testing.T) *redis.Redis {
	t.Helper()
	srv := redistest.Shared(t)
	s, err := redis.NewRedis(redis.RedisConf{Host: srv.Addr, Type: redis.NodeType, Pass: srv.Login.Password})
	require.NoError(t, err)
	return s
}

// TestLocks: a lock is taken for whole seconds and half a second more,
// refused to another RedisLock while held, released once; a TTL that is
// not whole seconds is refused, not rounded.
func TestLocks(t *testing.T) {
	ctx := context.Background()
	st := store(t)
	s, err := gozero.New(st)
	require.NoError(t, err)
	var g strategy.Granular = s
	assert.Equal(t, time.Second, g.Granularity())
	key := redistest.Key(t)

	_, err = s.TryAcquire(ctx, key, 1500*time.Millisecond)
	assert.ErrorContains(t, err, "SetExpire takes whole seconds")

	l, err := s.TryAcquire(ctx, key, 2*time.Second)
	require.NoError(t, err)
	res, err := st.EvalCtx(ctx, `return redis.call("PTTL", KEYS[1])`, []string{key})
	require.NoError(t, err)
	assert.InDelta(t, 2500, res, 100, "SetExpire(2) sets PX 2500")
	_, err = s.TryAcquire(ctx, key, time.Second)
	assert.ErrorIs(t, err, strategy.ErrNotAcquired, "a new RedisLock has a value of its own")
	require.NoError(t, l.Release(ctx))
	assert.ErrorIs(t, l.Release(ctx), strategy.ErrNotHeld)
}

// TestShared: one RedisLock per key, shared, grants the lock again to a
// second acquire while the first holds it, and the first's release frees
// the second's lock.
func TestShared(t *testing.T) {
	ctx := context.Background()
	s, err := gozero.Shared(store(t))
	require.NoError(t, err)
	key := redistest.Key(t)
	l1, err := s.TryAcquire(ctx, key, time.Second)
	require.NoError(t, err)
	l2, err := s.TryAcquire(ctx, key, time.Second)
	require.NoError(t, err, "the shared RedisLock's value is granted again")
	require.NoError(t, l1.Release(ctx))
	assert.ErrorIs(t, l2.Release(ctx), strategy.ErrNotHeld, "l1's release freed l2's lock")
}
