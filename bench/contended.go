package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/locklab/locklab/strategy"
)

// contended runs, at each count of waiters (Config.Waiters) on one key,
// every subject in each of its waiting modes with empty critical sections;
// at counts past the first, the recipes are left out, as their rows say
// nothing about hand-off that the first does not. Before each count the
// peers' retry delays are swept (sweepPeers) and each peer also runs at the
// delay that gave it the most critical sections per second there.
func (r *Runner) contended(ctx context.Context, rep *Report) error {
	most := slices.Max(r.cfg.Waiters)
	pool := r.redigoPool(most * 2)
	defer pool.Close()
	rc := r.goRedis(most * 2)
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
		s      *Subject
		wait   string
		rounds []contendedResult
	}
	per := r.cfg.ContendedTime / time.Duration(r.cfg.Rounds)
	for wi, n := range r.cfg.Waiters {
		best, err := r.sweepPeers(ctx, cl, &cur, n, rep)
		if err != nil {
			return err
		}
		var combos []*combo
		for _, s := range r.subs {
			if s.Group == GroupRecipe && wi > 0 {
				continue
			}
			for _, w := range s.Waits {
				combos = append(combos, &combo{s: s, wait: w})
			}
			if d, ok := best[s.Name]; ok {
				combos = append(combos, &combo{s: s, wait: RetryEvery(d)})
			}
		}
		// Every combination runs in turn, ContendedTime/Rounds at a time.
		for round := range r.cfg.Rounds {
			for _, c := range combos {
				res, err := r.contendedRun(ctx, cl, &cur, c.s, c.wait, n, per, round)
				if err != nil {
					return fmt.Errorf("%s, %d waiters: %w", RowName(c.s.Name, c.wait), n, err)
				}
				c.rounds = append(c.rounds, res)
			}
			r.logf("contended: %d waiters, round %d/%d done (%d runs of %v)", n, round+1, r.cfg.Rounds, len(combos), per)
		}
		for _, c := range combos {
			row := contendedRow(c.s, c.wait, n, per, c.rounds)
			if _, ok := best[c.s.Name]; ok && row.RetryDelayMs > 0 {
				row.Best = true
			}
			rep.Contended = append(rep.Contended, row)
			if wi == 0 {
				// The first count also fills the subject's row, which
				// the chart and the hand-off targets read.
				rep.Rows = append(rep.Rows, Row{
					Name: RowName(c.s.Name, c.wait), Subject: c.s.Name, Client: c.s.Client, Wait: c.wait,
					ContendedCSPerS: f(row.CSPerS.Median),
					Handoffs:        f2i(row.Handoffs),
					CommandsPerCS:   f(row.CommandsPerCS.Median),
					HandoffP50us:    f(row.HandoffP50us.Median),
					HandoffP99us:    f(row.HandoffP99us.Median),
					GaveUp:          nonzero(row.GaveUp),
					Violations:      nonzero(row.Violations),
				})
			}
			r.logf("contended: %3d waiters %-40s %s CS/s  hand-off p50 %sµs  p99 %sµs  %s commands/CS  (%d hand-offs, %d gave up)",
				n, RowName(c.s.Name, c.wait), row.CSPerS.Text("%.0f"), row.HandoffP50us.Text("%.0f"),
				row.HandoffP99us.Text("%.0f"), row.CommandsPerCS.Text("%.1f"), row.Handoffs, row.GaveUp)
		}
	}
	return nil
}

// ContendedRow is one lock in one waiting mode with Waiters goroutines on
// one key: each figure's median and range over the rounds.
type ContendedRow struct {
	Subject string `json:"subject"`
	Client  string `json:"client"`
	Wait    string `json:"wait"`
	Waiters int    `json:"waiters"`
	// RetryDelayMs is the delay between a peer's tries in a RetryEvery
	// waiting mode; Best says the sweep chose it for this count.
	RetryDelayMs float64 `json:"retry_delay_ms,omitempty"`
	Best         bool    `json:"best,omitempty"`
	// Critical sections per second.
	CSPerS Spread `json:"cs_per_s"`
	// Hand-off: from one holder's release returning to the next holder's
	// acquire returning, in µs; each round's median and 99th percentile.
	HandoffP50us Spread `json:"handoff_p50_us"`
	HandoffP99us Spread `json:"handoff_p99_us"`
	// Commands the waiters sent per critical section (counted on the
	// wire), and the calls Redis counted in INFO commandstats per
	// critical section, which also has the commands Lua scripts call.
	CommandsPerCS    Spread `json:"commands_per_cs"`
	ServerCallsPerCS Spread `json:"server_calls_per_cs"`
	Handoffs         int    `json:"handoffs"`
	GaveUp           int    `json:"gave_up,omitempty"`
	Violations       int    `json:"violations,omitempty"`
}

