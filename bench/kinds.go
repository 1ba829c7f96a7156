package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/countersemaphore"
	"github.com/locklab/locklab/strategy/hashrwlock"
	"github.com/locklab/locklab/strategy/refcountrwlock"
	"github.com/locklab/locklab/strategy/rwlua"
	"github.com/locklab/locklab/strategy/semlua"
	"github.com/locklab/locklab/strategy/zsetsemaphore"
)

// The kinds figure puts the project's read-write lock (strategy/rwlua)
// and semaphore (strategy/semlua) beside the designs people run
// (hashrwlock, refcountrwlock; zsetsemaphore, countersemaphore), all on
// one redigo pool against one server, in three cases:
//
//   - uncontended: one goroutine acquires and releases on a key of its
//     own, KindsCycles times per round; each round's figure is the median
//     of its cycles' latencies. The read-write locks are measured as a
//     writer and as a reader, the semaphores taking one permit.
//   - readers and a writer: KindsReaders goroutines take a read lock and
//     release it, and one goroutine takes the write lock and releases it,
//     all on one key with empty critical sections: reads and writes per
//     second, and the writer's wait (from its first attempt to its lock),
//     each round's median.
//   - permits under contention: KindsGoroutines goroutines take one of
//     KindsPermits permits of one key and give it back: critical sections
//     per second, and the hand-off (how long a given-back permit stood
//     free before a goroutine took it), each round's median.
//
// Every waiter waits with strategy.Acquire, trying every 5ms; rwlua and
// semlua are also measured woken on release (WithNotify), the way of
// waiting they add. A lock that also wakes its own Strategy's waiters in
// the process (rwlua without WithNotify) is labelled WaitInProcess in the
// contended case: the figure's goroutines share one Strategy. The rows take turns in rounds shuffled every time;
// each figure is the median over the rounds with the lowest and the
// highest round. A count of overlaps the goroutines saw (a writer beside
// a reader, more holders than permits) is kept beside each contended row:
// a goroutine counts itself in after its acquire returns and out before it
// releases, so an overlap counted is one that happened. Each contended row
// also says what a lock taken cost: the attempts (TryAcquire calls, taken
// or refused) per lock taken, and the time the server spent running
// commands per lock taken (INFO commandstats, around the round), both over
// the whole round.

// The sizes of the kinds figure's contended cases.
const (
	KindsReaders    = 16
	KindsPermits    = 4
	KindsGoroutines = 16
)

// The kinds figure's cases.
const (
	KindsWriter   = "uncontended, writer"
	KindsReader   = "uncontended, reader"
	KindsPermit   = "uncontended, one permit"
	KindsReadersW = "16 readers, 1 writer"
	KindsPermitsN = "4 permits, 16 goroutines"
)

// kindsPoll is how often a waiter tries again (WaitFixed).
const kindsPoll = 5 * time.Millisecond

// WaitInProcess names the waiting of a contended row whose lock, polled
// every 5ms, also wakes the waiters of its own Strategy on its own
// releases, in the process (strategy.EagerNotifier; rwlua without
// WithNotify): every goroutine of the figure shares one Strategy.
const WaitInProcess = "fixed 5ms, woken in the process"

// KindsRow is one lock in one case of the kinds figure.
type KindsRow struct {
	Kind string `json:"kind"` // strategy.ReadWrite or strategy.Semaphore
	Name string `json:"name"`
	Case string `json:"case"`
	Wait string `json:"wait,omitempty"`
	// Uncontended: acquire + release, µs.
	CycleUs *Spread `json:"cycle_us,omitempty"`
	// Readers and a writer: per second; the writer's wait, µs. Starved
	// counts the rounds in which the writer got no lock at all: their
	// wait is the round's length, a lower bound.
	ReadsPerS    *Spread `json:"reads_per_s,omitempty"`
	WritesPerS   *Spread `json:"writes_per_s,omitempty"`
	WriterWaitUs *Spread `json:"writer_wait_us,omitempty"`
	Starved      int     `json:"starved_rounds,omitempty"`
	// Permits under contention: critical sections per second; hand-off, µs.
	CSPerS    *Spread `json:"cs_per_s,omitempty"`
	HandoffUs *Spread `json:"handoff_us,omitempty"`
	// Contended: attempts per lock taken, and the server's µs running
	// commands per lock taken (reads and writes, or permits).
	AttemptsPerLock *Spread `json:"attempts_per_lock,omitempty"`
	ServerUsPerLock *Spread `json:"server_us_per_lock,omitempty"`
	// Overlaps that the lock's kind forbids, seen by the goroutines.
	Overlaps int `json:"overlaps"`
}

