package redistest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/rs/xid"
)

// KeyPrefix starts every key made by [Key].
const KeyPrefix = "locklab-test:"

// How long Shared waits at most for Start.
const sharedStartTimeout = 2 * time.Minute

// The test binary's shared server.
var shared struct {
	mu     sync.Mutex
	tried  bool
	server *Server
	err    error
}

// Main runs the tests, then closes the shared server if one was started,
// and exits with the tests' exit code. Call it from TestMain:
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//
// Without it the shared server is not closed, but it does not outlive the
// test binary for long: a process is killed with it (on Linux) and a
// container expires (see LOCKLAB_REDIS_EXPIRE).
func Main(m *testing.M) {
	code := m.Run()
	if err := closeShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

func closeShared() error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	s := shared.server
	shared.server, shared.err, shared.tried = nil, nil, false
	if s == nil {
		return nil
	}
	return s.Close()
}

// TB is what Shared and Key use of a test: a testing.TB has it, and so
// does a locktest.Testing.
type TB interface {
	Helper()
	Name() string
	Fatal(args ...any)
	Logf(format string, args ...any)
}

// Shared returns the test binary's Redis server, starting it with [Start]
// on first use; every test of the binary gets the same one. When no server
// can be had, it fails the test with tb.Fatal and a message that says how
// to get one; later calls fail the same way without trying again.
func Shared(tb TB) *Server {
	tb.Helper()
	srv, started, err := sharedServer()
	if err != nil {
		tb.Fatal(err)
	}
	if started {
		tb.Logf("redistest: using %v", srv)
		for _, st := range srv.passedOver {
			tb.Logf("redistest: not using %s: %v", st.name, st.err)
		}
	}
	return srv
}

// sharedServer returns the shared server, starting it on first use; started
// says whether this call started it.
func sharedServer() (srv *Server, started bool, err error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.tried {
		shared.tried, started = true, true
		ctx, cancel := context.WithTimeout(context.Background(), sharedStartTimeout)
		shared.server, shared.err = Start(ctx)
		cancel()
	}
	return shared.server, started && shared.err == nil, shared.err
}

// ForExample is Pool and Key for Example functions, which have no
// testing.TB: a pool to the shared server, a key no one else uses, and a
// function that deletes the key and closes the pool. It panics when no
// server can be had, with the message that says how to get one.
func ForExample() (pool *redis.Pool, key string, done func()) {
	srv, _, err := sharedServer()
	if err != nil {
		panic(err)
	}
	pool = srv.NewPool()
	key = KeyPrefix + "example:" + xid.New().String()
	return pool, key, func() {
		c := pool.Get()
		c.Do("DEL", key)
		c.Close()
		pool.Close()
	}
}

// Pool returns a new connection pool to the shared server, closed when the
// test and its subtests are done.
func Pool(tb testing.TB) *redis.Pool {
	tb.Helper()
	p := Shared(tb).NewPool()
	tb.Cleanup(func() { p.Close() })
	return p
}

// Key returns a key that no other test uses, even on a server shared with
// other test runs: [KeyPrefix], the test's name made safe (characters
// other than letters, digits, '.', '_', '-' and '/' become '_'), a colon,
// and a new xid. Use it as is, or as a prefix for several keys.
func Key(tb TB) string {
	tb.Helper()
	return KeyPrefix + sanitize(tb.Name()) + ":" + xid.New().String()
}

func sanitize(name string) string {
	if name == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9',
			r == '.', r == '_', r == '-', r == '/':
			return r
		}
		return '_'
	}, name)
}