// Name names the row: the lock and how it waits.
func (c *ContendedRow) Name() string { return RowName(c.Subject, c.Wait) }

// contendedRow sums up the rounds of one combination.
func contendedRow(s *Subject, wait string, n int, per time.Duration, rounds []contendedResult) ContendedRow {
	row := ContendedRow{Subject: s.Name, Client: s.Client, Wait: wait, Waiters: n}
	if d, ok := retryEvery(wait); ok {
		row.RetryDelayMs = float64(d) / float64(time.Millisecond)
	}
	var cs, p50, p99, cmds, calls []float64
	for _, res := range rounds {
		cs = append(cs, float64(res.cs)/per.Seconds())
		if res.cs > 0 {
			cmds = append(cmds, float64(res.commands)/float64(res.cs))
			calls = append(calls, float64(res.calls)/float64(res.cs))
		}
		if len(res.lat) > 0 {
			p50 = append(p50, us(res.lat.Quantile(0.50)))
			p99 = append(p99, us(res.lat.Quantile(0.99)))
		}
		row.Handoffs += len(res.lat)
		row.GaveUp += res.gaveUp
		row.Violations += res.violations
	}
	row.CSPerS, row.CommandsPerCS, row.ServerCallsPerCS = spreadOf(cs), spreadOf(cmds), spreadOf(calls)
	row.HandoffP50us, row.HandoffP99us = spreadOf(p50), spreadOf(p99)
	return row
}

func f2i(n int) *int { return &n }

func nonzero(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// contendedResult is what one contended run measured.
type contendedResult struct {
	cs         int       // critical sections entered in the measured time
	commands   int       // commands sent by all the goroutines meanwhile
	calls      int       // calls INFO commandstats counted meanwhile
	lat        Durations // hand-offs
	gaveUp     int
	violations int
}

// holding is one critical section: who held it, and when its Lock and its
// Unlock returned, as time since the run began (monotonic).
type holding struct {
	who      int
	acq, rel time.Duration
}

// contendedRun is one run of the contended figure: n goroutines,
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
func (r *Runner) contendedRun(ctx context.Context, cl *Clients, cur *atomic.Pointer[atomic.Int64], s *Subject, wait string, n int, d time.Duration, round int) (contendedResult, error) {
	key := r.key("contended", s.Name, wait, fmt.Sprint(n), fmt.Sprint(round))
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
	// What the server ran, read (INFO commandstats) when the warm-up
	// ends and when the run does; the admin connection is used by one
	// reading at a time.
	var (
		sent0, sent1 atomic.Int64
		statsMu      sync.Mutex
		stats        [2]map[string]cmdStat
		statsErr     error
		statsWG      sync.WaitGroup
	)
	readStats := func(i int) {
		statsMu.Lock()
		defer statsMu.Unlock()
		st, err := r.commandStats(ctx)
		stats[i] = st
		statsErr = cmp.Or(statsErr, err)
	}
	statsWG.Add(2)
	warmTimer := time.AfterFunc(r.cfg.Warm, func() {
		defer statsWG.Done()
		sent0.Store(sent.Load())
		readStats(0)
	})
	stopWatch := context.AfterFunc(runCtx, func() {
		defer statsWG.Done()
		sent1.Store(sent.Load())
		readStats(1)
		mu.Lock()
		cond.Broadcast()
		mu.Unlock()
	})

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
	// Wait for the readings that started; one that never will is done.
	if warmTimer.Stop() {
		statsWG.Done()
	}
	if stopWatch() {
		statsWG.Done()
	}
	statsWG.Wait()
	if first != nil {
		return contendedResult{}, first
	}
	if err := ctx.Err(); err != nil {
		return contendedResult{}, err
	}
	if statsErr != nil {
		return contendedResult{}, statsErr
	}
	// Leave nothing behind, whatever a cancelled Lock may have left.
	_ = doRedigo(context.Background(), cl.Redigo, "DEL", key)

	warm, end := r.cfg.Warm, r.cfg.Warm+d
	res := contendedResult{gaveUp: int(gaveUp.Load()), violations: int(viol.Load()), commands: int(sent1.Load() - sent0.Load())}
	for name, st := range statsDelta(stats[0], stats[1]) {
		if name != "info" {
			res.calls += int(st.Calls)
		}
	}
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
