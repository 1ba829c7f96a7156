package locktest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/setnxexpire"
	"github.com/locklab/locklab/strategy/setnxpx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientCleanupAndOnCrash: what a factory registers runs, Cleanup for
// every client the suite built and OnCrash only for the one it crashed,
// once that client's connections are cut.
func TestClientCleanupAndOnCrash(t *testing.T) {
	var mu sync.Mutex
	built, cleaned := map[string]int{}, map[string]int{}
	var crashed []string
	var cutAtCrash bool
	newLock := func(c locktest.Client) (strategy.Strategy, error) {
		require.NotEmpty(t, c.Addr)
		mu.Lock()
		built[c.Name]++
		mu.Unlock()
		c.Cleanup(func() {
			mu.Lock()
			defer mu.Unlock()
			cleaned[c.Name]++
		})
		c.OnCrash(func() {
			// By now the client's proxy refuses it: a command fails.
			conn, err := redis.Dial("tcp", c.Addr, redis.DialPassword(c.Password))
			if err == nil {
				_, err = conn.Do("PING")
				conn.Close()
			}
			mu.Lock()
			defer mu.Unlock()
			crashed = append(crashed, c.Name)
			cutAtCrash = err != nil
		})
		return setnxpx.New(c.Pool)
	}
	res := check(t, newLock, locktest.CrashRecovery, 0)
	require.NoError(t, res.Err)
	require.Equal(t, locktest.Holds, res.Verdict, res.Reason())
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, built, cleaned, "every client built is cleaned up, once")
	assert.Equal(t, []string{"A"}, crashed, "OnCrash runs for the crashed holder only")
	assert.True(t, cutAtCrash, "when OnCrash runs, the client's proxy refuses it")
}

// pipelined is SET NX PX sent with redigo's Send/Flush/Receive, the
// release DEL likewise: the suite sees and steers pipelined commands as
// it does any other.
type pipelined struct{ p strategy.Pool }

type pipelinedLock struct {
	p   strategy.Pool
	key string
}

func (s pipelined) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	conn, err := s.p.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := conn.Send("SET", key, "1", "NX", "PX", ttl.Milliseconds()); err != nil {
		return nil, err
	}
	if err := conn.Flush(); err != nil {
		return nil, err
	}
	if _, err := redis.String(conn.Receive()); err != nil {
		if errors.Is(err, redis.ErrNil) {
			return nil, strategy.ErrNotAcquired
		}
		return nil, err
	}
	return pipelinedLock{s.p, key}, nil
}

func (l pipelinedLock) Key() string { return l.key }

func (l pipelinedLock) Release(ctx context.Context) error {
	conn, err := l.p.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.Send("DEL", l.key); err != nil {
		return err
	}
	if err := conn.Flush(); err != nil {
		return err
	}
	_, err = conn.Receive()
	return err
}

// TestPipelinedCommandsSteered: a lock that pipelines its commands gets
// the same verdicts and the same timeline, replies included, as one that
// does not.
func TestPipelinedCommandsSteered(t *testing.T) {
	newLock := func(c locktest.Client) (strategy.Strategy, error) { return pipelined{c.Pool}, nil }
	for _, p := range []locktest.Property{locktest.CrashRecovery, locktest.DoubleRelease, locktest.SafeRelease} {
		res := check(t, newLock, p, 0)
		require.NoError(t, res.Err, p)
		want := map[locktest.Property]locktest.Verdict{
			locktest.CrashRecovery: locktest.Holds,
			locktest.DoubleRelease: locktest.Breaks,
			locktest.SafeRelease:   locktest.Breaks,
		}[p]
		assert.Equal(t, want, res.Verdict, "%s: %s", p, res.Reason())
	}
	res := check(t, newLock, locktest.DoubleRelease, 0)
	assert.Equal(t, strings.Join([]string{
		"A SET K 1 NX PX 5000 -> OK",
		"A DEL K -> 1",
		"B SET K 1 NX PX 5000 -> OK",
		"A DEL K -> 1",
		"C SET K 1 NX PX 5000 -> OK",
	}, "\n"), replies(res.Timeline))
}

