//go:build unix

package redistest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
)

// alive reports whether a process with this id exists.
func alive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// pids returns the process ids of the nodes that are up, and fails the
// test if one is not.
func pids(t *testing.T, nodes []*redistest.Node) []int {
	t.Helper()
	var out []int
	for _, n := range nodes {
		pid := n.Pid()
		if pid == 0 || !alive(pid) {
			t.Fatalf("%s at %s has no running process (pid %d)", n.Name, n.Addr, pid)
		}
		out = append(out, pid)
	}
	return out
}

// requireTornDown checks that close leaves no process, directory or
// listening address behind.
func requireTornDown(t *testing.T, nodes []*redistest.Node, close func() error) {
	t.Helper()
	before := pids(t, nodes)
	mustNot(t, close(), "Close")
	for i, n := range nodes {
		if alive(before[i]) {
			t.Errorf("%s: process %d is still running after Close", n.Name, before[i])
		}
		if n.Pid() != 0 {
			t.Errorf("%s: Pid() = %d after Close, want 0", n.Name, n.Pid())
		}
		if _, err := os.Stat(n.Dir()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: its directory %s is still there after Close (%v)", n.Name, n.Dir(), err)
		}
		if ping(n.Addr) == nil {
			t.Errorf("%s: %s still answers PING after Close", n.Name, n.Addr)
		}
	}
}

func do(t *testing.T, n *redistest.Node, cmd string, args ...any) any {
	t.Helper()
	reply, err := n.Do(context.Background(), cmd, args...)
	if err != nil {
		t.Fatalf("%s on %s: %v", cmd, n.Name, err)
	}
	return reply
}

// get returns GET key on n, "" when the key is missing.
func get(t *testing.T, n *redistest.Node, key string) string {
	t.Helper()
	v, err := redis.String(do(t, n, "GET", key), nil)
	if errors.Is(err, redis.ErrNil) {
		return ""
	}
	mustNot(t, err, "GET")
	return v
}

func runID(t *testing.T, n *redistest.Node) string {
	t.Helper()
	s, err := redis.String(do(t, n, "INFO", "server"), nil)
	mustNot(t, err, "INFO server")
	for line := range strings.SplitSeq(s, "\r\n") {
		if v, ok := strings.CutPrefix(line, "run_id:"); ok {
			return v
		}
	}
	t.Fatalf("INFO server on %s has no run_id", n.Name)
	return ""
}

func TestStartMasters(t *testing.T) {
	start := time.Now()
	m, err := redistest.StartMasters(startCtx(t), 3)
	mustNot(t, err, "StartMasters")
	t.Logf("3 masters up in %v", time.Since(start))
	closed := false
	t.Cleanup(func() {
		if !closed {
			m.Close()
		}
	})
	wantEqual(t, len(m.Nodes), 3, "the number of nodes")
	seen := map[string]bool{}
	for i, n := range m.Nodes {
		wantEqual(t, n.Name, fmt.Sprintf("master-%d", i), "Name")
		wantEqual(t, m.Addrs()[i], n.Addr, "Addrs()")
		if seen[n.Addr] || !strings.HasPrefix(n.Addr, "127.0.0.1:") {
			t.Errorf("%s: address %s is repeated or not on loopback", n.Name, n.Addr)
		}
		seen[n.Addr] = true
		role, err := redis.Values(do(t, n, "ROLE"), nil)
		mustNot(t, err, "ROLE")
		wantEqual(t, string(role[0].([]byte)), "master", "ROLE of "+n.Name)
	}

	// Independent: a key written on one is on no other.
	key := redistest.Key(t)
	do(t, m.Nodes[0], "SET", key, "m0")
	wantEqual(t, get(t, m.Nodes[0], key), "m0", "GET on master-0")
	wantEqual(t, get(t, m.Nodes[1], key), "", "GET on master-1")
	pools := m.NewPools()
	for i, p := range pools {
		c := p.Get()
		n, err := redis.Int(c.Do("EXISTS", key))
		mustNot(t, err, "EXISTS through NewPools")
		wantEqual(t, n == 1, i == 0, fmt.Sprintf("key exists on pool %d", i))
		c.Close()
		p.Close()
	}

	// A killed node is gone; started again, it is empty, on the same address.
	n1 := m.Nodes[1]
	do(t, n1, "SET", key, "m1")
	oldPid, oldRun := n1.Pid(), runID(t, n1)
	mustNot(t, n1.Kill(), "Kill")
	wantEqual(t, n1.Pid(), 0, "Pid() after Kill")
	if alive(oldPid) {
		t.Errorf("process %d still runs after Kill", oldPid)
	}
	if ping(n1.Addr) == nil {
		t.Error("a killed node still answers PING")
	}
	wantEqual(t, get(t, m.Nodes[0], key), "m0", "GET on master-0 while master-1 is down")
	mustNot(t, n1.Kill(), "Kill of a node that is down")
	mustNot(t, n1.Start(startCtx(t)), "Start")
	if n1.Start(startCtx(t)) == nil {
		t.Error("Start of a node that is up did not fail")
	}
	wantEqual(t, get(t, n1, key), "", "GET after a restart without persistence")
	if runID(t, n1) == oldRun {
		t.Error("run_id did not change across the restart")
	}
	do(t, n1, "SET", key, "again")
	mustNot(t, n1.Restart(startCtx(t)), "Restart")
	wantEqual(t, get(t, n1, key), "", "GET after Restart")

	requireTornDown(t, m.Nodes, m.Close)
	closed = true
	if m.Nodes[0].Start(startCtx(t)) == nil {
		t.Error("Start of a closed node did not fail")
	}
}

