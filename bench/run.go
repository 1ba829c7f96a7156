package bench

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/rs/xid"
)

// Config says how much to measure.
type Config struct {
	// Uncontended: cycles per subject after Warmup cycles.
	Iterations int
	Warmup     int
	// Cycles whose allocations are averaged, per subject.
	AllocCycles int
	// Parallel: Goroutines goroutines, each on its own key, for
	// ParallelTime per subject in all, in slices of about 200ms that take
	// turns.
	Goroutines   int
	ParallelTime time.Duration
	// Contended: at each count of Waiters, that many goroutines on one
	// key, for ContendedTime per subject and waiting mode, in Rounds runs
	// that take turns. Contenders is the first count (the chart's); when
	// Waiters is empty it is the only one.
	Contenders    int
	Waiters       []int
	ContendedTime time.Duration
	Rounds        int
	// The sweep of the peers' retry delays before each count of waiters:
	// SweepTime per delay, in Rounds runs. No delays, no sweep.
	SweepDelays []time.Duration
	SweepTime   time.Duration
	// Same client: for each count of SameClientGoroutines,
	// SameClientRounds rounds in which every lock and way by hand runs
	// for SameClientTime, in a shuffled order.
	SameClientRounds int
	SameClientTime   time.Duration
	// Kinds: KindsRounds rounds in which every row of the kinds figure
	// runs in a shuffled order: KindsCycles uncontended cycles, or
	// KindsTime of contention.
	KindsRounds int
	KindsCycles int
	KindsTime   time.Duration
	// Warm is discarded at the start of every contended run (and up to
	// 50ms of it at the start of every parallel slice).
	Warm time.Duration
	// Only restricts the run to the subjects of these names; empty means all.
	Only []string
	// Figures restricts the run to these figures (FigureUncontended,
	// FigureAllocations, FigureParallel, FigureSameClient, FigureLibraries, FigureKinds,
	// FigureRedlock, FigureContended, FigureSuite); empty means all.
	Figures []string
	// Progress receives a line per step; nil means none.
	Progress io.Writer
}

// DefaultConfig is the configuration of the published figures: about three
// minutes on two cores.
func DefaultConfig() Config {
	return Config{
		Iterations:    20000,
		Warmup:        2000,
		Rounds:        4,
		AllocCycles:   5000,
		Goroutines:    16,
		ParallelTime:  2 * time.Second,
		Contenders:    8,
		Waiters:       []int{8, 32, 128},
		ContendedTime: 4 * time.Second,
		SweepDelays:   DefaultSweepDelays,
		SweepTime:     time.Second,
		Warm:          250 * time.Millisecond,

		SameClientRounds: 5,
		SameClientTime:   300 * time.Millisecond,

		KindsRounds: 7,
		KindsCycles: 500,
		KindsTime:   800 * time.Millisecond,
	}
}

// The figures a run can measure.
const (
	FigureUncontended = "uncontended"
	FigureAllocations = "allocations"
	FigureParallel    = "parallel"
	FigureContended   = "contended"
	FigureSameClient  = "sameclient"
	FigureSuite       = "suite"
	FigureRedlock     = "redlock"
	FigureLibraries   = "libraries"
	FigureKinds       = "kinds"
)

// Figures lists them all, in the order a run measures them.
var Figures = []string{FigureUncontended, FigureAllocations, FigureParallel, FigureSameClient, FigureLibraries, FigureKinds, FigureRedlock, FigureContended, FigureSuite}

// Runner measures every subject against one server.
type Runner struct {
	cfg    Config
	srv    *redistest.Server
	subs   []*Subject
	prefix string
	start  time.Time
	admin  redis.Conn // for INFO commandstats; see commandStats
}

// NewRunner prepares a run against srv.
func NewRunner(srv *redistest.Server, cfg Config) (*Runner, error) {
	def := DefaultConfig()
	if cfg.Iterations <= 0 {
		cfg.Iterations = def.Iterations
	}
	if cfg.Warmup < 0 {
		cfg.Warmup = 0
	}
	cfg.Rounds = max(cfg.Rounds, 1)
	cfg.AllocCycles = max(cfg.AllocCycles, 1)
	cfg.Goroutines = max(cfg.Goroutines, 1)
	if len(cfg.Waiters) == 0 {
		cfg.Waiters = []int{cfg.Contenders}
	}
	cfg.Waiters = slices.Clone(cfg.Waiters)
	for i, n := range cfg.Waiters {
		cfg.Waiters[i] = max(n, 2)
	}
	cfg.Contenders = cfg.Waiters[0]
	if cfg.SweepTime <= 0 {
		cfg.SweepTime = def.SweepTime
	}
	if cfg.ParallelTime <= 0 {
		cfg.ParallelTime = def.ParallelTime
	}
	if cfg.ContendedTime <= 0 {
		cfg.ContendedTime = def.ContendedTime
	}
	if cfg.SameClientRounds <= 0 {
		cfg.SameClientRounds = def.SameClientRounds
	}
	if cfg.SameClientTime <= 0 {
		cfg.SameClientTime = def.SameClientTime
	}
	if cfg.KindsRounds <= 0 {
		cfg.KindsRounds = def.KindsRounds
	}
	if cfg.KindsCycles <= 0 {
		cfg.KindsCycles = def.KindsCycles
	}
	if cfg.KindsTime <= 0 {
		cfg.KindsTime = def.KindsTime
	}
	for _, fig := range cfg.Figures {
		if !slices.Contains(Figures, fig) {
			return nil, fmt.Errorf("bench: no figure %q (have %s)", fig, strings.Join(Figures, ", "))
		}
	}
	subs := Subjects()
	if len(cfg.Only) > 0 {
		var keep []*Subject
		for _, name := range cfg.Only {
			s := Find(subs, name)
			if s == nil {
				return nil, fmt.Errorf("bench: no subject %q (have %s)", name, strings.Join(Names(subs), ", "))
			}
			keep = append(keep, s)
		}
		subs = keep
	}
	return &Runner{
		cfg:    cfg,
		srv:    srv,
		subs:   subs,
		prefix: "locklab-bench:" + xid.New().String() + ":",
	}, nil
}

