package rueidispool_test

import (
	"testing"

	"github.com/locklab/locklab/adapters/rueidispool"
	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/redis/rueidis"
)

// TestConformance runs the conformance suite on luatoken, plain and with
// auto-renewal and fencing, on a rueidis client of each simulated client's
// own, dialing the suite's proxy: every verdict must be the one catalog
// declares for luatoken on a redigo pool.
func TestConformance(t *testing.T) {
	for _, name := range []string{"luatoken", "luatoken-renew-fence"} {
		e, ok := catalog.Lookup(name)
		if !ok {
			t.Fatalf("%s is missing from the catalog", name)
		}
		t.Run(name, func(t *testing.T) {
			locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
				client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{c.Addr}, Password: c.Password})
				if err != nil {
					return nil, err
				}
				c.Cleanup(client.Close)
				c.Pool = rueidispool.New(client)
				return e.New(c)
			}, e.Expect)
		})
	}
}