// kindsLock is a lock of the figure as built on a pool.
type kindsLock struct {
	name, kind, wait string
	open             func(strategy.Pool) (strategy.Strategy, error)
}

// kindsLocks lists the locks of the figure: the project's first, then the
// designs, then the project's woken on release.
func kindsLocks() []kindsLock {
	rw, sem := string(strategy.ReadWrite), string(strategy.Semaphore)
	return []kindsLock{
		{"rwlua", rw, WaitFixed, func(p strategy.Pool) (strategy.Strategy, error) { return rwlua.New(p) }},
		{"hashrwlock", rw, WaitFixed, func(p strategy.Pool) (strategy.Strategy, error) { return hashrwlock.New(p) }},
		{"refcountrwlock", rw, WaitFixed, func(p strategy.Pool) (strategy.Strategy, error) { return refcountrwlock.New(p) }},
		{"rwlua", rw, WaitNotify, func(p strategy.Pool) (strategy.Strategy, error) { return rwlua.New(p, rwlua.WithNotify()) }},
		{"semlua", sem, WaitFixed, func(p strategy.Pool) (strategy.Strategy, error) { return semlua.New(p, KindsPermits) }},
		{"zsetsemaphore", sem, WaitFixed, func(p strategy.Pool) (strategy.Strategy, error) { return zsetsemaphore.New(p, KindsPermits) }},
		{"countersemaphore", sem, WaitFixed, func(p strategy.Pool) (strategy.Strategy, error) {
			return countersemaphore.New(p, KindsPermits)
		}},
		{"semlua", sem, WaitNotify, func(p strategy.Pool) (strategy.Strategy, error) {
			return semlua.New(p, KindsPermits, semlua.WithNotify())
		}},
	}
}

// kindsEntry is a row and what one round of it does: it returns the
// round's figures, in the order the row's case keeps them.
type kindsEntry struct {
	row    *KindsRow
	s      strategy.Strategy
	pool   RedigoPool  // for clearing the key after a round
	rounds [][]float64 // per figure, the rounds' values
	round  func(ctx context.Context, e *kindsEntry, i int) error
}

func (e *kindsEntry) add(i int, v float64) {
	for len(e.rounds) <= i {
		e.rounds = append(e.rounds, nil)
	}
	e.rounds[i] = append(e.rounds[i], v)
}

func (e *kindsEntry) spread(i int) *Spread {
	if i >= len(e.rounds) {
		return nil
	}
	sp := spreadOf(e.rounds[i])
	return &sp
}

// kinds measures the kinds figure.
func (r *Runner) kinds(ctx context.Context, rep *Report) error {
	pool := r.redigoPool(KindsGoroutines + KindsReaders + 2)
	defer pool.Close()
	var entries []*kindsEntry
	for _, l := range kindsLocks() {
		s, err := l.open(pool)
		if err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		row := func(c string) *KindsRow { return &KindsRow{Kind: l.kind, Name: l.name, Case: c, Wait: l.wait} }
		rw, isRW := s.(strategy.Shared)
		if l.wait == WaitFixed {
			// Uncontended, no one waits: once per lock.
			if isRW {
				entries = append(entries,
					&kindsEntry{pool: pool, row: row(KindsWriter), s: s, round: r.kindsCycles},
					&kindsEntry{pool: pool, row: row(KindsReader), s: strategy.Reader(rw), round: r.kindsCycles})
			} else {
				entries = append(entries, &kindsEntry{pool: pool, row: row(KindsPermit), s: s, round: r.kindsCycles})
			}
		}
		contended, round := row(KindsPermitsN), r.kindsPermits
		if isRW {
			contended, round = row(KindsReadersW), r.kindsReadersWriter
		}
		if e, ok := s.(strategy.EagerNotifier); ok && e.SubscribeFirst() {
			contended.Wait = WaitInProcess
		}
		entries = append(entries, &kindsEntry{pool: pool, row: contended, s: s, round: round})
	}
	order := slices.Clone(entries)
	rng := rand.New(rand.NewPCG(13, 17))
	for round := range r.cfg.KindsRounds {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, e := range order {
			if err := e.round(ctx, e, round); err != nil {
				return fmt.Errorf("%s (%s), %s: %w", e.row.Name, e.row.Wait, e.row.Case, err)
			}
		}
		r.logf("kinds: round %d/%d done", round+1, r.cfg.KindsRounds)
	}
	for _, e := range entries {
		switch e.row.Case {
		case KindsReadersW:
			e.row.ReadsPerS, e.row.WritesPerS, e.row.WriterWaitUs = e.spread(0), e.spread(1), e.spread(2)
			e.row.AttemptsPerLock, e.row.ServerUsPerLock = e.spread(3), e.spread(4)
		case KindsPermitsN:
			e.row.CSPerS, e.row.HandoffUs = e.spread(0), e.spread(1)
			e.row.AttemptsPerLock, e.row.ServerUsPerLock = e.spread(2), e.spread(3)
		default:
			e.row.CycleUs = e.spread(0)
		}
		rep.Kinds = append(rep.Kinds, *e.row)
		r.logf("kinds: %-16s %-17s %-24s %s", e.row.Name, e.row.Wait, e.row.Case, e.row.figures())
	}
	return nil
}

