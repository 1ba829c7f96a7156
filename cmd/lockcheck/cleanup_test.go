package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ownServer starts a Redis for one test alone, so that what it finds on
// the server is what the run under test left there: a redis-server process
// where one is on PATH, else what redistest.Start finds.
func ownServer(t *testing.T) *redistest.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := redistest.Start
	if _, err := exec.LookPath("redis-server"); err == nil {
		start = func(ctx context.Context) (*redistest.Server, error) { return redistest.StartProcess(ctx) }
	}
	srv, err := start(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	if srv.Kind == redistest.KindExternal {
		t.Skip("needs a Redis of its own; the one named by the environment is shared")
	}
	return srv
}

// lockcheckKeys lists the keys on the server that any run of lockcheck may
// have made.
func lockcheckKeys(t *testing.T, c redis.Conn) []string {
	t.Helper()
	var keys []string
	for _, pattern := range []string{"lockcheck:*", "{lockcheck:*"} {
		k, err := redis.Strings(c.Do("KEYS", pattern))
		require.NoError(t, err)
		keys = append(keys, k...)
	}
	slices.Sort(keys)
	return keys
}

// hasFenceKey reports whether one of keys is a fencing counter of luatoken.
func hasFenceKey(keys []string) bool {
	return slices.ContainsFunc(keys, func(k string) bool {
		return strings.HasPrefix(k, "{lockcheck:") && strings.HasSuffix(k, "}:fence")
	})
}

// TestCleanup: lockcheck -cleanup removes every key of earlier runs, locks
// and fencing counters, in any number, and nothing else; a second run finds
// nothing to remove.
func TestCleanup(t *testing.T) {
	srv := ownServer(t)
	c := dial(t, srv)
	var left []any
	for i := range 1200 { // more than one SCAN page and one DEL batch
		left = append(left, fmt.Sprintf("lockcheck:run%d:setnxdel:%d", i%3, i), "1")
	}
	left = append(left, "{lockcheck:run0:luatoken:k}:fence", "7")
	_, err := c.Do("MSET", left...)
	require.NoError(t, err)
	others := []string{"lockcheckx", "app:lockcheck:1", "{app}:lockcheck:", "user:1"}
	for _, k := range others {
		_, err := c.Do("SET", k, "v")
		require.NoError(t, err)
	}

	run := func() (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := lockcheck(context.Background(), []string{"-cleanup", "-redis", srv.Addr},
			env{stdout: &stdout, stderr: &stderr, start: redistest.Start})
		return code, stdout.String(), stderr.String()
	}
	code, stdout, stderr := run()
	assert.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "removed 1201 keys matching lockcheck:* and {lockcheck:* from "+srv.Addr+"\n", stdout)
	assert.Empty(t, lockcheckKeys(t, c))
	for _, k := range others {
		n, err := redis.Int(c.Do("EXISTS", k))
		require.NoError(t, err)
		assert.Equal(t, 1, n, "%s is not lockcheck's and must stay", k)
	}

	code, stdout, _ = run()
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "removed 0 keys matching lockcheck:* and {lockcheck:* from "+srv.Addr+"\n", stdout)
}

// TestCleanupUsage: -cleanup wants a server named, and no other flag.
func TestCleanupUsage(t *testing.T) {
	t.Setenv(redistest.EnvAddr, "")
	t.Setenv(redistest.EnvURL, "")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-cleanup"}, "-cleanup: no server named: give -redis host:port"},
		{[]string{"-cleanup", "-redis", "127.0.0.1:1", "-runs", "2"}, "-cleanup takes no other flag than -redis and -tls-*, nor arguments (got -runs)"},
		{[]string{"-cleanup", "-redis", "127.0.0.1:1", "README.md"}, "-cleanup takes no other flag than -redis and -tls-*, nor arguments (got README.md)"},
	} {
		var stdout, stderr bytes.Buffer
		code := lockcheck(context.Background(), tt.args, env{stdout: &stdout, stderr: &stderr, start: redistest.Start})
		assert.Equal(t, exitUsage, code, "%q", tt.args)
		assert.Contains(t, stderr.String(), tt.want, "%q", tt.args)
		assert.Empty(t, stdout.String())
	}
}

// TestCleanupAfterClientKill: connections cut by the server near the end of
// a run (CLIENT KILL of every client but the test's own) neither turn the
// last check into an error, since each check dials its own, nor stop the
// cleanup, which dials afresh: no key of the run remains.
func TestCleanupAfterClientKill(t *testing.T) {
	srv := ownServer(t)
	c := dial(t, srv)
	args := []string{"-redis", srv.Addr, "-strategy", "setnxdel,luatoken-renew-fence", "-property", "crash-recovery,holder-overrun"}
	seen := 0
	stderr := &lineWatcher{hit: make(chan struct{}), match: func(line string) bool {
		if progressLine.MatchString(line) {
			seen++
		}
		return seen == 3 // the last check is under way
	}}
	done := make(chan int)
	go func() {
		done <- lockcheck(context.Background(), args, env{stdout: io.Discard, stderr: stderr, start: redistest.Start})
	}()
	killed := 0
	select {
	case <-stderr.hit:
	case code := <-done:
		t.Fatalf("lockcheck ended (exit %d) before its last check:\n%s", code, stderr)
	}
	// Each check dials its own connections: kill until some were cut (the
	// last check runs for a second and more).
	var code int
	for ended := false; !ended && killed == 0; {
		n, err := redis.Int(c.Do("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"))
		require.NoError(t, err)
		killed += n
		select {
		case code = <-done:
			ended = true
		case <-time.After(5 * time.Millisecond):
		}
	}
	if killed > 0 {
		code = <-done
	}
	t.Logf("killed %d connections; exit %d; stderr:\n%s", killed, code, stderr)
	assert.Positive(t, killed, "connections of the run were killed")
	assert.Equal(t, exitOK, code, "the killed connections are replaced, and every verdict is the declared one")
	assert.Empty(t, lockcheckKeys(t, c), "keys left on the server")
}
