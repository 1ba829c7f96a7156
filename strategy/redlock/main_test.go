package redlock_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/redlock"
	"github.com/stretchr/testify/require"
)

// The five masters the tests that kill no node share.
var shared struct {
	once sync.Once
	m    *redistest.Masters
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.m != nil {
		if err := shared.m.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = max(code, 1)
		}
	}
	os.Exit(code)
}

// sharedMasters returns the five shared masters, started on first use.
func sharedMasters(tb testing.TB) *redistest.Masters {
	tb.Helper()
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		shared.m, shared.err = redistest.StartMasters(ctx, 5)
	})
	require.NoError(tb, shared.err, "five redis-server processes (redis-server must be on PATH)")
	return shared.m
}

// ownMasters starts n masters for one test, which may kill them.
func ownMasters(tb testing.TB, n int) *redistest.Masters {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m, err := redistest.StartMasters(ctx, n)
	require.NoError(tb, err, "%d redis-server processes (redis-server must be on PATH)", n)
	tb.Cleanup(func() { require.NoError(tb, m.Close()) })
	return m
}

// pools returns a pool to each node, closed at cleanup.
func pools(tb testing.TB, nodes []*redistest.Node) []strategy.Pool {
	out := make([]strategy.Pool, len(nodes))
	for i, n := range nodes {
		p := n.NewPool()
		tb.Cleanup(func() { p.Close() })
		out[i] = p
	}
	return out
}

// newRedlock returns Redlock over the nodes.
func newRedlock(tb testing.TB, nodes []*redistest.Node, opts ...redlock.Option) *redlock.Strategy {
	tb.Helper()
	s, err := redlock.New(pools(tb, nodes), opts...)
	require.NoError(tb, err)
	return s
}

// values returns GET key on every node, "" where the key is missing, and
// "down" where the node does not answer.
func values(tb testing.TB, nodes []*redistest.Node, key string) []string {
	tb.Helper()
	out := make([]string, len(nodes))
	for i, n := range nodes {
		v, err := redis.String(n.Do(context.Background(), "GET", key))
		switch {
		case errors.Is(err, redis.ErrNil):
		case err != nil && n.Pid() == 0:
			v = "down"
		default:
			require.NoError(tb, err, "GET on %s", n.Name)
		}
		out[i] = v
	}
	return out
}

// pttl returns PTTL key on n.
func pttl(tb testing.TB, n *redistest.Node, key string) time.Duration {
	tb.Helper()
	ms, err := redis.Int64(n.Do(context.Background(), "PTTL", key))
	require.NoError(tb, err)
	return time.Duration(ms) * time.Millisecond
}

// set sets key to v with a TTL on n, as another client would.
func set(tb testing.TB, n *redistest.Node, key, v string, ttl time.Duration) {
	tb.Helper()
	_, err := n.Do(context.Background(), "SET", key, v, "PX", ttl.Milliseconds())
	require.NoError(tb, err)
}

// repeat returns n copies of v.
func repeat(v string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = v
	}
	return out
}