func (r *Runner) logf(format string, args ...any) {
	if r.cfg.Progress == nil {
		return
	}
	el := time.Since(r.start).Truncate(100 * time.Millisecond)
	fmt.Fprintf(r.cfg.Progress, "[%6s] "+format+"\n", append([]any{el}, args...)...)
}

// key returns a key of this run's own.
func (r *Runner) key(parts ...string) string { return r.prefix + strings.Join(parts, ":") }

// Run measures everything and returns the report.
func (r *Runner) Run(ctx context.Context) (*Report, error) {
	r.start = time.Now()
	defer func() {
		if r.admin != nil {
			r.admin.Close()
			r.admin = nil
		}
	}()
	rep := &Report{
		When:         time.Now().UTC().Truncate(time.Second),
		GoVersion:    runtime.Version(),
		RedisVersion: r.srv.Version,
		RedisKind:    r.srv.Kind,
		OS:           runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:         runtime.NumCPU(),
		Settings: Settings{
			Iterations:       r.cfg.Iterations,
			Warmup:           r.cfg.Warmup,
			Rounds:           r.cfg.Rounds,
			AllocCycles:      r.cfg.AllocCycles,
			Goroutines:       r.cfg.Goroutines,
			ParallelS:        r.cfg.ParallelTime.Seconds(),
			Contenders:       r.cfg.Contenders,
			ContendedS:       r.cfg.ContendedTime.Seconds(),
			TTLms:            TTL.Milliseconds(),
			Waiters:          r.cfg.Waiters,
			SweepS:           r.cfg.SweepTime.Seconds(),
			RedislockRetry:   "LinearBackoff(100ms), no try limit; and LinearBackoff(the swept delay)",
			RedsyncRetry:     "defaults: 32 tries, random 50–250ms apart; and WithRetryDelay(the swept delay), no try limit",
			SameClientRounds: r.cfg.SameClientRounds,
			SameClientS:      r.cfg.SameClientTime.Seconds(),
		},
	}
	if len(r.cfg.Figures) == 0 || slices.Contains(r.cfg.Figures, FigureKinds) {
		rep.Settings.KindsRounds, rep.Settings.KindsCycles = r.cfg.KindsRounds, r.cfg.KindsCycles
		rep.Settings.KindsS = r.cfg.KindsTime.Seconds()
	}
	if l, ok := loadAverage(); ok {
		rep.Load = &Load{Start: l}
	}
	for _, kind := range ClientKinds {
		rep.Floors = append(rep.Floors, Floor{Client: kind})
	}
	for _, d := range r.cfg.SweepDelays {
		rep.Settings.SweepDelaysMs = append(rep.Settings.SweepDelaysMs, float64(d)/float64(time.Millisecond))
	}
	for _, s := range r.subs {
		rep.Rows = append(rep.Rows, Row{Name: s.Name, Subject: s.Name, Client: s.Client, Cycle: s.Cycle})
	}
	r.logf("%v; %d subjects: %s", r.srv, len(r.subs), strings.Join(Names(r.subs), ", "))

	steps := []struct {
		name string
		fn   func(context.Context, *Report) error
	}{
		{"commands", r.commands},
		{FigureUncontended, r.uncontended},
		{FigureAllocations, r.allocations},
		{FigureParallel, r.parallel},
		{FigureSameClient, r.sameClient},
		{FigureLibraries, r.libraries},
		{FigureKinds, r.kinds},
		{FigureRedlock, r.redlockFigure},
		{FigureContended, r.contended},
		{FigureSuite, r.suite},
	}
	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(r.cfg.Figures) > 0 && st.name != "commands" && !slices.Contains(r.cfg.Figures, st.name) {
			continue
		}
		if err := st.fn(ctx, rep); err != nil {
			return nil, fmt.Errorf("%s: %w", st.name, err)
		}
	}
	if f := rep.Floor(ClientRedigo); f != nil {
		rep.PingP50us = f.PingP50us
	}
	rep.Targets = Targets(rep)
	if l, ok := loadAverage(); ok && rep.Load != nil {
		rep.Load.End = l
	}
	r.logf("done")
	return rep, nil
}

// cycle is one lock + unlock on a locker that expects the lock to be free.
func cycle(ctx context.Context, lk Locker) error {
	if err := lk.Lock(ctx); err != nil {
		return err
	}
	return lk.Unlock(ctx)
}
