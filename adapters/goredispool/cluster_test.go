package goredispool_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	redigo "github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/adapters/goredispool"
	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/redis/go-redis/v9"
	"github.com/rs/xid"
)

// startCluster starts a three-master Redis Cluster, closed when the test
// ends; it skips the test when redis-server is not on PATH.
func startCluster(t *testing.T) *redistest.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := redistest.StartCluster(ctx, 3)
	if errors.Is(err, redistest.ErrNoRedisServer) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// slotOf returns key's hash slot, as the cluster computes it.
func slotOf(t *testing.T, c *redistest.Cluster, key string) int {
	t.Helper()
	slot, err := redigo.Int(c.Nodes[0].Do(context.Background(), "CLUSTER", "KEYSLOT", key))
	if err != nil {
		t.Fatalf("CLUSTER KEYSLOT %q: %v", key, err)
	}
	return slot
}

// tagOn returns a hash tag ("{...}") unique to this call whose slot node i
// of c owns.
func tagOn(t *testing.T, c *redistest.Cluster, i int) string {
	t.Helper()
	first, last := c.Range(i)
	for range 1000 {
		tag := "{lc-" + xid.New().String() + "}"
		if s := slotOf(t, c, tag); s >= first && s <= last {
			return tag
		}
	}
	t.Fatalf("no tag found in the slots of %s", c.Nodes[i].Name)
	return ""
}

