package redislock_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/peers/internal/peertest"
	"github.com/locklab/locklab/peers/redislock"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

func newLocks(rdb redis.UniversalClient) (strategy.Strategy, error) { return redislock.New(rdb) }

func TestBasics(t *testing.T) { peertest.Basics(t, newLocks) }

func TestRefresh(t *testing.T) { peertest.Refresh(t, newLocks) }

func TestNilClient(t *testing.T) {
	_, err := redislock.New(nil)
	assert.Error(t, err)
}

// TestCommands checks what the package documentation says redislock sends:
// one script per call, and no retry of a failed Obtain.
func TestCommands(t *testing.T) {
	ctx := context.Background()
	rdb, rec := peertest.Client(t)
	s, err := redislock.New(rdb)
	require.NoError(t, err)
	key := redistest.Key(t)
	rec.SetKey(key)

	warm, err := s.TryAcquire(ctx, key, time.Second) // loads the scripts
	require.NoError(t, err)
	require.NoError(t, warm.(strategy.Refresher).Refresh(ctx, time.Second))
	require.NoError(t, warm.Release(ctx))

	rec.Reset()
	l, err := s.TryAcquire(ctx, key, 1500*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, []string{"EVALSHA"}, names(rec.Commands()))
	assert.Contains(t, rec.Commands()[0], " 1 K ")
	assert.Equal(t, "1500", last(rec.Commands()[0]), "the TTL in ms is the script's last argument")

	rec.Reset()
	_, err = s.TryAcquire(ctx, key, time.Second)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.Equal(t, []string{"EVALSHA"}, names(rec.Commands()), "a failed attempt is not retried")

	for _, op := range []func() error{
		func() error { return l.(strategy.Refresher).Refresh(ctx, time.Second) },
		func() error { return l.Release(ctx) },
	} {
		rec.Reset()
		require.NoError(t, op())
		assert.Equal(t, []string{"EVALSHA"}, names(rec.Commands()))
	}
}

func names(cmds []string) []string {
	var out []string
	for _, c := range cmds {
		name, _, _ := strings.Cut(c, " ")
		out = append(out, name)
	}
	return out
}

func last(cmd string) string {
	f := strings.Fields(cmd)
	return f[len(f)-1]
}