func TestStartReplicated(t *testing.T) {
	start := time.Now()
	r, err := redistest.StartReplicated(startCtx(t))
	mustNot(t, err, "StartReplicated")
	t.Logf("primary and replica up and synced in %v", time.Since(start))
	closed := false
	t.Cleanup(func() {
		if !closed {
			r.Close()
		}
	})
	ctx := startCtx(t)
	p, rep := r.Primary, r.Replica
	wantEqual(t, p.Name, "primary", "Primary.Name")
	wantEqual(t, rep.Name, "replica", "Replica.Name")

	// Writes reach the replica, which refuses its own.
	k1 := redistest.Key(t)
	do(t, p, "SET", k1, "one")
	mustNot(t, r.WaitReplicated(ctx), "WaitReplicated")
	wantEqual(t, get(t, rep, k1), "one", "GET on the replica")
	_, err = rep.Do(ctx, "SET", k1, "mine")
	if err == nil || !strings.HasPrefix(err.Error(), "READONLY") {
		t.Errorf("SET on the replica = %v, want a READONLY error", err)
	}

	// Held, the link carries nothing; resumed, it catches up.
	r.HoldReplication()
	k2 := redistest.Key(t)
	do(t, p, "SET", k2, "two")
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err = r.WaitReplicated(wctx)
	cancel()
	if err == nil {
		t.Error("WaitReplicated returned while the link was held")
	}
	wantEqual(t, get(t, rep, k2), "", "GET on the replica while the link is held")
	r.ResumeReplication()
	mustNot(t, r.WaitReplicated(ctx), "WaitReplicated after ResumeReplication")
	wantEqual(t, get(t, rep, k2), "two", "GET on the replica after ResumeReplication")

	// A failover while the link is held loses the write the primary
	// acknowledged: the replica is promoted without it.
	r.HoldReplication()
	k3 := redistest.Key(t)
	wantEqual(t, fmt.Sprint(do(t, p, "SET", k3, "three")), "OK", "SET on the primary")
	mustNot(t, p.Kill(), "Kill of the primary")
	mustNot(t, r.Promote(ctx), "Promote")
	wantEqual(t, get(t, rep, k3), "", "GET of the unreplicated write after the failover")
	wantEqual(t, get(t, rep, k1), "one", "GET of a replicated write after the failover")
	do(t, rep, "SET", k3, "promoted")
	wantEqual(t, get(t, rep, k3), "promoted", "GET after a write to the promoted replica")

	// The old primary, started again, comes back empty.
	mustNot(t, p.Start(ctx), "Start of the old primary")
	wantEqual(t, get(t, p, k1), "", "GET on the restarted primary")

	requireTornDown(t, r.Nodes(), r.Close)
	closed = true
}

func TestStartCluster(t *testing.T) {
	start := time.Now()
	c, err := redistest.StartCluster(startCtx(t), 3)
	mustNot(t, err, "StartCluster")
	t.Logf("3-master cluster ok in %v", time.Since(start))
	closed := false
	t.Cleanup(func() {
		if !closed {
			c.Close()
		}
	})
	ctx := startCtx(t)

	// The ranges cover every slot once, and each node agrees.
	next := 0
	for i, n := range c.Nodes {
		wantEqual(t, n.Name, fmt.Sprintf("node-%d", i), "Name")
		first, last := c.Range(i)
		wantEqual(t, first, next, fmt.Sprintf("first slot of %s", n.Name))
		next = last + 1
		wantEqual(t, c.Owner(first), n, "Owner of the first slot")
		wantEqual(t, c.Owner(last), n, "Owner of the last slot")
		info, err := redis.String(do(t, n, "CLUSTER", "INFO"), nil)
		mustNot(t, err, "CLUSTER INFO")
		for _, want := range []string{"cluster_state:ok", "cluster_known_nodes:3", "cluster_size:3", "cluster_slots_ok:16384"} {
			wantContains(t, info, want+"\r\n")
		}
		myself, err := redis.String(do(t, n, "CLUSTER", "NODES"), nil)
		mustNot(t, err, "CLUSTER NODES")
		for line := range strings.SplitSeq(strings.TrimSpace(myself), "\n") {
			if strings.Contains(line, "myself") {
				wantContains(t, line, fmt.Sprintf(" %d-%d", first, last))
			}
		}
	}
	wantEqual(t, next, redistest.Slots, "slots covered")

	// Each key is served by its owner; the others redirect to it.
	for i := range 6 {
		key := fmt.Sprintf("%s:%d", redistest.Key(t), i)
		owner, err := c.NodeFor(ctx, key)
		mustNot(t, err, "NodeFor")
		do(t, owner, "SET", key, "v")
		wantEqual(t, get(t, owner, key), "v", "GET on the owner")
		for _, n := range c.Nodes {
			if n == owner {
				continue
			}
			_, err := n.Do(ctx, "GET", key)
			if err == nil || !strings.HasPrefix(err.Error(), "MOVED ") || !strings.HasSuffix(err.Error(), " "+owner.Addr) {
				t.Errorf("GET %s on %s = %v, want MOVED to %s", key, n.Name, err, owner.Addr)
			}
		}
	}

	// A node restarted without persistence keeps its slots, not its keys.
	key := redistest.Key(t)
	owner, err := c.NodeFor(ctx, key)
	mustNot(t, err, "NodeFor")
	do(t, owner, "SET", key, "v")
	mustNot(t, owner.Restart(ctx), "Restart")
	mustNot(t, c.WaitOK(ctx), "WaitOK after the restart")
	wantEqual(t, get(t, owner, key), "", "GET on the restarted owner")

	requireTornDown(t, c.Nodes, c.Close)
	closed = true
}

