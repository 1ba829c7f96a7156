package rueidispool_test

import (
	"testing"

	"github.com/locklab/locklab/adapters/rueidispool"
	"github.com/locklab/locklab/internal/redigoconn/conntest"
	"github.com/locklab/locklab/strategy"
	"github.com/redis/rueidis"
)

func TestMain(m *testing.M) { conntest.Main(m) }

// The tests of the client kinds run in parallel, each on a client of its
// own and keys of its own, after the conformance test, which runs alone.

// pool returns a pool on a new client with opt, closed when the test ends.
func pool(opt func() rueidis.ClientOption) func(t *testing.T) strategy.Pool {
	return func(t *testing.T) strategy.Pool {
		c, err := rueidis.NewClient(opt())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return rueidispool.New(c)
	}
}

func TestClient(t *testing.T) {
	t.Parallel()
	conntest.Run(t, pool(func() rueidis.ClientOption {
		return rueidis.ClientOption{InitAddress: []string{conntest.Addr()}}
	}), conntest.Features{})
}

func TestClientRESP2(t *testing.T) {
	t.Parallel()
	conntest.Run(t, pool(func() rueidis.ClientOption {
		return rueidis.ClientOption{InitAddress: []string{conntest.Addr()}, AlwaysRESP2: true, DisableCache: true}
	}), conntest.Features{})
}

func TestClientWithoutAutoPipelining(t *testing.T) {
	t.Parallel()
	conntest.Run(t, pool(func() rueidis.ClientOption {
		return rueidis.ClientOption{InitAddress: []string{conntest.Addr()}, DisableAutoPipelining: true}
	}), conntest.Features{})
}

// A client of the master that Sentinel names.
func TestSentinel(t *testing.T) {
	t.Parallel()
	sentinel := conntest.Sentinel(t)
	conntest.Run(t, pool(func() rueidis.ClientOption {
		return rueidis.ClientOption{InitAddress: []string{sentinel}, Sentinel: rueidis.SentinelOption{MasterSet: conntest.MasterName}}
	}), conntest.Features{})
}

// A client of a cluster of one node in cluster mode.
func TestCluster(t *testing.T) {
	t.Parallel()
	addr := conntest.Cluster(t)
	conntest.Run(t, pool(func() rueidis.ClientOption {
		return rueidis.ClientOption{InitAddress: []string{addr}}
	}), conntest.Features{Server: addr})
}
