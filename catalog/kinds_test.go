package catalog_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKindGrids runs every read-write lock and semaphore of the catalog on
// the properties of its kind, on a real Redis, and requires the verdicts
// each kind's grid declares, exactly, and no note of a key written
// outside the lock's own; LOCKLAB_REPEAT times when set (make repeat),
// the same every time. With -update, it writes the grids instead.
func TestKindGrids(t *testing.T) {
	runs := 1
	if s := os.Getenv("LOCKLAB_REPEAT"); s != "" && !*update {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "LOCKLAB_REPEAT")
		runs = n
	}
	addr := redistest.Shared(t).Addr
	for _, k := range []strategy.Kind{strategy.ReadWrite, strategy.Semaphore} {
		t.Run(string(k), func(t *testing.T) {
			es := catalog.KindStrategies(k)
			require.NotEmpty(t, es)
			found := catalog.Found{}
			for i := 1; i <= runs; i++ {
				for _, e := range es {
					assert.Equal(t, k, kindOf(t, e), "%s is a %s lock", e.Name, k)
					for _, p := range locktest.KindProperties(k) {
						cfg := e.Config(locktest.Config{Addr: addr, Key: fmt.Sprintf("%s:%d:%s", redistest.Key(t), i, e.Name)})
						res := locktest.Check(context.Background(), cfg, p)
						require.NoError(t, res.Err, "%s %s: no verdict", e.Name, p)
						// Every key the lock wrote is one it declares
						// (strategy.Keyed, strategy.SideKeyed).
						for _, n := range res.Notes {
							assert.NotEqual(t, "keys.outside", n.ID, "%s %s: %s", e.Name, p, n)
						}
						found.Add(e.Name, p, res.Verdict)
						if *update {
							continue
						}
						strict := e.Expect
						strict.Strict = true
						assert.Empty(t, strict.Mismatch(res), "run %d: %s %s (%s)", i, e.Name, p, catalog.KindGridFile(k))
					}
				}
			}
			if *update {
				changes, err := catalog.UpdateKindGrid("..", k, found)
				require.NoError(t, err)
				for _, c := range changes {
					t.Logf("%s: %v", catalog.KindGridFile(k), c)
				}
				return
			}
			for _, e := range es {
				assert.Empty(t, e.Missing, "%s declares every property of its kind in %s: go test ./catalog -update", e.Name, catalog.KindGridFile(k))
			}
		})
	}
}

// kindOf builds e's strategy on a pool that is never used, to read its
// kind.
func kindOf(t *testing.T, e catalog.Entry) strategy.Kind {
	t.Helper()
	s, err := e.New(locktest.Client{Pool: redistest.Shared(t).NewPool(), Clock: strategy.ClockFunc(time.Now)})
	require.NoError(t, err, e.Name)
	return strategy.KindOf(s)
}