// kindsCycles is a round of an uncontended row: KindsCycles acquires and
// releases on a key of the round's own, after a few to warm up; the
// round's figure is their median.
func (r *Runner) kindsCycles(ctx context.Context, e *kindsEntry, round int) error {
	key := r.key("kinds", e.row.Name, e.row.Case, fmt.Sprint(round))
	warm := max(r.cfg.KindsCycles/10, 1)
	lat := make(Durations, 0, r.cfg.KindsCycles)
	for i := range warm + r.cfg.KindsCycles {
		if err := ctx.Err(); err != nil {
			return err
		}
		t := time.Now()
		l, err := e.s.TryAcquire(bg, key, TTL)
		if err != nil {
			return err
		}
		if err := l.Release(bg); err != nil {
			return err
		}
		if i >= warm {
			lat = append(lat, time.Since(t))
		}
	}
	e.add(0, us(lat.Quantile(0.5)))
	return nil
}

// window is the measured part of a contended round: from the end of the
// warm-up to the end of the round.
type window struct{ from, to time.Time }

func (r *Runner) window() window {
	now := time.Now()
	warm := min(r.cfg.Warm, 100*time.Millisecond)
	return window{now.Add(warm), now.Add(warm + r.cfg.KindsTime)}
}

func (w window) in(t time.Time) bool { return !t.Before(w.from) && t.Before(w.to) }

