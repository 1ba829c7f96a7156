package goredislock_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/peers/goredislock"
	"github.com/locklab/locklab/peers/internal/peertest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

func newLocks(rdb redis.UniversalClient) (strategy.Strategy, error) { return goredislock.New(rdb) }

func TestBasics(t *testing.T) { peertest.Basics(t, newLocks) }

func TestNilClient(t *testing.T) {
	_, err := goredislock.New(nil)
	assert.Error(t, err)
}

// TestCommands checks what the package documentation says: SET NX with
// the TTL and a new token for each attempt; one script to release.
func TestCommands(t *testing.T) {
	ctx := context.Background()
	rdb, rec := peertest.Client(t)
	s, err := goredislock.New(rdb)
	require.NoError(t, err)
	key := redistest.Key(t)
	rec.SetKey(key)

	warm, err := s.TryAcquire(ctx, key, time.Second) // loads the script
	require.NoError(t, err)
	require.NoError(t, warm.Release(ctx))

	rec.Reset()
	l, err := s.TryAcquire(ctx, key, 1500*time.Millisecond)
	require.NoError(t, err)
	_, isRefresher := l.(strategy.Refresher)
	assert.False(t, isRefresher)
	cmds := rec.Commands()
	require.Len(t, cmds, 1)
	set := strings.Fields(cmds[0])
	assert.Equal(t, []string{"SET", "K", "px", "1500", "nx"}, append(set[:2:2], set[3:]...))

	rec.Reset()
	_, err = s.TryAcquire(ctx, key, 2*time.Second)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	cmds = rec.Commands()
	require.Len(t, cmds, 1, "a failed attempt is one command")
	other := strings.Fields(cmds[0])
	assert.Equal(t, []string{"SET", "K", "ex", "2", "nx"}, append(other[:2:2], other[3:]...))
	assert.NotEqual(t, set[2], other[2], "each attempt draws a new token")

	rec.Reset()
	require.NoError(t, l.Release(ctx))
	cmds = rec.Commands()
	require.Len(t, cmds, 1)
	assert.Regexp(t, `^EVALSHA [0-9a-f]{40} 1 K `+set[2]+`$`, cmds[0])
}
