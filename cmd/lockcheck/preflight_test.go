package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onServer runs lockcheck with -redis addr and args; it returns the exit
// status, standard output and standard error.
func onServer(t *testing.T, addr string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"-redis", addr}, args...)
	code = lockcheck(context.Background(), args, env{stdout: &out, stderr: &errOut, start: redistest.Start})
	t.Logf("lockcheck %s: exit %d\nstderr:\n%s", strings.Join(args, " "), code, &errOut)
	return code, out.String(), errOut.String()
}

// assertRefused checks a run that a preflight refused: exit 2, no matrix,
// no check, and want said once.
func assertRefused(t *testing.T, code int, stdout, stderr, want string) {
	t.Helper()
	assert.Equal(t, exitUsage, code, "exit status")
	assert.Empty(t, stdout, "no matrix")
	assert.Equal(t, 1, strings.Count(stderr, want), "%q said once", want)
	assert.NotRegexp(t, progressLine, stderr, "no check ran")
	assert.Equal(t, 2, strings.Count(stderr, "\n"), "two lines: the server, and why it cannot take the run")
}

// startProcess starts a redis-server of the test's own, closed when the
// test ends; it skips the test when redis-server is not on PATH.
func startProcess(t *testing.T) *redistest.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := redistest.StartProcess(ctx)
	if errors.Is(err, redistest.ErrNoRedisServer) {
		t.Skip(err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// startCluster starts a Redis Cluster of masters, closed when the test
// ends; it skips the test when redis-server is not on PATH.
func startCluster(t *testing.T, masters int) *redistest.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := redistest.StartCluster(ctx, masters)
	if errors.Is(err, redistest.ErrNoRedisServer) {
		t.Skip(err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestReplica: pointed at a replica, lockcheck (and lockcheck -cleanup)
// says once that it is one, names its primary, and exits 2 before any
// check.
func TestReplica(t *testing.T) {
	primary, replica := startProcess(t), startProcess(t)
	host, port, _ := strings.Cut(primary.Addr, ":")
	_, err := redis.String(do(t, replica, "REPLICAOF", host, port))
	require.NoError(t, err)

	code, stdout, stderr := onServer(t, replica.Addr, subset...)
	assertRefused(t, code, stdout, stderr,
		"lockcheck: the Redis at "+replica.Addr+" is a read-only replica of "+primary.Addr+": point -redis at its primary (-redis "+primary.Addr+")\n")
	assert.NotContains(t, stderr, "READONLY")
	code, stdout, stderr = onServer(t, replica.Addr, "-cleanup")
	assertRefused(t, code, stdout, stderr, "is a read-only replica of "+primary.Addr)

	code, _, stderr = onServer(t, primary.Addr, subset...)
	assert.Equal(t, exitOK, code, "on the primary:\n%s", stderr)
}

// TestSentinel: pointed at a Sentinel, lockcheck says once that it is
// one, names the primary it watches, and exits 2 before any check.
func TestSentinel(t *testing.T) {
	primary := startProcess(t)
	host, port, _ := strings.Cut(primary.Addr, ":")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	_, sport, _ := strings.Cut(addr, ":")
	l.Close()
	// A Sentinel rewrites its configuration file: it needs one of its own.
	conf := filepath.Join(t.TempDir(), "sentinel.conf")
	require.NoError(t, os.WriteFile(conf, []byte("bind 127.0.0.1\nport "+sport+"\nsentinel monitor main "+host+" "+port+" 1\n"), 0o600))
	cmd := exec.Command("redis-server", conf, "--sentinel")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sentinel := &redistest.Server{Addr: addr}
	waitFor(t, "the Sentinel to answer", func() bool {
		c, err := sentinel.Dial(context.Background())
		if err != nil {
			return false
		}
		defer c.Close()
		_, err = c.Do("PING")
		return err == nil
	})

	code, stdout, stderr := onServer(t, addr, subset...)
	assertRefused(t, code, stdout, stderr, "lockcheck: the Redis at "+addr+" is a Sentinel, which holds no keys: "+
		"point -redis at a primary it watches (main at "+primary.Addr+")\n")
}

// TestCluster: pointed at a node of a Redis Cluster, lockcheck runs on it,
// under a hash tag of a slot the node serves; every verdict is the
// declared one and no key is left on any node. The checks chosen write
// through Lua (luatoken's acquire touches the lock and its fencing
// counter), MULTI/EXEC under WATCH and plain commands.
func TestCluster(t *testing.T) {
	c := startCluster(t, 3)
	node := c.Nodes[1]
	first, last := c.Range(1)

	code, stdout, stderr := onServer(t, node.Addr,
		"-strategy", "setnxpx,watchdel,luatoken-renew-fence", "-property", "safe-release,double-release,fenced-overrun")
	require.Equal(t, exitOK, code, "exit status")
	m := regexp.MustCompile(fmt.Sprintf(`(?m)^lockcheck: a Redis Cluster node serving %d of the 16384 slots: the run's keys go to slot (\d+), under \{lockcheck:\w+\}$`, last-first+1)).FindStringSubmatch(stderr)
	require.NotNil(t, m, "the line that says where the keys go")
	slot, _ := strconv.Atoi(m[1])
	assert.True(t, slot >= first && slot <= last, "slot %d is one of %s's, %d-%d", slot, node.Name, first, last)
	assert.Equal(t, 9, strings.Count(stderr, "as declared"), "progress lines")
	assert.Regexp(t, `(?m)^safe-release +breaks +holds +holds$`, stdout)
	assert.Regexp(t, `(?m)^fenced-overrun +breaks +breaks +holds$`, stdout)
	for _, n := range c.Nodes {
		keys, err := redis.Int(n.Do(context.Background(), "DBSIZE"))
		require.NoError(t, err)
		assert.Zero(t, keys, "keys left on %s", n.Name)
	}
}

// TestClusterUnserved: a node of a Cluster that is down, or a primary that
// serves no slot, cannot take the run: lockcheck says so once and exits 2.
func TestClusterUnserved(t *testing.T) {
	c := startCluster(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// node-1's slots are unassigned everywhere: the Cluster is down.
	first, last := c.Range(1)
	for _, n := range []*redistest.Node{c.Nodes[1], c.Nodes[0]} {
		_, err := n.Do(ctx, "CLUSTER", "DELSLOTSRANGE", first, last)
		require.NoError(t, err, "CLUSTER DELSLOTSRANGE on %s", n.Name)
	}
	waitFor(t, "node-0 to see the Cluster down", func() bool {
		info, err := redis.String(c.Nodes[0].Do(ctx, "CLUSTER", "INFO"))
		return err == nil && strings.Contains(info, "cluster_state:fail")
	})
	code, stdout, stderr := onServer(t, c.Nodes[0].Addr, subset...)
	assertRefused(t, code, stdout, stderr,
		"lockcheck: the Redis at "+c.Nodes[0].Addr+" is a node of a Redis Cluster that is down (cluster_state:fail), which serves no key: "+
			"mend the Cluster (redis-cli --cluster check "+c.Nodes[0].Addr+" says what is wrong) and run again\n")

	// node-0 takes them: the Cluster is whole again, and node-1 serves none.
	_, err := c.Nodes[0].Do(ctx, "CLUSTER", "ADDSLOTSRANGE", first, last)
	require.NoError(t, err)
	require.NoError(t, c.WaitOK(ctx))
	code, stdout, stderr = onServer(t, c.Nodes[1].Addr, subset...)
	assertRefused(t, code, stdout, stderr,
		"lockcheck: the Redis at "+c.Nodes[1].Addr+" is a Redis Cluster primary that serves no hash slot, so no key can be written there: "+
			"point -redis at a node that serves some (CLUSTER SHARDS lists them)\n")
}

// do sends one command to srv on a connection of its own.
func do(t *testing.T, srv *redistest.Server, cmd string, args ...any) (any, error) {
	t.Helper()
	c := dial(t, srv)
	return c.Do(cmd, args...)
}
