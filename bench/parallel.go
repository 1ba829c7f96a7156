package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// parEntry is one thing run in the parallel rounds: a subject or a floor.
// run is called by goroutine g only.
type parEntry struct {
	name    string
	run     func(ctx context.Context, g int) error
	ops     int64
	elapsed time.Duration
}

// parallel runs Goroutines goroutines, each locking and unlocking its own
// key as fast as it can, and the floors the same way through each client:
// SET NX PX + DEL, and luatoken's commands by hand.
func (r *Runner) parallel(ctx context.Context, rep *Report) error {
	G := r.cfg.Goroutines
	rq, err := r.rueidisClient()
	if err != nil {
		return err
	}
	defer rq.Close()
	pool := r.redigoPool(G * 2)
	defer pool.Close()
	rc := r.goRedis(G)
	defer rc.Close()
	cl := &Clients{Redigo: pool, GoRedis: rc, Rueidis: rq}

	floorKeys := make([]string, G)
	for g := range floorKeys {
		floorKeys[g] = r.key("parallel", "floor", fmt.Sprint(g))
	}
	type floor struct {
		kind            string
		setDel, setEval *parEntry
	}
	var (
		floors  []floor
		entries []*parEntry
	)
	for _, kind := range ClientKinds {
		h := handOf(kind, cl)
		fl := floor{
			kind:    kind,
			setDel:  &parEntry{name: "SET+DEL " + kind, run: func(ctx context.Context, g int) error { return h.setDel(ctx, floorKeys[g]) }},
			setEval: &parEntry{name: "SET+EVALSHA " + kind, run: func(ctx context.Context, g int) error { return h.setEval(ctx, floorKeys[g]) }},
		}
		floors = append(floors, fl)
		entries = append(entries, fl.setDel, fl.setEval)
	}
	skip := len(entries)
	for _, s := range r.subs {
		keys := make([]string, G)
		for g := range keys {
			keys[g] = r.key("parallel", s.Name, fmt.Sprint(g))
		}
		lks, err := s.Open(cl, keys, "")
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		entries = append(entries, &parEntry{name: s.Name, run: func(ctx context.Context, g int) error { return cycle(ctx, lks[g]) }})
	}

	// Slices of about 200ms, every entry in turn, so that a slow moment
	// of the shared machine hits all of them alike.
	rounds := max(int(r.cfg.ParallelTime/(200*time.Millisecond)), 1)
	per := r.cfg.ParallelTime / time.Duration(rounds)
	warm := min(r.cfg.Warm, 50*time.Millisecond) // connections are open already
	order := slices.Clone(entries)
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range rounds {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, e := range order {
			ops, el, err := runParallel(ctx, G, warm, per, e.run)
			if err != nil {
				return fmt.Errorf("%s: %w", e.name, err)
			}
			e.ops += ops
			e.elapsed += el
		}
		if (round+1)%max(rounds/5, 1) == 0 {
			r.logf("parallel: round %d/%d done", round+1, rounds)
		}
	}
	rate := func(e *parEntry) float64 { return float64(e.ops) / e.elapsed.Seconds() }
	for _, fl := range floors {
		c := rep.Floor(fl.kind)
		c.ParallelOpsPerS = rate(fl.setDel)
		c.ParallelSetEvalOpsPerS = f(rate(fl.setEval))
		r.logf("parallel: floor %-8s SET+DEL %8.0f pairs/s, SET+EVALSHA by hand %8.0f", fl.kind, c.ParallelOpsPerS, *c.ParallelSetEvalOpsPerS)
	}
	for i, e := range entries[skip:] {
		row := &rep.Rows[i]
		row.ParallelOpsPerS = f(rate(e))
		row.ParallelFloorRatio = f(rate(e) / rep.Floor(row.Client).ParallelOpsPerS)
		r.logf("parallel: %-18s %8.0f pairs/s  %.2f of floor", e.name, rate(e), *row.ParallelFloorRatio)
	}
	return nil
}

// runParallel runs g goroutines calling run until warm + d has passed and
// returns how many calls completed within d after warm, and d as measured.
func runParallel(ctx context.Context, g int, warm, d time.Duration, run func(context.Context, int) error) (int64, time.Duration, error) {
	var (
		count atomic.Int64
		stop  atomic.Bool
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for i := range g {
		wg.Go(func() {
			for !stop.Load() {
				if err := run(bg, i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					stop.Store(true)
					return
				}
				count.Add(1)
			}
		})
	}
	sleep(ctx, warm)
	c0, t0 := count.Load(), time.Now()
	sleep(ctx, d)
	c1, el := count.Load(), time.Since(t0)
	stop.Store(true)
	wg.Wait()
	if first != nil {
		return 0, 0, first
	}
	return c1 - c0, el, ctx.Err()
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
