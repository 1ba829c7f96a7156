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

	base := time.Now()
	deadline := base.Add(r.cfg.Warm + d)
	runCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	h := &handoffs{runCtx: runCtx, cancel: cancel, deadline: deadline, base: base,
		probes: make([]*probe, n), rejoined: make([]int, n)}
	h.cond = sync.NewCond(&h.mu)
	rs := r.readRun(ctx, runCtx, &sent, func() {
		h.mu.Lock()
		h.cond.Broadcast()
		h.mu.Unlock()
	})

	var wg sync.WaitGroup
	for g, lk := range lks {
		wg.Go(func() { h.loop(g, lk) })
	}
	wg.Wait()
	statsErr := rs.wait()
	if h.first != nil {
		return contendedResult{}, h.first
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
	res := contendedResult{gaveUp: int(h.gaveUp.Load()), violations: int(h.viol.Load()), commands: int(rs.sent[1].Load() - rs.sent[0].Load())}
	for name, st := range statsDelta(rs.stats[0], rs.stats[1]) {
		if name != "info" {
			res.calls += int(st.Calls)
		}
	}
	for i, hd := range h.held {
		if hd.acq < warm || hd.acq > end {
			continue
		}
		res.cs++
		if i+1 < len(h.held) && hd.rel >= 0 && h.held[i+1].acq <= end {
			// The next holder's Lock may return before this holder has
			// read the clock after its Unlock: count that as no wait.
			res.lat = append(res.lat, max(h.held[i+1].acq-hd.rel, 0))
		}
	}
	return res, nil
}

// handoffs is what the goroutines of a contended run share: the holds in
// order, each goroutine's current Lock call and the hold after which it
// last asked, and the counts of overlaps and give-ups (see contendedRun).
type handoffs struct {
	runCtx   context.Context
	cancel   context.CancelFunc
	deadline time.Time
	base     time.Time

	mu       sync.Mutex
	cond     *sync.Cond
	held     []holding
	probes   []*probe // each goroutine's current Lock call's
	rejoined []int    // the hold after which it last asked
	first    error

	holders atomic.Int32
	viol    atomic.Int64
	gaveUp  atomic.Int64
}

// fail keeps the first error of the run.
func (h *handoffs) fail(err error) {
	h.mu.Lock()
	if h.first == nil {
		h.first = err
	}
	h.mu.Unlock()
}

// over reports whether the run is over. A client may see the deadline
// pass a little before runCtx reports it: an attempt cut short then is
// the end of the run, not a give-up.
func (h *handoffs) over() bool {
	return h.runCtx.Err() != nil || !time.Now().Before(h.deadline)
}

// loop is goroutine g's: it locks lk and unlocks it, again and again,
// until the run is over.
func (h *handoffs) loop(g int, lk Locker) {
	mine := -1 // index in held of this goroutine's last hold
	for h.runCtx.Err() == nil {
		pr := newProbe()
		h.mu.Lock()
		for mine >= 0 && len(h.held) == mine+1 && h.runCtx.Err() == nil {
			h.cond.Wait()
		}
		h.probes[g], h.rejoined[g] = pr, len(h.held)-1
		h.cond.Broadcast()
		h.mu.Unlock()
		if h.runCtx.Err() != nil {
			return
		}

		if err := lk.Lock(withProbe(h.runCtx, pr)); err != nil {
			if h.over() {
				return
			}
			if !notObtained(err) {
				h.fail(err)
				h.cancel()
				return
			}
			h.gaveUp.Add(1)
			continue
		}
		t := time.Since(h.base)
		if h.holders.Add(1) != 1 {
			h.viol.Add(1)
		}
		h.mu.Lock()
		mine = len(h.held)
		h.held = append(h.held, holding{who: g, acq: t, rel: -1})
		h.cond.Broadcast()
		var prev *probe
		if mine > 0 {
			if p := h.held[mine-1].who; p != g {
				for h.rejoined[p] < mine && h.runCtx.Err() == nil {
					h.cond.Wait()
				}
				prev = h.probes[p]
			}
		}
		h.mu.Unlock()
		if prev != nil {
			select {
			case <-prev.done:
			case <-h.runCtx.Done():
			}
		}
		h.holders.Add(-1)

		err := lk.Unlock(context.Background())
		t = time.Since(h.base)
		h.mu.Lock()
		h.held[mine].rel = t
		h.mu.Unlock()
		if err != nil {
			h.fail(fmt.Errorf("unlock: %w", err))
			h.cancel()
			return
		}
	}
}

// runReadings is what a contended run read of the server and of its
// goroutines when the warm-up ended (0) and when the run did (1): the
// commands the goroutines had sent, and what the server had run (INFO
// commandstats). The admin connection serves one reading at a time.
type runReadings struct {
	sent      [2]atomic.Int64
	mu        sync.Mutex
	stats     [2]map[string]cmdStat
	err       error
	wg        sync.WaitGroup
	warmTimer *time.Timer
	stopWatch func() bool
}

// readRun takes the readings of a run: the first r.cfg.Warm after now,
// the second once runCtx ends, after which it calls ended.
func (r *Runner) readRun(ctx, runCtx context.Context, sent *atomic.Int64, ended func()) *runReadings {
	rs := &runReadings{}
	read := func(i int) {
		rs.sent[i].Store(sent.Load())
		rs.mu.Lock()
		defer rs.mu.Unlock()
		st, err := r.commandStats(ctx)
		rs.stats[i] = st
		rs.err = cmp.Or(rs.err, err)
	}
	rs.wg.Add(2)
	rs.warmTimer = time.AfterFunc(r.cfg.Warm, func() {
		defer rs.wg.Done()
		read(0)
	})
	rs.stopWatch = context.AfterFunc(runCtx, func() {
		defer rs.wg.Done()
		read(1)
		ended()
	})
	return rs
}

// wait waits for the readings that started, one that never will being
// done, and returns the first error of either.
func (rs *runReadings) wait() error {
	if rs.warmTimer.Stop() {
		rs.wg.Done()
	}
	if rs.stopWatch() {
		rs.wg.Done()
	}
	rs.wg.Wait()
	return rs.err
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