// TestClusterConformance runs the conformance suite on luatoken, plain and
// with auto-renewal and fencing, on a go-redis ClusterClient of each
// simulated client's own, on a real three-master Cluster: every verdict
// must be the one catalog declares for luatoken on a redigo pool, strictly.
//
// The suite injects its faults in each client's proxy (Client.Addr), which
// forwards to one server, Config.Addr. So every key of the run is in one
// slot: the lock key starts with a hash tag, which every key the suite
// derives from it (Key + ":" + property + ...) and luatoken's counter key
// (key + ":fence") keep. Config.Addr is that slot's master, and the
// ClusterClient's Dialer sends each of its node connections to the proxy:
// the client is a real ClusterClient, which learns the slot map with
// CLUSTER SLOTS and routes each command by its key's slot to the master
// that CLUSTER SLOTS names, and whatever node it picks, the connection
// reaches the slot's master through the proxy, so that the suite sees and
// can cut every command. The slot is one of node-0's, which also owns slot
// 0, the slot of the key "" that the contract locks: the contract's keys
// are all served where the client's commands go.
func TestClusterConformance(t *testing.T) {
	c := startCluster(t)
	tag := tagOn(t, c, 0)
	for _, name := range []string{"luatoken", "luatoken-renew-fence"} {
		e, ok := catalog.Lookup(name)
		if !ok {
			t.Fatalf("%s is missing from the catalog", name)
		}
		t.Run(name, func(t *testing.T) {
			expect := e.Expect
			expect.Strict = true
			key := tag + ":" + name
			owner := c.Owner(slotOf(t, c, key))
			if owner != c.Nodes[0] {
				t.Fatalf("%s is served by %s, want node-0", key, owner.Name)
			}
			locktest.RunConfig(t, locktest.Config{
				Addr: owner.Addr,
				Key:  key,
				New: func(lc locktest.Client) (strategy.Strategy, error) {
					rdb := redis.NewClusterClient(&redis.ClusterOptions{
						Addrs:    []string{owner.Addr},
						Password: lc.Password,
						Dialer: func(ctx context.Context, network, _ string) (net.Conn, error) {
							var d net.Dialer
							return d.DialContext(ctx, network, lc.Addr)
						},
						ContextTimeoutEnabled: true,
					})
					lc.Cleanup(func() { rdb.Close() })
					// The client's handshake, its first CLUSTER SLOTS and
					// its COMMAND (the command table, which it reads
					// before its first command) belong to the factory,
					// not to the first acquire: the suite counts the
					// commands of an acquire from the factory's return.
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					if err := rdb.Ping(ctx).Err(); err != nil {
						return nil, err
					}
					lc.Pool = goredispool.New(rdb)
					return e.New(lc)
				},
			}, expect)
		})
	}
	// Every key the runs left on node-0 is in the tag's slot: the suite
	// derived none without the tag (a command on such a key would have
	// been redirected, and failed).
	ctx := context.Background()
	slot := slotOf(t, c, tag)
	inSlot, err := redigo.Int(c.Nodes[0].Do(ctx, "CLUSTER", "COUNTKEYSINSLOT", slot))
	if err != nil {
		t.Fatal(err)
	}
	all, err := redigo.Int(c.Nodes[0].Do(ctx, "DBSIZE"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the runs left %d keys on node-0, %d of them in slot %d", all, inSlot, slot)
	if inSlot == 0 || inSlot != all {
		t.Errorf("node-0 holds %d keys, %d of them in the tag's slot %d: want all, and some", all, inSlot, slot)
	}
}

// clusterClient returns a ClusterClient on c, as a program would open one
// (the addresses of the masters, go-redis's defaults otherwise), closed
// when the test ends.
func clusterClient(t *testing.T, c *redistest.Cluster) *redis.ClusterClient {
	t.Helper()
	var addrs []string
	for _, n := range c.Nodes {
		addrs = append(addrs, n.Addr)
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ContextTimeoutEnabled: true})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// TestClusterSlotMigration moves the slot of a held luatoken lock (with
// fencing and auto-renewal) to another master, as redis-cli --cluster
// reshard does, and checks the lock at each step: another client, with
// and without fencing, on a ClusterClient of its own, never gets it; the
// holder's Refresh, TTL and renewals keep working, go-redis following the
// ASK and MOVED redirections; the fencing counter moves with the lock, so
// that the next token, drawn on the new master, follows the last one; and
// once released, the lock is free on the new master.
func TestClusterSlotMigration(t *testing.T) {
	c := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	key := "{" + xid.New().String() + "}:lock"
	fence := luatoken.FenceKey(key)
	slot := slotOf(t, c, key)
	if s := slotOf(t, c, fence); s != slot {
		t.Fatalf("the counter key %q is in slot %d, the lock key in %d", fence, s, slot)
	}
	from := c.Owner(slot)
	var to int
	for i, n := range c.Nodes {
		if n == from {
			to = (i + 1) % len(c.Nodes)
		}
	}
	t.Logf("%s: slot %d, from %s to %s", key, slot, from.Name, c.Nodes[to].Name)

	holderLocks, err := luatoken.New(goredispool.New(clusterClient(t, c)), luatoken.WithFencing(), luatoken.WithAutoRenew(0))
	if err != nil {
		t.Fatal(err)
	}
	otherPool := goredispool.New(clusterClient(t, c))
	otherFenced, err := luatoken.New(otherPool, luatoken.WithFencing())
	if err != nil {
		t.Fatal(err)
	}
	otherPlain, err := luatoken.New(otherPool)
	if err != nil {
		t.Fatal(err)
	}

	// A token drawn before, so that the holder's is not the first.
	l0, err := otherFenced.TryAcquire(ctx, key, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := l0.Release(ctx); err != nil {
		t.Fatal(err)
	}
	const ttl = 10 * time.Second
	l, err := holderLocks.TryAcquire(ctx, key, ttl)
	if err != nil {
		t.Fatal(err)
	}
	held := l.(*luatoken.Lock)
	token, _ := held.FencingToken()
	token0, _ := l0.(*luatoken.Lock).FencingToken()
	if token != token0+1 {
		t.Fatalf("the holder's token is %d after %d", token, token0)
	}
	lease, _ := held.Lease()

	// check says what the other client and the holder get at one step
	// of the migration. tryAgain: the other's fenced attempt, whose script
	// names the lock key and the counter, meets the slot with one of them
	// moved, and gets TRYAGAIN.
	check := func(step string, tryAgain bool) {
		t.Helper()
		for name, s := range map[string]*luatoken.Strategy{"fenced": otherFenced, "plain": otherPlain} {
			l, err := s.TryAcquire(ctx, key, ttl)
			switch {
			case l != nil:
				t.Fatalf("%s: the other client's %s TryAcquire got the held lock", step, name)
			case tryAgain && name == "fenced":
				if err == nil || !strings.Contains(err.Error(), "TRYAGAIN") {
					t.Errorf("%s: the other client's %s TryAcquire = %v, want a TRYAGAIN error", step, name, err)
				}
			case !errors.Is(err, strategy.ErrNotAcquired):
				t.Errorf("%s: the other client's %s TryAcquire = %v, want ErrNotAcquired", step, name, err)
			}
			t.Logf("%s: the other client's %s TryAcquire: %v", step, name, err)
		}
		if err := held.Refresh(ctx, ttl); err != nil {
			t.Errorf("%s: the holder's Refresh: %v", step, err)
		}
		if left, err := held.TTL(ctx); err != nil || left <= 0 || left > ttl {
			t.Errorf("%s: the holder's TTL = %v, %v; want at most %v left", step, left, err, ttl)
		}
		if lease.Err() != nil {
			t.Errorf("%s: the holder's lease ended: %v", step, context.Cause(lease))
		}
	}

	check("before the migration", false)
	m, err := c.StartMigration(ctx, slot, to)
	if err != nil {
		t.Fatal(err)
	}
	check("slot migrating, no key moved", false)
	if err := m.MoveKeys(ctx, key); err != nil {
		t.Fatal(err)
	}
	check("slot migrating, the lock key moved and not its counter (ASK for the lock key)", true)
	if err := m.MoveKeys(ctx); err != nil {
		t.Fatal(err)
	}
	check("slot migrating, both keys moved (ASK)", false)
	if err := m.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	check("slot migrated (MOVED)", false)

	// The lock and its counter are on the new master only.
	for _, k := range []string{key, fence} {
		if n, err := redigo.Int(c.Nodes[to].Do(ctx, "EXISTS", k)); err != nil || n != 1 {
			t.Errorf("EXISTS %s on %s = %d, %v; want 1", k, c.Nodes[to].Name, n, err)
		}
	}
	if n, err := redigo.Int(from.Do(ctx, "DBSIZE")); err != nil || n != 0 {
		t.Errorf("DBSIZE on %s, the old master = %d, %v; want 0", from.Name, n, err)
	}

	if err := held.Release(ctx); err != nil {
		t.Fatalf("the holder's Release after the migration: %v", err)
	}
	if cause := context.Cause(lease); !errors.Is(cause, luatoken.ErrReleased) {
		t.Errorf("the lease ended with %v, want ErrReleased", cause)
	}
	l2, err := otherFenced.TryAcquire(ctx, key, ttl)
	if err != nil {
		t.Fatalf("the other client's TryAcquire after the release: %v", err)
	}
	token2, _ := l2.(*luatoken.Lock).FencingToken()
	// The counter moved with the lock: a counter that had started again on
	// the new master would give 1.
	if token2 != token+1 {
		t.Errorf("the token drawn on the new master is %d, the holder's was %d: want %d", token2, token, token+1)
	}

	// And back, with the lock changing hands in the middle: once both keys
	// have moved (the slot still MIGRATING, the old owner answering ASK),
	// a Release works on the node that has them, and so does a plain
	// acquire. A fenced acquire of the free lock does not: its script names
	// the lock key, which exists nowhere, and the counter, which has moved,
	// and the importing node answers TRYAGAIN to a command on several keys
	// of the slot of which some are missing (they might still be on the
	// other node). It fails, with no lock, until the migration ends.
	back := slices.Index(c.Nodes, from)
	m, err = c.StartMigration(ctx, slot, back)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.MoveKeys(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l2.Release(ctx); err != nil {
		t.Fatalf("Release in the middle of the migration back (ASK): %v", err)
	}
	if l, err := holderLocks.TryAcquire(ctx, key, ttl); l != nil || err == nil || errors.Is(err, strategy.ErrNotAcquired) {
		t.Errorf("a fenced TryAcquire of the free lock in the middle of the migration back = %v, %v; want an error from the server and no lock", l, err)
	} else {
		t.Logf("a fenced TryAcquire of the free lock in the middle of the migration back: %v", err)
	}
	l3, err := otherPlain.TryAcquire(ctx, key, ttl)
	if err != nil {
		t.Fatalf("a plain TryAcquire in the middle of the migration back (ASK): %v", err)
	}
	// The importing node serves a command on the slot after ASKING only.
	if conn, err := from.Dial(ctx); err != nil {
		t.Error(err)
	} else {
		_, err := conn.Do("ASKING")
		n, err2 := redigo.Int(conn.Do("EXISTS", key))
		if err := errors.Join(err, err2); err != nil || n != 1 {
			t.Errorf("ASKING, EXISTS %s on %s, importing the slot = %d, %v; want 1", key, from.Name, n, err)
		}
		conn.Close()
	}
	if l, err := holderLocks.TryAcquire(ctx, key, ttl); !errors.Is(err, strategy.ErrNotAcquired) {
		t.Errorf("a fenced TryAcquire of the lock taken in the middle of the migration back = %v, %v; want ErrNotAcquired", l, err)
	}
	if err := m.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if l, err := otherFenced.TryAcquire(ctx, key, ttl); !errors.Is(err, strategy.ErrNotAcquired) {
		t.Errorf("the other client's TryAcquire after the migration back = %v, %v; want ErrNotAcquired", l, err)
	}
	if err := l3.Release(ctx); err != nil {
		t.Fatalf("Release after the migration back: %v", err)
	}
	l4, err := holderLocks.TryAcquire(ctx, key, ttl)
	if err != nil {
		t.Fatalf("a fenced TryAcquire after the migration back: %v", err)
	}
	if token4, _ := l4.(*luatoken.Lock).FencingToken(); token4 != token2+1 {
		t.Errorf("the token drawn after the migration back is %d, the last was %d: want %d", token4, token2, token2+1)
	}
	if err := l4.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