func TestTopologiesWithoutRedisServer(t *testing.T) {
	t.Setenv("PATH", "")
	for name, start := range map[string]func(context.Context) error{
		"StartMasters":    func(ctx context.Context) error { _, err := redistest.StartMasters(ctx, 3); return err },
		"StartReplicated": func(ctx context.Context) error { _, err := redistest.StartReplicated(ctx); return err },
		"StartCluster":    func(ctx context.Context) error { _, err := redistest.StartCluster(ctx, 3); return err },
	} {
		err := start(startCtx(t))
		if !errors.Is(err, redistest.ErrNoRedisServer) {
			t.Errorf("%s with PATH empty = %v, want ErrNoRedisServer", name, err)
			continue
		}
		for _, want := range []string{"redis-server is not on PATH", "apt-get install redis-server", "scripts/setup-redis.sh"} {
			wantContains(t, err.Error(), want)
		}
	}
	if _, err := redistest.StartMasters(startCtx(t), 0); err == nil {
		t.Error("StartMasters(0) did not fail")
	}
	if _, err := redistest.StartCluster(startCtx(t), 0); err == nil {
		t.Error("StartCluster(0) did not fail")
	}
}

// TestShiftClock shows a node's clock jumping forward: its TIME moves by
// the shift, a key with ten seconds to live is expired at once, a key set
// after the jump lives its full TTL, and the shift survives a restart.
// A node started without the shim refuses to shift.
func TestShiftClock(t *testing.T) {
	ctx := context.Background()
	m, err := redistest.StartMasters(ctx, 2, redistest.WithMovableClocks())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	})
	n, other := m.Nodes[0], m.Nodes[1]
	before, err := n.ServerTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(before).Abs(); d > 2*time.Second {
		t.Fatalf("before any shift, %s's clock is %v off", n.Name, d)
	}
	for _, node := range m.Nodes {
		if _, err := node.Do(ctx, "SET", "k", "v", "PX", 10000); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.ShiftClock(time.Minute); err != nil {
		t.Fatal(err)
	}
	after, err := n.ServerTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(after); d < 59*time.Second || d > 61*time.Second {
		t.Fatalf("after a shift of a minute, %s's clock runs %v ahead", n.Name, d)
	}
	if v, err := n.Do(ctx, "GET", "k"); err != nil || v != nil {
		t.Fatalf("GET k on the shifted node = %v, %v; want nil: the key should have expired", v, err)
	}
	if v, err := redis.String(other.Do(ctx, "GET", "k")); err != nil || v != "v" {
		t.Fatalf("GET k on the other node = %q, %v; its clock did not move", v, err)
	}
	if _, err := n.Do(ctx, "SET", "k2", "v", "PX", 10000); err != nil {
		t.Fatal(err)
	}
	if ttl, err := redis.Int64(n.Do(ctx, "PTTL", "k2")); err != nil || ttl < 9000 {
		t.Fatalf("PTTL of a key set after the jump = %d, %v; want about 10000", ttl, err)
	}
	if err := n.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if after, err := n.ServerTime(ctx); err != nil || time.Until(after) < 59*time.Second {
		t.Fatalf("after a restart, %s's clock is %v (%v); want a minute ahead still", n.Name, after, err)
	}
	if err := n.ShiftClock(0); err != nil {
		t.Fatal(err)
	}
	if now, err := n.ServerTime(ctx); err != nil || time.Until(now).Abs() > 2*time.Second {
		t.Fatalf("with the shift back to 0, %s's clock is %v (%v)", n.Name, now, err)
	}

	plain, err := redistest.StartMasters(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := plain.Nodes[0].ShiftClock(time.Second); !errors.Is(err, redistest.ErrFixedClock) {
		t.Fatalf("ShiftClock on a node without the shim = %v; want ErrFixedClock", err)
	}
}
