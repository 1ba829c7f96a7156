package goredispool_test

import (
	"context"
	"testing"

	"github.com/locklab/locklab/adapters/goredispool"
	"github.com/locklab/locklab/internal/redigoconn/conntest"
	"github.com/locklab/locklab/strategy"
	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) { conntest.Main(m) }

// The tests of the client kinds run in parallel, each on a client of its
// own and keys of its own, after the conformance test, which runs alone.

// pool returns a pool on the client made by mk, closed when the test ends.
func pool(mk func() redis.UniversalClient) func(t *testing.T) strategy.Pool {
	return func(t *testing.T) strategy.Pool {
		c := mk()
		t.Cleanup(func() { c.Close() })
		return goredispool.New(c)
	}
}

func TestClient(t *testing.T) {
	t.Parallel()
	conntest.Run(t, pool(func() redis.UniversalClient {
		return redis.NewClient(&redis.Options{Addr: conntest.Addr(), ContextTimeoutEnabled: true})
	}), conntest.Features{})
}

func TestClientRESP2(t *testing.T) {
	t.Parallel()
	conntest.Run(t, pool(func() redis.UniversalClient {
		return redis.NewClient(&redis.Options{Addr: conntest.Addr(), Protocol: 2, ContextTimeoutEnabled: true})
	}), conntest.Features{})
}

// A cluster client on the one server, which owns every slot: go-redis's
// ClusterSlots makes a cluster of servers that are not in cluster mode.
func TestClusterClient(t *testing.T) {
	t.Parallel()
	conntest.Run(t, pool(func() redis.UniversalClient {
		return redis.NewClusterClient(&redis.ClusterOptions{
			ClusterSlots: func(context.Context) ([]redis.ClusterSlot, error) {
				return []redis.ClusterSlot{{Start: 0, End: 16383, Nodes: []redis.ClusterNode{{Addr: conntest.Addr()}}}}, nil
			},
			ContextTimeoutEnabled: true,
		})
	}), conntest.Features{})
}

func TestUniversalClient(t *testing.T) {
	t.Parallel()
	conntest.Run(t, pool(func() redis.UniversalClient {
		return redis.NewUniversalClient(&redis.UniversalOptions{Addrs: []string{conntest.Addr()}, ContextTimeoutEnabled: true})
	}), conntest.Features{})
}

// A ring cannot pin a connection: everything works but WATCH and MULTI.
func TestRing(t *testing.T) {
	t.Parallel()
	conntest.Run(t, pool(func() redis.UniversalClient {
		return redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"one": conntest.Addr()}, ContextTimeoutEnabled: true})
	}), conntest.Features{NoPin: true})
}

// A failover client finds the master through Sentinel.
func TestFailoverClient(t *testing.T) {
	t.Parallel()
	sentinel := conntest.Sentinel(t)
	conntest.Run(t, pool(func() redis.UniversalClient {
		return redis.NewFailoverClient(&redis.FailoverOptions{
			MasterName: conntest.MasterName, SentinelAddrs: []string{sentinel}, ContextTimeoutEnabled: true,
		})
	}), conntest.Features{})
}

// A universal client with a master name is a failover client.
func TestUniversalFailover(t *testing.T) {
	t.Parallel()
	sentinel := conntest.Sentinel(t)
	conntest.Run(t, pool(func() redis.UniversalClient {
		return redis.NewUniversalClient(&redis.UniversalOptions{
			MasterName: conntest.MasterName, Addrs: []string{sentinel}, ContextTimeoutEnabled: true,
		})
	}), conntest.Features{})
}

// A cluster client on a cluster of one node in cluster mode.
func TestClusterClientOnCluster(t *testing.T) {
	t.Parallel()
	addr := conntest.Cluster(t)
	conntest.Run(t, pool(func() redis.UniversalClient {
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr}, ContextTimeoutEnabled: true})
	}), conntest.Features{Server: addr})
}
