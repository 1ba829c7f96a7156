package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	redsyncredigo "github.com/go-redsync/redsync/v4/redis/redigo"
	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/redlock"
)

// The Redlock figure puts locklab's strategy/redlock beside redsync, the
// Redlock most Go programs use, over RedlockMasters independent masters
// (private redis-server processes, whatever server the rest of the run
// uses), each lock on a redigo pool per master. Both send SET NX PX to
// every master at once to acquire and a compare-and-delete script to
// every master to release, so uncontended their pairs per second should
// match; each goroutine locks and unlocks a key of its own, at each of
// RedlockGoroutines, the two locks taking turns in rounds shuffled every
// time.

// RedlockMasters is how many masters the Redlock figure runs on.
const RedlockMasters = 5

// RedlockGoroutines are the goroutine counts of the Redlock figure.
var RedlockGoroutines = []int{1, 16}

// Names of the locks of the Redlock figure.
const (
	RedlockLocklab = "redlock"
	RedlockRedsync = "redsync"
)

// RedlockRow is one Redlock at one goroutine count: acquire + release
// pairs per second, median and range over the rounds.
type RedlockRow struct {
	Name       string `json:"name"`
	Goroutines int    `json:"goroutines"`
	Masters    int    `json:"masters"`
	PairsPerS  Spread `json:"pairs_per_s"`
}

// redlockFigure measures the Redlock figure. Without redis-server on PATH
// it says so and measures nothing.
func (r *Runner) redlockFigure(ctx context.Context, rep *Report) error {
	startCtx, cancel := context.WithTimeout(ctx, time.Minute)
	m, err := redistest.StartMasters(startCtx, RedlockMasters)
	cancel()
	if err != nil {
		r.logf("redlock: no masters, figure skipped: %v", err)
		return nil
	}
	defer m.Close()
	rounds := max(r.cfg.SameClientRounds, 2)
	per := r.cfg.SameClientTime
	warm := min(r.cfg.Warm, 50*time.Millisecond)
	for _, G := range RedlockGoroutines {
		pools := m.NewPools()
		sp := make([]strategy.Pool, len(pools))
		rp := make([]redsyncredis.Pool, len(pools))
		for i, p := range pools {
			p.MaxIdle = G * 2
			sp[i], rp[i] = p, redsyncredigo.NewPool(p)
		}
		ll, err := redlock.New(sp)
		if err != nil {
			closePools(pools)
			return err
		}
		rs := redsync.New(rp...)
		lls := make([]Locker, G)
		rss := make([]Locker, G)
		for g := range G {
			lls[g] = &locklabLocker{s: ll, key: r.key("redlock", "locklab", fmt.Sprint(G), fmt.Sprint(g)), retry: backoffRetry}
			rss[g] = &redsyncLocker{m: rs.NewMutex(r.key("redlock", "redsync", fmt.Sprint(G), fmt.Sprint(g)))}
		}
		type entry struct {
			name string
			lks  []Locker
			ops  []float64
		}
		entries := []*entry{{name: RedlockLocklab, lks: lls}, {name: RedlockRedsync, lks: rss}}
		order := slices.Clone(entries)
		rng := rand.New(rand.NewPCG(11, uint64(G)))
		for range rounds {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for _, e := range order {
				ops, el, err := runParallel(ctx, G, warm, per, func(_ context.Context, g int) error { return cycle(bg, e.lks[g]) })
				if err != nil {
					closePools(pools)
					return fmt.Errorf("%s, %d goroutines: %w", e.name, G, err)
				}
				e.ops = append(e.ops, float64(ops)/el.Seconds())
			}
		}
		closePools(pools)
		for _, e := range entries {
			row := RedlockRow{Name: e.name, Goroutines: G, Masters: RedlockMasters, PairsPerS: spreadOf(e.ops)}
			rep.Redlock = append(rep.Redlock, row)
			r.logf("redlock: %2d goroutines %-8s %s pairs/s", G, e.name, row.PairsPerS.Text("%.0f"))
		}
	}
	return nil
}

func closePools(ps []*redis.Pool) {
	for _, p := range ps {
		p.Close()
	}
}

// redlockOf returns the row of the Redlock figure, or nil.
func (rep *Report) redlockOf(name string, g int) *RedlockRow {
	for i := range rep.Redlock {
		if rep.Redlock[i].Name == name && rep.Redlock[i].Goroutines == g {
			return &rep.Redlock[i]
		}
	}
	return nil
}

// redlockTable lays the Redlock figure out, redsync against locklab's.
func (rep *Report) redlockTable() *table {
	t := &table{
		head:  []string{"goroutines", "Redlock", "pairs/s: median (slowest–fastest round)", "against locklab's redlock"},
		right: []bool{true, false, true, true},
	}
	for i := range rep.Redlock {
		row := &rep.Redlock[i]
		cmp := "–"
		if ll := rep.redlockOf(RedlockLocklab, row.Goroutines); ll != nil && ll != row {
			cmp = spreadRatio(row.PairsPerS, ll.PairsPerS)
		}
		t.add(fmt.Sprint(row.Goroutines), row.Name, row.PairsPerS.Text("%.0f"), cmp)
	}
	return t
}
