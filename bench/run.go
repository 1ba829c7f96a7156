package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	goredis "github.com/redis/go-redis/v9"
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
	// Contended: Contenders goroutines on one key, for ContendedTime per
	// subject and waiting mode, in Rounds runs that take turns.
	Contenders    int
	ContendedTime time.Duration
	Rounds        int
	// Warm is discarded at the start of every contended run (and up to
	// 50ms of it at the start of every parallel slice).
	Warm time.Duration
	// Only restricts the run to the subjects of these names; empty means all.
	Only []string
	// Figures restricts the run to these figures (FigureUncontended,
	// FigureAllocations, FigureParallel, FigureContended); empty means all.
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
		ContendedTime: 4 * time.Second,
		Warm:          250 * time.Millisecond,
	}
}

// The figures a run can measure.
const (
	FigureUncontended = "uncontended"
	FigureAllocations = "allocations"
	FigureParallel    = "parallel"
	FigureContended   = "contended"
)

// Figures lists them all, in the order a run measures them.
var Figures = []string{FigureUncontended, FigureAllocations, FigureParallel, FigureContended}

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
	cfg.Contenders = max(cfg.Contenders, 2)
	if cfg.ParallelTime <= 0 {
		cfg.ParallelTime = def.ParallelTime
	}
	if cfg.ContendedTime <= 0 {
		cfg.ContendedTime = def.ContendedTime
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

// Names lists the subjects' names.
func Names(subs []*Subject) []string {
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.Name
	}
	return names
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

// redigoPool returns a pool to the server keeping up to idle idle
// connections.
func (r *Runner) redigoPool(idle int) *redis.Pool {
	p := r.srv.NewPool()
	p.MaxIdle = idle
	return p
}

// goRedis returns a go-redis client to the server with a pool of size
// connections.
func (r *Runner) goRedis(size int) *goredis.Client {
	opt := &goredis.Options{Addr: r.srv.Addr}
	if r.srv.Kind == redistest.KindExternal && os.Getenv(redistest.EnvAddr) == "" {
		if u := os.Getenv(redistest.EnvURL); u != "" {
			if o, err := goredis.ParseURL(u); err == nil {
				opt = o
			}
		}
	}
	opt.PoolSize = size
	opt.MaxIdleConns = size
	opt.ReadTimeout = redistest.ReadTimeout
	opt.WriteTimeout = redistest.WriteTimeout
	return goredis.NewClient(opt)
}

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
			Iterations:     r.cfg.Iterations,
			Warmup:         r.cfg.Warmup,
			Rounds:         r.cfg.Rounds,
			AllocCycles:    r.cfg.AllocCycles,
			Goroutines:     r.cfg.Goroutines,
			ParallelS:      r.cfg.ParallelTime.Seconds(),
			Contenders:     r.cfg.Contenders,
			ContendedS:     r.cfg.ContendedTime.Seconds(),
			TTLms:          TTL.Milliseconds(),
			RedislockRetry: "LinearBackoff(100ms), no try limit",
			RedsyncRetry:   "defaults: 32 tries, random 50–250ms apart",
		},
	}
	rep.Floors = []Floor{{Client: ClientRedigo}, {Client: ClientGoRedis}}
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
		{FigureContended, r.contended},
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
	r.logf("done")
	return rep, nil
}

// bg is the context of the commands timed in the uncontended, allocation and
// parallel figures: one that never ends, as most calls that do not wait are
// made. (A context that can end costs redigo a goroutine per command; the
// report's diagnostics time that apart.) The run's own context is checked
// between cycles.
var bg = context.Background()

// cycle is one lock + unlock on a locker that expects the lock to be free.
func cycle(ctx context.Context, lk Locker) error {
	if err := lk.Lock(ctx); err != nil {
		return err
	}
	return lk.Unlock(ctx)
}

