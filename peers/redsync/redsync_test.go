package redsync_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	upstream "github.com/go-redsync/redsync/v4"
	"github.com/locklab/locklab/peers/internal/peertest"
	"github.com/locklab/locklab/peers/redsync"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

func newLocks(rdb goredis.UniversalClient) (strategy.Strategy, error) { return redsync.New(rdb) }

func TestBasics(t *testing.T) { peertest.Basics(t, newLocks) }

func TestRefresh(t *testing.T) { peertest.Refresh(t, newLocks) }

func TestNilClient(t *testing.T) {
	_, err := redsync.New(nil)
	assert.Error(t, err)
}

// TestUnreachable: an attempt that cannot reach Redis fails with an error
// that is neither ErrNotAcquired nor, although redsync's attempt has a
// deadline of its own, the caller's context's.
func TestUnreachable(t *testing.T) {
	rdb := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer rdb.Close()
	s, err := redsync.New(rdb)
	require.NoError(t, err)
	_, err = s.TryAcquire(context.Background(), redistest.Key(t), 100*time.Millisecond)
	require.Error(t, err)
	assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "redsync: the attempt failed: node #0: ")
}

// TestCommands checks what the package documentation says redsync sends:
// SET NX with the TTL to lock, and after a failed SET the release script
// for the attempt's own value; one script to unlock and one to extend.
func TestCommands(t *testing.T) {
	ctx := context.Background()
	rdb, rec := peertest.Client(t)
	s, err := redsync.New(rdb)
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
	value := l.(*redsync.Lock).Mutex().Value()
	assert.Equal(t, []string{"SET K " + value + " px 1500 nx"}, rec.Commands())

	rec.Reset()
	_, err = s.TryAcquire(ctx, key, 2*time.Second)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	cmds := rec.Commands()
	require.Len(t, cmds, 2, "a failed attempt: %q", cmds)
	set := strings.Fields(cmds[0])
	assert.Equal(t, []string{"SET", "K", "ex", "2", "nx"}, append(set[:2:2], set[3:]...), "a TTL of whole seconds is sent with EX")
	assert.NotEqual(t, value, set[2], "each attempt draws a new value")
	assert.True(t, strings.HasPrefix(cmds[1], "EVALSHA "), cmds[1])
	assert.True(t, strings.HasSuffix(cmds[1], " 1 K "+set[2]), "the failed attempt releases its own value: %s", cmds[1])

	rec.Reset()
	require.NoError(t, l.(strategy.Refresher).Refresh(ctx, 700*time.Millisecond))
	assert.Equal(t, []string{"EVALSHA d75bb8b5bd13532ddedd17762e772346e39b321e 1 K " + value + " 700"}, rec.Commands())

	rec.Reset()
	require.NoError(t, l.Release(ctx))
	assert.Equal(t, []string{"EVALSHA e950836ed1e694540c503ef9972b8de518044d3b 1 K " + value}, rec.Commands())
}

// TestSlowAttemptFails shows the validity check of a lock attempt: an
// attempt whose SET returns later than the TTL less the drift fails, and
// sends the release script for the value it set.
func TestSlowAttemptFails(t *testing.T) {
	ctx := context.Background()
	rdb, rec := peertest.Client(t)
	key := redistest.Key(t)
	rec.SetKey(key)
	rdb.AddHook(slowSet{key: key, by: 210 * time.Millisecond})
	s, err := redsync.New(rdb)
	require.NoError(t, err)
	require.NoError(t, rdb.Ping(ctx).Err()) // the connection is open before the attempt
	rec.Reset()
	_, err = s.TryAcquire(ctx, key, 200*time.Millisecond)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	require.ErrorIs(t, err, upstream.ErrFailed)
	cmds := rec.Commands()
	require.Len(t, cmds, 2, "%q", cmds)
	set := strings.Fields(cmds[0])
	assert.Equal(t, []string{"SET", "K", "px", "200", "nx"}, append(set[:2:2], set[3:]...))
	assert.Regexp(t, `^EVAL(SHA)? .* 1 K `+regexp.QuoteMeta(set[2])+`$`, cmds[1])
}

// slowSet delays the reply of a SET on key.
type slowSet struct {
	key string
	by  time.Duration
}

func (h slowSet) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h slowSet) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		err := next(ctx, cmd)
		if args := cmd.Args(); cmd.Name() == "set" && len(args) > 1 && args[1] == h.key {
			time.Sleep(h.by)
		}
		return err
	}
}

func (h slowSet) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return next
}

// TestOptions: the options given to New apply to every mutex, Refresh's
// included.
func TestOptions(t *testing.T) {
	ctx := context.Background()
	rdb, _ := peertest.Client(t)
	s, err := redsync.New(rdb, upstream.WithGenValueFunc(func() (string, error) { return "fixed-value", nil }))
	require.NoError(t, err)
	key := redistest.Key(t)
	l, err := s.TryAcquire(ctx, key, time.Second)
	require.NoError(t, err)
	assert.Equal(t, "fixed-value", rdb.Get(ctx, key).Val())
	require.NoError(t, l.(strategy.Refresher).Refresh(ctx, 2*time.Second))
	assert.Greater(t, rdb.PTTL(ctx, key).Val(), time.Second)
	require.NoError(t, l.Release(ctx))
}
