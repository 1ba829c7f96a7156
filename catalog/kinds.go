package catalog

import (
	_ "embed"
	"sync"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/countersemaphore"
	"github.com/locklab/locklab/strategy/hashrwlock"
	"github.com/locklab/locklab/strategy/refcountrwlock"
	"github.com/locklab/locklab/strategy/rwlua"
	"github.com/locklab/locklab/strategy/semlua"
	"github.com/locklab/locklab/strategy/zsetsemaphore"
)

// The locks that are not mutexes have grids of their own, one per kind,
// whose rows are the properties of the kind (locktest.KindProperties) and
// whose columns are the read-write locks or the semaphores below: the
// mutex grid, GridFile, stays as it is.

// KindGridFile is where the declared grid of kind k lives, from the
// repository's root.
func KindGridFile(k strategy.Kind) string { return "catalog/verdicts-" + string(k) + ".txt" }

// OutsideKinds are the columns of each kind's grid declared outside this
// package (package recipes: the PHP libraries' read-write locks and
// semaphores).
var OutsideKinds = map[strategy.Kind][]string{
	strategy.ReadWrite: {"symfony-lock-shared"},
	strategy.Semaphore: {"symfony-semaphore", "laravel-funnel"},
}

// kindGridHeader starts a kind's grid file; %s is the kind.
const kindGridHeader = `# The declared verdicts of the %s locks on the properties of their
# kind (locktest.KindProperties). Cells: holds, breaks, n/a, or - (not
# checked). go test ./catalog -update rewrites it from a real run.
`

var (
	//go:embed verdicts-read-write.txt
	rwGridText string
	//go:embed verdicts-semaphore.txt
	semGridText string

	kindGrids = map[strategy.Kind]func() (*Grid, error){
		strategy.ReadWrite: sync.OnceValues(func() (*Grid, error) { return parseGrid(rwGridText, strategy.ReadWrite) }),
		strategy.Semaphore: sync.OnceValues(func() (*Grid, error) { return parseGrid(semGridText, strategy.Semaphore) }),
	}
)

// DeclaredKind returns the grid of KindGridFile(k), as embedded in the
// build; it panics as Declared does.
func DeclaredKind(k strategy.Kind) *Grid {
	g, err := kindGrids[k]()
	if err != nil {
		panic(err)
	}
	return g
}

// KindStrategies are the locks of kind k, strategy.ReadWrite or
// strategy.Semaphore, each with its column of the kind's grid.
func KindStrategies(k strategy.Kind) []Entry {
	es := kindStrategies(k)
	for i, e := range es {
		g := DeclaredKind(k)
		es[i].Expect, _ = g.Expect(e.Name)
		es[i].Missing = g.Missing(e.Name)
	}
	return es
}

// semaphorePermits is how many permits the catalog's semaphores have.
const semaphorePermits = 2

func kindStrategies(k strategy.Kind) []Entry {
	switch k {
	case strategy.ReadWrite:
		return []Entry{
			{
				Name:    "hashrwlock",
				Sources: "Redisson's RReadWriteLock: a hash with a mode field and a timeout key per read hold",
				New: func(c locktest.Client) (strategy.Strategy, error) {
					return hashrwlock.New(c.Pool)
				},
			},
			{
				Name:    "refcountrwlock",
				Sources: "e-chip/redis-rwlock: a global key and a reader count without a TTL",
				New: func(c locktest.Client) (strategy.Strategy, error) {
					return refcountrwlock.New(c.Pool)
				},
			},
			{
				Name:    "rwlua",
				Sources: "the project's own: a token per holder in a sorted set scored by the server's clock, writers first",
				New: func(c locktest.Client) (strategy.Strategy, error) {
					return rwlua.New(c.Pool)
				},
			},
		}
	case strategy.Semaphore:
		return []Entry{
			{
				Name:    "zsetsemaphore",
				Sources: "swarthy/redis-semaphore and Redis in Action: a sorted set scored by the clients' clocks",
				New: func(c locktest.Client) (strategy.Strategy, error) {
					return zsetsemaphore.New(c.Pool, semaphorePermits, zsetsemaphore.WithClock(c.Clock))
				},
			},
			{
				Name:    "countersemaphore",
				Sources: "Redisson's RSemaphore: a counter without leases",
				New: func(c locktest.Client) (strategy.Strategy, error) {
					return countersemaphore.New(c.Pool, semaphorePermits)
				},
			},
			{
				Name:    "semlua",
				Sources: "the project's own: a token per permit in a sorted set scored by the server's clock",
				New: func(c locktest.Client) (strategy.Strategy, error) {
					return semlua.New(c.Pool, semaphorePermits)
				},
			},
		}
	}
	return nil
}