// commands counts the commands of one uncontended cycle of every subject
// and floor, in all and by name, and reads from INFO commandstats the time
// the server spent running them.
//
// The server's time per command moves a lot on a shared machine: it comes
// in spells several times slower than the rest, which last a fraction of a
// second. So the server time is measured as the uncontended figure is, in
// turns: every subject and floor runs chunks of cycles alone, one after the
// other in an order shuffled every round, with INFO commandstats read
// between chunks, so that each chunk's commands are its own and a slow
// spell hits all of them alike. Only the commands the client sent are
// summed: a script's time already holds that of the commands it calls
// (none of the locks measured sends itself a command its scripts call).
func (r *Runner) commands(ctx context.Context, rep *Report) error {
	const warm, counted, rounds, chunk = 50, 200, 20, 100
	var count atomic.Int64
	names := newByName()
	rc := r.goRedis(1)
	defer rc.Close()
	rc.AddHook(tapHook{sent: &count, names: names})

	type entry struct {
		name   string
		run    func() error
		done   func(total float64, byCmd map[string]float64, server float64)
		byCmd  map[string]float64
		total  float64
		usec   int64
		cycles int
	}
	fp := r.redigoPool(1)
	defer fp.Close()
	tp := tapPool{p: fp, sent: &count, names: names}
	redigoKey, goRedisKey := r.key("commands", "floor", ClientRedigo), r.key("commands", "floor", ClientGoRedis)
	fr, fg := rep.Floor(ClientRedigo), rep.Floor(ClientGoRedis)
	entries := []*entry{
		{name: "PING+PING redigo", run: func() error { return twice(func() error { return doRedigo(bg, tp, "PING") }) },
			done: func(_ float64, _ map[string]float64, us float64) { fr.ServerTwoPingUs = us }},
		{name: "SET+DEL redigo", run: func() error { return setDelRedigo(bg, tp, redigoKey) },
			done: func(_ float64, _ map[string]float64, us float64) { fr.ServerSetDelUs = us }},
		{name: "SET+EVALSHA redigo", run: func() error { return setEvalRedigo(bg, tp, redigoKey) },
			done: func(_ float64, _ map[string]float64, us float64) { fr.ServerSetEvalUs = f(us) }},
		{name: "PING+PING go-redis", run: func() error { return twice(func() error { return rc.Ping(bg).Err() }) },
			done: func(_ float64, _ map[string]float64, us float64) { fg.ServerTwoPingUs = us }},
		{name: "SET+DEL go-redis", run: func() error { return setDelGoRedis(bg, rc, goRedisKey) },
			done: func(_ float64, _ map[string]float64, us float64) { fg.ServerSetDelUs = us }},
	}
	for i, s := range r.subs {
		pool := r.redigoPool(1)
		defer pool.Close()
		cl := &Clients{Redigo: tapPool{p: pool, sent: &count, names: names}, GoRedis: rc}
		lk, err := s.Open1(cl, r.key("commands", s.Name), "")
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		entries = append(entries, &entry{name: s.Name, run: func() error { return cycle(bg, lk) },
			done: func(total float64, byCmd map[string]float64, us float64) {
				row := &rep.Rows[i]
				row.CommandsPerOp, row.CommandsByName, row.ServerUsPerOp = f(total), byCmd, f(us)
				if s.Name == NotifyName {
					subs := byCmd["SUBSCRIBE"] + byCmd["UNSUBSCRIBE"] + byCmd["PSUBSCRIBE"] + byCmd["PUNSUBSCRIBE"]
					rep.Diagnostics = append(rep.Diagnostics, Diagnostic{Name: DiagNotifySubscribe, Value: subs, Unit: "commands"})
				}
			}})
	}

	// Count, each alone after a warm-up.
	for _, e := range entries {
		for range warm {
			if err := e.run(); err != nil {
				return fmt.Errorf("%s: %w", e.name, err)
			}
		}
		count.Store(0)
		names.take()
		for range counted {
			if err := e.run(); err != nil {
				return fmt.Errorf("%s: %w", e.name, err)
			}
		}
		e.total = float64(count.Load()) / counted
		e.byCmd = map[string]float64{}
		for cmd, k := range names.take() {
			e.byCmd[cmd] = float64(k) / counted
		}
	}

	// Time on the server, in turns.
	st, err := r.startStats(ctx)
	if err != nil {
		return err
	}
	order := slices.Clone(entries)
	rng := rand.New(rand.NewPCG(5, 6))
	for range rounds {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, e := range order {
			for range chunk {
				if err := e.run(); err != nil {
					return fmt.Errorf("%s: %w", e.name, err)
				}
			}
			d, err := st.next(ctx)
			if err != nil {
				return err
			}
			for cmd := range e.byCmd {
				e.usec += d[strings.ToLower(cmd)].Usec
			}
			e.cycles += chunk
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	for _, e := range entries {
		us := float64(e.usec) / float64(e.cycles)
		e.done(e.total, e.byCmd, us)
		r.logf("commands: %-18s %.0f per cycle (%s), server time %.2fµs", e.name, e.total, fmtByName(e.byCmd), us)
	}
	return nil
}

// fmtByName lists command counts in alphabetical order: "EVALSHA 1, SET 1".
func fmtByName(m map[string]float64) string {
	var parts []string
	for _, cmd := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %.3g", cmd, m[cmd]))
	}
	return strings.Join(parts, ", ")
}

func twice(run func() error) error {
	if err := run(); err != nil {
		return err
	}
	return run()
}

// setDelRedigo sends what the plainest lock with an expiry sends, SET NX PX
// then DEL, each on a connection from the pool as the locks take them.
func setDelRedigo(ctx context.Context, p RedigoPool, key string) error {
	if err := doRedigo(ctx, p, "SET", key, "1", "NX", "PX", TTL.Milliseconds()); err != nil {
		return err
	}
	return doRedigo(ctx, p, "DEL", key)
}

// casDel is the compare-and-delete of a safe release: the work of
// luatoken's release script, without its PUBLISH.
var casDel = redis.NewScript(1, `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// handToken is as long as luatoken's tokens (an xid).
const handToken = "d4ebl8o3p1rs1v8h0mj0"

// setEvalRedigo sends luatoken's commands without luatoken: SET NX PX with
// a token, then the compare-and-delete by EVALSHA, each on a connection
// from the pool.
func setEvalRedigo(ctx context.Context, p RedigoPool, key string) error {
	if err := doRedigo(ctx, p, "SET", key, handToken, "NX", "PX", TTL.Milliseconds()); err != nil {
		return err
	}
	c, err := p.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	n, err := redis.Int(casDel.Do(c, key, handToken))
	if err == nil && n != 1 {
		err = errors.New("bench: the compare-and-delete found no lock")
	}
	return err
}

// setDelGoRedis is setDelRedigo through go-redis, with the same arguments.
func setDelGoRedis(ctx context.Context, c *goredis.Client, key string) error {
	if err := c.Do(ctx, "SET", key, "1", "NX", "PX", TTL.Milliseconds()).Err(); err != nil {
		return err
	}
	return c.Del(ctx, key).Err()
}

// seqEntry is one thing timed in the uncontended rounds: a subject or a
// floor.
type seqEntry struct {
	name    string
	run     func(context.Context) error
	samples Durations
	total   time.Duration
}

// uncontended times acquire + release, one at a time, each subject on a pool
// of its own with one idle connection, and the floors through each client
// kind the same way: PING, two PINGs, and SET NX PX + DEL. INFO
// commandstats, read before and after the timed cycles, gives what each
// command cost the server meanwhile.
func (r *Runner) uncontended(ctx context.Context, rep *Report) error {
	pool := r.redigoPool(1)
	defer pool.Close()
	rc := r.goRedis(1)
	defer rc.Close()
	redigoKey, goRedisKey := r.key("uncontended", "floor", ClientRedigo), r.key("uncontended", "floor", ClientGoRedis)

	var (
		ping    = &seqEntry{name: "PING redigo", run: func(ctx context.Context) error { return pingRedigo(ctx, pool) }}
		pingCtx = &seqEntry{name: "PING redigo DoContext", run: func(ctx context.Context) error { return pingRedigoContext(ctx, pool) }}
		gping   = &seqEntry{name: "PING go-redis", run: func(ctx context.Context) error { return rc.Ping(ctx).Err() }}
		ping2   = &seqEntry{name: "PING+PING redigo", run: func(ctx context.Context) error {
			return twice(func() error { return pingRedigo(ctx, pool) })
		}}
		gping2 = &seqEntry{name: "PING+PING go-redis", run: func(ctx context.Context) error {
			return twice(func() error { return rc.Ping(ctx).Err() })
		}}
		setDel  = &seqEntry{name: "SET+DEL redigo", run: func(ctx context.Context) error { return setDelRedigo(ctx, pool, redigoKey) }}
		gsetDel = &seqEntry{name: "SET+DEL go-redis", run: func(ctx context.Context) error { return setDelGoRedis(ctx, rc, goRedisKey) }}
		setEval = &seqEntry{name: "SET+EVALSHA redigo", run: func(ctx context.Context) error { return setEvalRedigo(ctx, pool, redigoKey) }}
	)
	entries := []*seqEntry{ping, pingCtx, gping, ping2, gping2, setDel, gsetDel, setEval}
	var cancellable *seqEntry
	if lt := Find(r.subs, Locklab); lt != nil {
		// luatoken once more, called with a context that can end: the
		// path of a caller that passes a request's context.
		sp := r.redigoPool(1)
		defer sp.Close()
		lk, err := lt.Open1(&Clients{Redigo: sp}, r.key("uncontended", "cancellable"), "")
		if err != nil {
			return err
		}
		cctx, cancel := context.WithCancel(bg)
		defer cancel()
		cancellable = &seqEntry{name: Locklab + " (ctx that can end)", run: func(context.Context) error { return cycle(cctx, lk) }}
		entries = append(entries, cancellable)
	}
	skip := len(entries)
	for _, s := range r.subs {
		sp := r.redigoPool(1)
		defer sp.Close()
		src := r.goRedis(1)
		defer src.Close()
		lk, err := s.Open1(&Clients{Redigo: sp, GoRedis: src}, r.key("uncontended", s.Name), "")
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		entries = append(entries, &seqEntry{name: s.Name, run: func(ctx context.Context) error { return cycle(ctx, lk) }})
	}
	for _, e := range entries {
		for range r.cfg.Warmup {
			if err := e.run(bg); err != nil {
				return fmt.Errorf("%s: %w", e.name, err)
			}
		}
		e.samples = make(Durations, 0, r.cfg.Iterations)
	}
	r.logf("uncontended: warmed up with %d cycles of each of %d locks and floors", r.cfg.Warmup, len(entries))
	st, err := r.startStats(ctx)
	if err != nil {
		return err
	}

	// Every entry runs one cycle in turn, in an order shuffled every
	// hundred turns: a moment when the shared machine is slow then hits
	// all of them alike, and the ratios between them hold.
	order := slices.Clone(entries)
	rng := rand.New(rand.NewPCG(1, 2))
	report := max(r.cfg.Iterations/5, 1)
	for i := range r.cfg.Iterations {
		if i%100 == 0 {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		for _, e := range order {
			t0 := time.Now()
			err := e.run(bg)
			d := time.Since(t0)
			if err != nil {
				return fmt.Errorf("%s: %w", e.name, err)
			}
			e.samples = append(e.samples, d)
			e.total += d
		}
		if (i+1)%report == 0 {
			r.logf("uncontended: %d/%d cycles of each", i+1, r.cfg.Iterations)
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}

	total, err := st.next(ctx)
	if err != nil {
		return err
	}
	rep.ServerCalls, rep.ServerUsecPerCall = map[string]int64{}, map[string]float64{}
	for _, cmd := range ServerCommands {
		rep.ServerCalls[cmd] = 0
	}
	for cmd, d := range total {
		if cmd == "info" {
			continue
		}
		rep.ServerCalls[cmd] = d.Calls
		rep.ServerUsecPerCall[cmd] = float64(d.Usec) / float64(d.Calls)
	}
	r.logf("uncontended: server time per call (µs): %s", rep.serverLine())

	p50 := func(e *seqEntry) float64 { return us(e.samples.Quantile(0.50)) }
	p99 := func(e *seqEntry) float64 { return us(e.samples.Quantile(0.99)) }
	for _, fl := range []struct {
		client            string
		ping, two, setDel *seqEntry
	}{{ClientRedigo, ping, ping2, setDel}, {ClientGoRedis, gping, gping2, gsetDel}} {
		c := rep.Floor(fl.client)
		c.PingP50us, c.PingP99us = p50(fl.ping), p99(fl.ping)
		c.TwoPingP50us = p50(fl.two)
		c.SetDelP50us, c.SetDelP99us = p50(fl.setDel), p99(fl.setDel)
		r.logf("uncontended: floor %-8s PING p50 %.1fµs, PING+PING p50 %.1fµs, SET NX PX · DEL p50 %.1fµs (%.2f× 2×PING)",
			fl.client, c.PingP50us, c.TwoPingP50us, c.SetDelP50us, c.SetDelP50us/(2*c.PingP50us))
	}
	fr := rep.Floor(ClientRedigo)
	fr.PingContextP50us = f(p50(pingCtx))
	fr.SetEvalP50us, fr.SetEvalP99us = f(p50(setEval)), f(p99(setEval))
	r.logf("uncontended: by hand    redigo   SET NX PX · EVALSHA p50 %.1fµs (%.2f× 2×PING, %.2f× SET NX PX · DEL)",
		*fr.SetEvalP50us, *fr.SetEvalP50us/(2*fr.PingP50us), *fr.SetEvalP50us/fr.SetDelP50us)
	r.logf("uncontended: PING p50 through redis.DoContext %.1fµs", p50(pingCtx))
	if cancellable != nil {
		v := p50(cancellable)
		rep.Diagnostics = append(rep.Diagnostics, Diagnostic{Name: DiagCancellable, Value: v, Unit: "µs"})
		r.logf("uncontended: %-16s p50 %7.1fµs", cancellable.name, v)
	}
	for _, e := range entries[skip:] {
		row := rep.Row(e.name)
		v := p50(e)
		row.UncontendedP50us = f(v)
		row.UncontendedP99us = f(p99(e))
		row.UncontendedOpsPerS = f(float64(len(e.samples)) / e.total.Seconds())
		c := rep.Floor(row.Client)
		row.FloorRatio = f(v / (2 * c.PingP50us))
		row.TwoPingRatio = f(v / c.TwoPingP50us)
		row.SetDelRatio = f(v / c.SetDelP50us)
		r.logf("uncontended: %-16s p50 %7.1fµs  p99 %7.1fµs  %.2f× 2×PING  %.2f× PING+PING  %.2f× SET NX PX · DEL",
			e.name, v, *row.UncontendedP99us, *row.FloorRatio, *row.TwoPingRatio, *row.SetDelRatio)
	}
	return nil
}

// serverLine lists the server time per call of the uncontended figure.
func (rep *Report) serverLine() string {
	var parts []string
	for _, cmd := range rep.serverCommands() {
		if v, ok := rep.ServerUsecPerCall[cmd]; ok {
			parts = append(parts, fmt.Sprintf("%s %.2f (%d calls)", cmd, v, rep.ServerCalls[cmd]))
		} else {
			parts = append(parts, cmd+" –")
		}
	}
	return strings.Join(parts, ", ")
}

func pingRedigo(ctx context.Context, p *redis.Pool) error {
	c, err := p.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Do("PING")
	return err
}

func pingRedigoContext(ctx context.Context, p *redis.Pool) error {
	c, err := p.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = redis.DoContext(c, ctx, "PING")
	return err
}

// allocations averages the heap allocations of one cycle. Nothing else runs
// meanwhile; the runtime's own background allocations are noise well below
// one per cycle.
func (r *Runner) allocations(ctx context.Context, rep *Report) error {
	pool := r.redigoPool(1)
	defer pool.Close()
	rc := r.goRedis(1)
	defer rc.Close()
	n := r.cfg.AllocCycles

	measure := func(run func() error) (allocs, bytes float64, err error) {
		for range 200 {
			if err := run(); err != nil {
				return 0, 0, err
			}
		}
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		for range n {
			if err := run(); err != nil {
				return 0, 0, err
			}
		}
		runtime.ReadMemStats(&b)
		return float64(b.Mallocs-a.Mallocs) / float64(n), float64(b.TotalAlloc-a.TotalAlloc) / float64(n), nil
	}

	twoPings := map[string]func() error{
		ClientRedigo: func() error {
			if err := pingRedigo(bg, pool); err != nil {
				return err
			}
			return pingRedigo(bg, pool)
		},
		ClientGoRedis: func() error {
			if err := rc.Ping(bg).Err(); err != nil {
				return err
			}
			return rc.Ping(bg).Err()
		},
	}
	for client, run := range twoPings {
		a, b, err := measure(run)
		if err != nil {
			return fmt.Errorf("PING %s: %w", client, err)
		}
		fl := rep.Floor(client)
		fl.AllocsPerOp, fl.BytesPerOp = a, b
	}
	for i, s := range r.subs {
		sp := r.redigoPool(1)
		lk, err := s.Open1(&Clients{Redigo: sp, GoRedis: rc}, r.key("allocs", s.Name), "")
		if err != nil {
			sp.Close()
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		a, b, err := measure(func() error { return cycle(bg, lk) })
		if err == nil && s.Name == Locklab {
			cctx, cancel := context.WithCancel(bg)
			var ca, cb float64
			ca, cb, err = measure(func() error { return cycle(cctx, lk) })
			cancel()
			rep.Diagnostics = append(rep.Diagnostics,
				Diagnostic{Name: DiagCancellableAllocs, Value: ca, Unit: "allocs"},
				Diagnostic{Name: DiagCancellableBytes, Value: cb, Unit: "bytes"})
		}
		sp.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		rep.Rows[i].AllocsPerOp, rep.Rows[i].BytesPerOp = f(a), f(b)
		r.logf("allocations: %-16s %5.1f allocs  %6.0f B per acquire + release", s.Name, a, b)
	}
	return nil
}

// parEntry is one thing run in the parallel rounds: a subject or a floor.
// run is called by goroutine g only.
type parEntry struct {
	name    string
	run     func(ctx context.Context, g int) error
	ops     int64
	elapsed time.Duration
}

// parallel runs Goroutines goroutines, each locking and unlocking its own
// key as fast as it can, and the SET NX PX + DEL floor the same way.
func (r *Runner) parallel(ctx context.Context, rep *Report) error {
	G := r.cfg.Goroutines
	pool := r.redigoPool(G * 2)
	defer pool.Close()
	rc := r.goRedis(G)
	defer rc.Close()
	cl := &Clients{Redigo: pool, GoRedis: rc}

	floorKeys := make([]string, G)
	for g := range floorKeys {
		floorKeys[g] = r.key("parallel", "floor", fmt.Sprint(g))
	}
	entries := []*parEntry{
		{name: "SET+DEL redigo", run: func(ctx context.Context, g int) error { return setDelRedigo(ctx, pool, floorKeys[g]) }},
		{name: "SET+DEL go-redis", run: func(ctx context.Context, g int) error { return setDelGoRedis(ctx, rc, floorKeys[g]) }},
	}
	const floors = 2
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
	rep.Floor(ClientRedigo).ParallelOpsPerS = rate(entries[0])
	rep.Floor(ClientGoRedis).ParallelOpsPerS = rate(entries[1])
	r.logf("parallel: SET+DEL floor %.0f pairs/s redigo, %.0f go-redis", rate(entries[0]), rate(entries[1]))
	for i, e := range entries[floors:] {
		row := &rep.Rows[i]
		row.ParallelOpsPerS = f(rate(e))
		row.ParallelFloorRatio = f(rate(e) / rep.Floor(row.Client).ParallelOpsPerS)
		r.logf("parallel: %-16s %8.0f pairs/s  %.2f of floor", e.name, rate(e), *row.ParallelFloorRatio)
	}
	return nil
}

func doRedigo(ctx context.Context, p RedigoPool, cmd string, args ...any) error {
	c, err := p.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Do(cmd, args...)
	return err
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

// contended runs, for every subject and each of its waiting modes,
// Contenders goroutines on one key with empty critical sections.
func (r *Runner) contended(ctx context.Context, rep *Report) error {
	pool := r.redigoPool(r.cfg.Contenders * 2)
	defer pool.Close()
	rc := r.goRedis(r.cfg.Contenders * 2)
	defer rc.Close()
	var cur atomic.Pointer[atomic.Int64]
	rc.AddHook(tapHook{cur: &cur})
	cl := &Clients{Redigo: pool, GoRedis: rc}

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
	tapped := &Clients{Redigo: tapPool{p: cl.Redigo, sent: &sent}, GoRedis: cl.GoRedis}
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