// replies returns the commands of a timeline with their replies.
func replies(tl []history.Event) string {
	var lines []string
	for _, e := range tl {
		if e.Kind == history.EvCommand {
			line := e.Client + " " + join(e.Command, " ") + " -> " + join(e.Reply, "") + e.Err
			if e.Msg != nil {
				line += e.Msg.String()
			}
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

// TestFactoryCommandsNotCounted: what a factory sends before it returns (a
// client library's connection handshake, a PING) is not a command of the
// acquire: a one-command acquire has no boundary to die at, and the
// boundary of a two-command acquire is after its first command.
func TestFactoryCommandsNotCounted(t *testing.T) {
	pinging := func(newLock func(strategy.Pool) (strategy.Strategy, error)) locktest.Factory {
		return func(c locktest.Client) (strategy.Strategy, error) {
			conn, err := c.Pool.GetContext(context.Background())
			if err != nil {
				return nil, err
			}
			defer conn.Close()
			if _, err := conn.Do("PING"); err != nil {
				return nil, err
			}
			return newLock(c.Pool)
		}
	}
	res := check(t, pinging(func(p strategy.Pool) (strategy.Strategy, error) { return setnxpx.New(p) }), locktest.CrashMidAcquire, 0)
	require.NoError(t, res.Err)
	assert.Equal(t, locktest.NotApplicable, res.Verdict, res.Reason())

	res = check(t, pinging(func(p strategy.Pool) (strategy.Strategy, error) { return setnxexpire.New(p) }), locktest.CrashMidAcquire, 0)
	require.NoError(t, res.Err)
	assert.Equal(t, locktest.Breaks, res.Verdict, res.Reason())
	assert.Contains(t, res.Reason(), "A died after command 1 of 2 of its acquire")
	assert.True(t, strings.HasPrefix(replies(res.Timeline), "A PING -> PONG\nB PING -> PONG\nA SETNX K 1 -> 1\nB SETNX K 1 -> 0\n"),
		"A dies after its SETNX, before its EXPIRE: %s", replies(res.Timeline))
}

// TestProxyRefusesStrangers: a client's proxy relays nothing for a
// connection that does not give the client's own secret, so a process
// that finds its port does not reach the server the proxy logged in to;
// the client's pool and a connection with Client.Password work.
func TestProxyRefusesStrangers(t *testing.T) {
	srv := redistest.Shared(t)
	var strangers []error
	var mu sync.Mutex
	newLock := func(c locktest.Client) (strategy.Strategy, error) {
		require.NotEmpty(t, c.Password)
		stranger, err := redis.Dial("tcp", c.Addr)
		if err == nil {
			_, err = stranger.Do("SET", "stranger:"+c.Name, "x")
			stranger.Close()
		}
		mu.Lock()
		strangers = append(strangers, err)
		mu.Unlock()
		own, err := redis.Dial("tcp", c.Addr, redis.DialPassword(c.Password))
		if err != nil {
			return nil, err
		}
		defer own.Close()
		if _, err := own.Do("PING"); err != nil {
			return nil, err
		}
		return setnxpx.New(c.Pool)
	}
	cfg := locktest.Config{Addr: srv.Addr, New: newLock, Key: redistest.Key(t)}
	res := locktest.Check(context.Background(), cfg, locktest.DoubleRelease)
	require.NoError(t, res.Err)
	assert.Equal(t, locktest.Breaks, res.Verdict)
	require.NotEmpty(t, strangers)
	for _, err := range strangers {
		assert.ErrorContains(t, err, "NOAUTH")
	}
	n, err := redis.Int(redistest.Pool(t).Get().Do("EXISTS", "stranger:A", "stranger:B"))
	require.NoError(t, err)
	assert.Zero(t, n, "a stranger's command reached Redis")
}
