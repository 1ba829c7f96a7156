package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/locklab/locklab/strategy"
)

// contended runs, for every subject and each of its waiting modes,
// Contenders goroutines on one key with empty critical sections.
func (r *Runner) contended(ctx context.Context, rep *Report) error {
	pool := r.redigoPool(r.cfg.Contenders * 2)
	defer pool.Close()
	rc := r.goRedis(r.cfg.Contenders * 2)
	defer rc.Close()
	rq, err := r.rueidisClient()
	if err != nil {
		return err
	}
	defer rq.Close()
	// The go-redis and rueidis clients count what they send into the
	// counter of the run under way; the redigo pool is tapped per run.
	var cur atomic.Pointer[atomic.Int64]
	rc.AddHook(tapHook{tap{cur: &cur}})
	cl := &Clients{Redigo: pool, GoRedis: rc, Rueidis: tapRueidis{Client: rq, t: tap{cur: &cur}}}

	type combo struct {
		s    *Subject
		wait string
		res  contendedResult
	}
	var combos []*combo
	for _, s := range r.subs {
		for _, w := range s.Waits {
			combos = append(combos, &combo{s: s, wait: w})
		}
	}
	// Every combination runs in turn, ContendedTime/Rounds at a time.
	per := r.cfg.ContendedTime / time.Duration(r.cfg.Rounds)
	for round := range r.cfg.Rounds {
		for _, c := range combos {
			res, err := r.contendedRun(ctx, cl, &cur, c.s, c.wait, per, round)
			if err != nil {
				return fmt.Errorf("%s: %w", RowName(c.s.Name, c.wait), err)
			}
			c.res.add(res)
		}
		r.logf("contended: round %d/%d done (%d runs of %v)", round+1, r.cfg.Rounds, len(combos), per)
	}
	total := per * time.Duration(r.cfg.Rounds)
	for _, c := range combos {
		res := &c.res
		row := Row{
			Name: RowName(c.s.Name, c.wait), Subject: c.s.Name, Client: c.s.Client, Wait: c.wait,
			ContendedCSPerS: f(float64(res.cs) / total.Seconds()),
			Handoffs:        f2i(len(res.lat)),
			CommandsPerCS:   perCS(res.commands, res.cs),
			GaveUp:          nonzero(res.gaveUp),
			Violations:      nonzero(res.violations),
		}
		p50, p99 := 0.0, 0.0
		if len(res.lat) > 0 {
			p50, p99 = us(res.lat.Quantile(0.50)), us(res.lat.Quantile(0.99))
			row.HandoffP50us, row.HandoffP99us = f(p50), f(p99)
		}
		rep.Rows = append(rep.Rows, row)
		r.logf("contended: %-36s %7.0f CS/s  hand-off p50 %9.1fµs  p99 %9.1fµs  (%d hand-offs, %d gave up)",
			row.Name, *row.ContendedCSPerS, p50, p99, len(res.lat), res.gaveUp)
	}
	return nil
}

func f2i(n int) *int { return &n }

func perCS(commands, cs int) *float64 {
	if cs == 0 {
		return nil
	}
	return f(float64(commands) / float64(cs))
}