// contention runs the goroutines of a contended round until w ends and
// returns the first error, if any, that was not the end of the round.
func contention(ctx context.Context, w window, loops ...func(ctx context.Context) error) error {
	runCtx, cancel := context.WithDeadline(ctx, w.to)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for _, loop := range loops {
		wg.Go(func() {
			err := loop(runCtx)
			// A network deadline set from runCtx can pass a moment
			// before runCtx reports it: that too is the round's end.
			ended := runCtx.Err() != nil || !time.Now().Before(w.to)
			over := ended && (errors.Is(err, strategy.ErrNotAcquired) || errors.Is(err, context.DeadlineExceeded))
			if err != nil && !over {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				cancel()
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// kindsReadersWriter is a round of KindsReaders readers and one writer on
// one key.
func (r *Runner) kindsReadersWriter(ctx context.Context, e *kindsEntry, round int) error {
	key := r.key("kinds", e.row.Name, e.row.Wait, e.row.Case, fmt.Sprint(round))
	cost, err := r.startCost(ctx, e.s)
	if err != nil {
		return err
	}
	reader := strategy.Reader(cost.s.(strategy.Shared))
	retry := strategy.FixedInterval(kindsPoll)
	var (
		readers, writers atomic.Int32
		overlaps         atomic.Int64
		reads, writes    atomic.Int64
		mu               sync.Mutex
		waits            Durations
		waitFrom         time.Time // the writer's current wait's start
	)
	w := r.window()
	readLoop := func(ctx context.Context) error {
		for ctx.Err() == nil {
			l, err := strategy.Acquire(ctx, reader, key, TTL, retry)
			if err != nil {
				return err
			}
			cost.taken.Add(1)
			if readers.Add(1); writers.Load() > 0 {
				overlaps.Add(1)
			}
			if w.in(time.Now()) {
				reads.Add(1)
			}
			readers.Add(-1)
			if err := l.Release(bg); err != nil {
				return err
			}
		}
		return nil
	}
	writeLoop := func(ctx context.Context) error {
		for ctx.Err() == nil {
			t := time.Now()
			mu.Lock()
			waitFrom = t
			mu.Unlock()
			l, err := strategy.Acquire(ctx, cost.s, key, TTL, retry)
			if err != nil {
				return err
			}
			cost.taken.Add(1)
			if writers.Add(1); readers.Load() > 0 || writers.Load() > 1 {
				overlaps.Add(1)
			}
			if now := time.Now(); w.in(now) {
				writes.Add(1)
				mu.Lock()
				waits = append(waits, now.Sub(t))
				waitFrom = time.Time{}
				mu.Unlock()
			}
			writers.Add(-1)
			if err := l.Release(bg); err != nil {
				return err
			}
		}
		return nil
	}
	loops := []func(context.Context) error{writeLoop}
	for range KindsReaders {
		loops = append(loops, readLoop)
	}
	if err := contention(ctx, w, loops...); err != nil {
		return err
	}
	attempts, serverUs, err := cost.end(ctx)
	if err != nil {
		return err
	}
	_ = doRedigo(bg, e.pool, "DEL", key)
	sec := w.to.Sub(w.from).Seconds()
	e.add(0, float64(reads.Load())/sec)
	e.add(1, float64(writes.Load())/sec)
	if len(waits) == 0 {
		// No write in the round: the wait it was in is a lower bound.
		e.row.Starved++
		from := waitFrom
		if from.Before(w.from) {
			from = w.from
		}
		e.add(2, us(w.to.Sub(from)))
	} else {
		e.add(2, us(waits.Quantile(0.5)))
	}
	e.add(3, attempts)
	e.add(4, serverUs)
	e.row.Overlaps += int(overlaps.Load())
	return nil
}

// permitLog matches each given-back permit with the acquire that took it
// next, in order: the hand-off is the time between them. The first
// KindsPermits acquires take the permits that were free from the start;
// an acquire that returns before the release that freed its permit has
// recorded itself is a hand-off of no time.
type permitLog struct {
	mu    sync.Mutex
	free  int
	rel   []time.Time
	early int
	gaps  Durations
	w     window
}

func (p *permitLog) acquired() {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := time.Now()
	switch {
	case p.free > 0:
		p.free--
	case len(p.rel) > 0:
		if p.w.in(t) {
			p.gaps = append(p.gaps, t.Sub(p.rel[0]))
		}
		p.rel = p.rel[1:]
	default:
		p.early++
	}
}

func (p *permitLog) released() {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := time.Now()
	if p.early > 0 {
		p.early--
		if p.w.in(t) {
			p.gaps = append(p.gaps, 0)
		}
		return
	}
	p.rel = append(p.rel, t)
}

// kindsPermits is a round of KindsGoroutines goroutines on the
// KindsPermits permits of one key.
func (r *Runner) kindsPermits(ctx context.Context, e *kindsEntry, round int) error {
	key := r.key("kinds", e.row.Name, e.row.Wait, e.row.Case, fmt.Sprint(round))
	cost, err := r.startCost(ctx, e.s)
	if err != nil {
		return err
	}
	retry := strategy.FixedInterval(kindsPoll)
	var (
		holders  atomic.Int32
		overlaps atomic.Int64
		cs       atomic.Int64
	)
	w := r.window()
	log := &permitLog{free: KindsPermits, w: w}
	loop := func(ctx context.Context) error {
		for ctx.Err() == nil {
			l, err := strategy.Acquire(ctx, cost.s, key, TTL, retry)
			if err != nil {
				return err
			}
			cost.taken.Add(1)
			log.acquired()
			if holders.Add(1) > KindsPermits {
				overlaps.Add(1)
			}
			if w.in(time.Now()) {
				cs.Add(1)
			}
			holders.Add(-1)
			if err := l.Release(bg); err != nil {
				return err
			}
			log.released()
		}
		return nil
	}
	loops := make([]func(context.Context) error, KindsGoroutines)
	for i := range loops {
		loops[i] = loop
	}
	if err := contention(ctx, w, loops...); err != nil {
		return err
	}
	attempts, serverUs, err := cost.end(ctx)
	if err != nil {
		return err
	}
	_ = doRedigo(bg, e.pool, "DEL", key)
	e.add(0, float64(cs.Load())/w.to.Sub(w.from).Seconds())
	e.add(1, us(log.gaps.Quantile(0.5)))
	e.add(2, attempts)
	e.add(3, serverUs)
	e.row.Overlaps += int(overlaps.Load())
	return nil
}

// figures prints the row's figures on one line.
func (k *KindsRow) figures() string {
	switch k.Case {
	case KindsReadersW:
		return fmt.Sprintf("reads/s %s  writes/s %s  writer's wait µs %s  starved %d  overlaps %d  attempts/lock %s  server µs/lock %s",
			k.ReadsPerS.Text("%.0f"), k.WritesPerS.Text("%.0f"), k.WriterWaitUs.Text("%.0f"), k.Starved, k.Overlaps,
			spreadText(k.AttemptsPerLock, "%.2f"), spreadText(k.ServerUsPerLock, "%.1f"))
	case KindsPermitsN:
		return fmt.Sprintf("CS/s %s  hand-off µs %s  overlaps %d  attempts/lock %s  server µs/lock %s", k.CSPerS.Text("%.0f"),
			k.HandoffUs.Text("%.0f"), k.Overlaps, spreadText(k.AttemptsPerLock, "%.2f"), spreadText(k.ServerUsPerLock, "%.1f"))
	}
	return "µs " + k.CycleUs.Text("%.0f")
}

// kindsOwn names the project's lock of each kind: the one the kinds
// tables compare the others with.
var kindsOwn = map[string]string{string(strategy.ReadWrite): "rwlua", string(strategy.Semaphore): "semlua"}

// kindsOf returns the row of the kinds figure, or nil.
func (rep *Report) kindsOf(name, wait, c string) *KindsRow {
	for i := range rep.Kinds {
		k := &rep.Kinds[i]
		if k.Name == name && k.Wait == wait && k.Case == c {
			return k
		}
	}
	return nil
}

// kindsRatio is a lock's figure against the project's lock of its kind,
// waiting the same way, in the same case.
func (rep *Report) kindsRatio(k *KindsRow, of func(*KindsRow) *Spread) string {
	own := rep.kindsOf(kindsOwn[k.Kind], WaitFixed, k.Case)
	if own == nil || own == k || of(k) == nil || of(own) == nil {
		return ""
	}
	return spreadRatio(*of(k), *of(own))
}

// kindsTables lays the kinds figure out: uncontended, readers and a
// writer, permits under contention.
func (rep *Report) kindsTables() (unc, rw, sem *table) {
	unc = &table{head: []string{"lock", "case", "acquire + release, µs", "against the project's"}, right: []bool{false, false, true, true}}
	rw = &table{head: []string{"lock", "waiting", "reads/s", "writes/s", "writer's wait, µs", "rounds the writer got none", "overlaps",
		"attempts per lock", "server µs per lock"},
		right: []bool{false, false, true, true, true, true, true, true, true}}
	sem = &table{head: []string{"lock", "waiting", "critical sections/s", "against the project's", "hand-off, µs", "overlaps",
		"attempts per lock", "server µs per lock"},
		right: []bool{false, false, true, true, true, true, true, true}}
	cycle := func(k *KindsRow) *Spread { return k.CycleUs }
	cs := func(k *KindsRow) *Spread { return k.CSPerS }
	for i := range rep.Kinds {
		k := &rep.Kinds[i]
		switch k.Case {
		case KindsReadersW:
			rw.add(k.Name, k.Wait, k.ReadsPerS.Text("%.0f"), k.WritesPerS.Text("%.0f"), k.WriterWaitUs.Text("%.0f"),
				fmt.Sprintf("%d of %d", k.Starved, len(k.WritesPerS.Rounds)), fmt.Sprint(k.Overlaps),
				spreadText(k.AttemptsPerLock, "%.2f"), spreadText(k.ServerUsPerLock, "%.1f"))
		case KindsPermitsN:
			sem.add(k.Name, k.Wait, k.CSPerS.Text("%.0f"), rep.kindsRatio(k, cs), k.HandoffUs.Text("%.0f"), fmt.Sprint(k.Overlaps),
				spreadText(k.AttemptsPerLock, "%.2f"), spreadText(k.ServerUsPerLock, "%.1f"))
		default:
			unc.add(k.Name, k.Case, k.CycleUs.Text("%.0f"), rep.kindsRatio(k, cycle))
		}
	}
	return unc, rw, sem
}

// writeKinds writes the kinds figure's tables, as text or Markdown, each
// under a line that says what it measured.
func (rep *Report) writeKinds(w io.Writer, md bool) {
	unc, rw, sem := rep.kindsTables()
	st := rep.Settings
	for i, t := range []*table{unc, rw, sem} {
		switch i {
		case 0:
			fmt.Fprintf(w, "Uncontended: one goroutine, a key of its own, %d cycles per round; each round's median:\n\n", st.KindsCycles)
		case 1:
			fmt.Fprintf(w, "%d readers and 1 writer on one key, empty critical sections, %.1f s per round; the writer's wait is each round's median "+
				"(in a round where it got none, the time it had waited when the round ended); %s:\n\n", KindsReaders, st.KindsS, kindsCostNote)
		case 2:
			fmt.Fprintf(w, "%d permits, %d goroutines on one key, empty critical sections, %.1f s per round; the hand-off "+
				"(how long a given-back permit stood free) is each round's median; %s:\n\n", KindsPermits, KindsGoroutines, st.KindsS, kindsCostNote)
		}
		if md {
			t.markdown(w)
		} else {
			t.text(w)
		}
		fmt.Fprintln(w)
	}
}

// spreadText is s.Text, or "–" for a figure the run did not measure
// (a report saved before it had that figure).
func spreadText(s *Spread, format string) string {
	if s == nil {
		return "–"
	}
	return s.Text(format)
}

// kindsCostNote says what the contended tables' last two columns count.
const kindsCostNote = "per lock taken (a read, a write or a permit), over the whole round: the attempts " +
	"(tries, taken or refused) and the time the server spent running commands (INFO commandstats)"

// roundCost counts what the locks of a contended round cost: the
// attempts its strategy made, the locks the goroutines took, and the
// server's time running commands between start and end.
type roundCost struct {
	s        strategy.Strategy // the round's strategy, counting its attempts
	attempts atomic.Int64
	taken    atomic.Int64
	r        *Runner
	before   map[string]cmdStat
}

// startCost reads INFO commandstats and wraps s to count its attempts,
// as a reader too, keeping it a Notifier if it is one.
func (r *Runner) startCost(ctx context.Context, s strategy.Strategy) (*roundCost, error) {
	before, err := r.commandStats(ctx)
	if err != nil {
		return nil, err
	}
	c := &roundCost{r: r, before: before}
	n, isNotifier := s.(strategy.Notifier)
	sh, isShared := s.(strategy.Shared)
	counted := countedStrategy{s, &c.attempts}
	switch {
	case isShared && isNotifier:
		c.s = countedSharedNotifier{countedShared{counted, sh}, notifying{n}}
	case isShared:
		c.s = countedShared{counted, sh}
	case isNotifier:
		c.s = countedNotifier{counted, notifying{n}}
	default:
		c.s = counted
	}
	return c, nil
}

// end returns the attempts and the server's µs (every command but INFO)
// per lock taken since startCost.
func (c *roundCost) end(ctx context.Context) (attempts, serverUs float64, err error) {
	after, err := c.r.commandStats(ctx)
	if err != nil {
		return 0, 0, err
	}
	var usec int64
	for name, st := range statsDelta(c.before, after) {
		if name != "info" {
			usec += st.Usec
		}
	}
	taken := float64(max(c.taken.Load(), 1))
	return float64(c.attempts.Load()) / taken, float64(usec) / taken, nil
}

// countedStrategy counts the attempts of s.
type countedStrategy struct {
	strategy.Strategy
	n *atomic.Int64
}

func (c countedStrategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	c.n.Add(1)
	return c.Strategy.TryAcquire(ctx, key, ttl)
}

type countedShared struct {
	countedStrategy
	sh strategy.Shared
}

func (c countedShared) TryAcquireShared(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	c.n.Add(1)
	return c.sh.TryAcquireShared(ctx, key, ttl)
}

// notifying passes Subscribe on to the strategy's own, and so are a
// reader's subscription (SubscribeShared, the writer's where the strategy
// has none of its own) and SubscribeFirst: the count changes nothing of
// how the strategy's waiters wait.
type notifying struct{ notifier strategy.Notifier }

var (
	_ strategy.SharedNotifier = notifying{}
	_ strategy.EagerNotifier  = notifying{}
)

func (n notifying) Subscribe(ctx context.Context, key string) (<-chan struct{}, func(), error) {
	return n.notifier.Subscribe(ctx, key)
}

func (n notifying) SubscribeShared(ctx context.Context, key string) (<-chan struct{}, func(), error) {
	if sh, ok := n.notifier.(strategy.SharedNotifier); ok {
		return sh.SubscribeShared(ctx, key)
	}
	return n.notifier.Subscribe(ctx, key)
}

func (n notifying) SubscribeFirst() bool {
	e, ok := n.notifier.(strategy.EagerNotifier)
	return ok && e.SubscribeFirst()
}

type countedNotifier struct {
	countedStrategy
	notifying
}

type countedSharedNotifier struct {
	countedShared
	notifying
}
