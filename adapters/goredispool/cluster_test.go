package goredispool_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	redigo "github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/adapters/goredispool"
	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
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
						Addrs: []string{owner.Addr},
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