func nonzero(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// contendedResult is what contended runs measured, added up.
type contendedResult struct {
	cs         int       // critical sections entered in the measured time
	commands   int       // commands sent by all the goroutines meanwhile
	lat        Durations // hand-offs
	gaveUp     int
	violations int
}

func (c *contendedResult) add(o contendedResult) {
	c.cs += o.cs
	c.commands += o.commands
	c.lat = append(c.lat, o.lat...)
	c.gaveUp += o.gaveUp
	c.violations += o.violations
}

// holding is one critical section: who held it, and when its Lock and its
// Unlock returned, as time since the run began (monotonic).
type holding struct {
	who      int
	acq, rel time.Duration
}

// contendedRun is one run of the contended figure: Contenders goroutines,
// each with its own locker on the same key, lock and unlock in a loop and
// record, under a mutex, when each Lock and Unlock returned.
//
// Two rules keep the figure about hand-off rather than about who happens to
// ask at the right moment:
//
//   - A goroutine that has released asks again only once another goroutine
//     has taken the lock. Otherwise it would win its own lock back at once,
//     every time (its first attempt needs no wake-up), and the figure would
//     time one goroutine's loop.
//   - The holder releases only once the previous holder, which asks again
//     when this one took the lock, has heard back from Redis (its first
//     attempt failed, or it has subscribed). Otherwise the previous holder's
//     first attempt could land just after the release and win, and two
//     goroutines would pass the lock back and forth while the others wait.
//
// So every release finds the other goroutines waiting in their waiting mode,
// and the hand-off is the time that mode takes to notice a free lock. The
// critical sections are empty but for that wait.
func (r *Runner) contendedRun(ctx context.Context, cl *Clients, cur *atomic.Pointer[atomic.Int64], s *Subject, wait string, d time.Duration, round int) (contendedResult, error) {
	key := r.key("contended", s.Name, wait, fmt.Sprint(round))
	n := r.cfg.Contenders
	// Commands sent by every goroutine, read when the warm-up ends and
	// when the run does.
	var sent atomic.Int64
	cur.Store(&sent)
	defer cur.Store(nil)
	tapped := &Clients{Redigo: tapPool{p: cl.Redigo, t: tap{sent: &sent}}, GoRedis: cl.GoRedis, Rueidis: cl.Rueidis}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = key
	}
	lks, err := s.Open(tapped, keys, wait)
	if err != nil {
		return contendedResult{}, err
	}

	var (
		mu       sync.Mutex
		cond     = sync.NewCond(&mu)
		held     []holding
		probes   = make([]*probe, n) // each goroutine's current Lock call's
		rejoined = make([]int, n)    // the hold after which it last asked
		holders  atomic.Int32
		viol     atomic.Int64
		gaveUp   atomic.Int64
		first    error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	base := time.Now()
	deadline := base.Add(r.cfg.Warm + d)
	runCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	// A client may see the deadline pass a little before runCtx reports
	// it: an attempt cut short then is the end of the run, not a give-up.
	over := func() bool { return runCtx.Err() != nil || !time.Now().Before(deadline) }
	var sent0, sent1 atomic.Int64
	warmTimer := time.AfterFunc(r.cfg.Warm, func() { sent0.Store(sent.Load()) })
	defer warmTimer.Stop()
	stopWatch := context.AfterFunc(runCtx, func() {
		sent1.Store(sent.Load())
		mu.Lock()
		cond.Broadcast()
		mu.Unlock()
	})
	defer stopWatch()

	for g, lk := range lks {
		wg.Go(func() {
			mine := -1 // index in held of this goroutine's last hold
			for runCtx.Err() == nil {
				pr := newProbe()
				mu.Lock()
				for mine >= 0 && len(held) == mine+1 && runCtx.Err() == nil {
					cond.Wait()
				}
				probes[g], rejoined[g] = pr, len(held)-1
				cond.Broadcast()
				mu.Unlock()
				if runCtx.Err() != nil {
					return
				}

				if err := lk.Lock(withProbe(runCtx, pr)); err != nil {
					if over() {
						return
					}
					if !notObtained(err) {
						fail(err)
						cancel()
						return
					}
					gaveUp.Add(1)
					continue
				}
				t := time.Since(base)
				if holders.Add(1) != 1 {
					viol.Add(1)
				}
				mu.Lock()
				mine = len(held)
				held = append(held, holding{who: g, acq: t, rel: -1})
				cond.Broadcast()
				var prev *probe
				if mine > 0 {
					if p := held[mine-1].who; p != g {
						for rejoined[p] < mine && runCtx.Err() == nil {
							cond.Wait()
						}
						prev = probes[p]
					}
				}
				mu.Unlock()
				if prev != nil {
					select {
					case <-prev.done:
					case <-runCtx.Done():
					}
				}
				holders.Add(-1)

				err := lk.Unlock(context.Background())
				t = time.Since(base)
				mu.Lock()
				held[mine].rel = t
				mu.Unlock()
				if err != nil {
					fail(fmt.Errorf("unlock: %w", err))
					cancel()
					return
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return contendedResult{}, first
	}
	if err := ctx.Err(); err != nil {
		return contendedResult{}, err
	}
	// Leave nothing behind, whatever a cancelled Lock may have left.
	_ = doRedigo(context.Background(), cl.Redigo, "DEL", key)

	warm, end := r.cfg.Warm, r.cfg.Warm+d
	res := contendedResult{gaveUp: int(gaveUp.Load()), violations: int(viol.Load()), commands: int(sent1.Load() - sent0.Load())}
	for i, h := range held {
		if h.acq < warm || h.acq > end {
			continue
		}
		res.cs++
		if i+1 < len(held) && h.rel >= 0 && held[i+1].acq <= end {
			// The next holder's Lock may return before this holder has
			// read the clock after its Unlock: count that as no wait.
			res.lat = append(res.lat, max(held[i+1].acq-h.rel, 0))
		}
	}
	return res, nil
}

// notObtained reports whether err says the wait ended without the lock, as
// each library words it.
func notObtained(err error) bool {
	var taken *redsync.ErrTaken
	return errors.Is(err, strategy.ErrNotAcquired) ||
		errors.Is(err, redsync.ErrFailed) ||
		errors.As(err, &taken) ||
		errors.Is(err, redislock.ErrNotObtained)
}
