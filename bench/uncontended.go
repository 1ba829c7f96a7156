package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// seqEntry is one thing timed in the uncontended rounds: a subject or a
// floor.
type seqEntry struct {
	name    string
	run     func(context.Context) error
	samples Durations
	total   time.Duration
}

// uncontended times acquire + release, one at a time, every subject and
// floor of a client kind through one client of that kind with one
// connection, each on a key of its own. The floors are, through each client
// kind: PING, two PINGs, SET NX PX + DEL, and SET NX PX + EVALSHA
// (luatoken's commands by hand, with a new token and with a fixed one).
// INFO commandstats, read before and after the timed cycles, gives what
// each command cost the server meanwhile.
func (r *Runner) uncontended(ctx context.Context, rep *Report) error {
	cl, closeAll, err := r.clients(1)
	if err != nil {
		return err
	}
	defer closeAll()

	// The floors: each client's PING, two PINGs, SET NX PX + DEL, and
	// luatoken's commands by hand, with a new token each cycle as a lock
	// sends them, and with one fixed token to show what the new one costs.
	type floor struct {
		kind                                       string
		ping, ping2, setDel, setEval, setEvalFixed *seqEntry
	}
	var (
		floors  []floor
		entries []*seqEntry
	)
	for _, kind := range ClientKinds {
		h := handOf(kind, cl)
		key := r.key("uncontended", "floor", kind)
		fl := floor{
			kind: kind,
			ping: &seqEntry{name: "PING " + kind, run: h.ping},
			ping2: &seqEntry{name: "PING+PING " + kind, run: func(ctx context.Context) error {
				return twice(func() error { return h.ping(ctx) })
			}},
			setDel:  &seqEntry{name: "SET+DEL " + kind, run: func(ctx context.Context) error { return h.setDel(ctx, key) }},
			setEval: &seqEntry{name: "SET+EVALSHA " + kind, run: func(ctx context.Context) error { return h.setEval(ctx, key) }},
			setEvalFixed: &seqEntry{name: "SET+EVALSHA fixed token " + kind, run: func(ctx context.Context) error {
				return h.setEvalFixed(ctx, key)
			}},
		}
		floors = append(floors, fl)
		entries = append(entries, fl.ping, fl.ping2, fl.setDel, fl.setEval, fl.setEvalFixed)
	}
	pingCtx := &seqEntry{name: "PING redigo DoContext", run: func(ctx context.Context) error { return pingRedigoContext(ctx, cl.Redigo) }}
	entries = append(entries, pingCtx)
	// luatoken's commands sent by hand through each adapter's redigo
	// connections: what the adapter adds to its client, without luatoken.
	viaAdapter := map[string]*seqEntry{}
	for _, kind := range ClientKinds[1:] {
		h, key := handOf(ClientRedigo, &Clients{Redigo: adapterPool(kind, cl)}), r.key("uncontended", "adapter", kind)
		e := &seqEntry{name: "SET+EVALSHA via adapter " + kind, run: func(ctx context.Context) error { return h.setEval(ctx, key) }}
		viaAdapter[kind] = e
		entries = append(entries, e)
	}
	var cancellable *seqEntry
	if lt := Find(r.subs, Locklab); lt != nil {
		// luatoken once more, called with a context that can end: the
		// path of a caller that passes a request's context.
		lk, err := lt.Open1(cl, r.key("uncontended", "cancellable"), "")
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
		// Each lock on the client its floors go through: a lock and the
		// commands it is compared with take the same connection, whose
		// last use is as recent for one as for the other.
		lk, err := s.Open1(cl, r.key("uncontended", s.Name), "")
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		entries = append(entries, &seqEntry{name: s.Name, run: func(ctx context.Context) error { return cycle(ctx, lk) }})
	}
	if err := r.warmUp(entries); err != nil {
		return err
	}
	st, err := r.startStats(ctx)
	if err != nil {
		return err
	}
	if err := r.timeInTurns(ctx, entries); err != nil {
		return err
	}

	// Each entry's p50 in each of UncontendedBlocks blocks of turns, read
	// before the p50s below sort the samples: the blocks of all entries
	// cover the same turns, so a ratio per block is a ratio in one stretch
	// of time, and the blocks' ratios give its spread.
	blockP50 := map[*seqEntry][]float64{}
	for _, e := range entries {
		blockP50[e] = blockQuantiles(e.samples, UncontendedBlocks, 0.50)
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
	for _, fl := range floors {
		c := rep.Floor(fl.kind)
		c.PingP50us, c.PingP99us = p50(fl.ping), p99(fl.ping)
		c.TwoPingP50us = p50(fl.ping2)
		c.SetDelP50us, c.SetDelP99us = p50(fl.setDel), p99(fl.setDel)
		c.SetEvalP50us, c.SetEvalP99us = f(p50(fl.setEval)), f(p99(fl.setEval))
		c.SetEvalFixedP50us = f(p50(fl.setEvalFixed))
		r.logf("uncontended: floor %-8s PING p50 %.1fµs, PING+PING p50 %.1fµs, SET NX PX · DEL p50 %.1fµs (%.2f× 2×PING), by hand SET NX PX · EVALSHA p50 %.1fµs (%.1fµs, %.3f×, with one fixed token)",
			fl.kind, c.PingP50us, c.TwoPingP50us, c.SetDelP50us, c.SetDelP50us/(2*c.PingP50us), *c.SetEvalP50us,
			*c.SetEvalFixedP50us, *c.SetEvalP50us / *c.SetEvalFixedP50us)
	}
	rep.Floor(ClientRedigo).PingContextP50us = f(p50(pingCtx))
	for kind, e := range viaAdapter {
		c := rep.Floor(kind)
		c.AdapterSetEvalP50us, c.AdapterSetEvalP99us = f(p50(e)), f(p99(e))
		r.logf("uncontended: by hand through the %s adapter, SET NX PX · EVALSHA p50 %.1fµs (%.2f× by hand on the client)",
			kind, *c.AdapterSetEvalP50us, *c.AdapterSetEvalP50us / *c.SetEvalP50us)
	}
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
		row.HandRatio = f(v / *c.SetEvalP50us)
		var fl *floor
		for i := range floors {
			if floors[i].kind == row.Client {
				fl = &floors[i]
			}
		}
		bp := blockP50[e]
		row.UncontendedP50Spread = ptr(spreadOf(bp))
		if fl != nil {
			twoPing := make([]float64, len(bp))
			for i, p := range blockP50[fl.ping] {
				twoPing[i] = 2 * p
			}
			row.FloorRatioSpread = ptr(ratioSpread(bp, twoPing))
			row.HandRatioSpread = ptr(ratioSpread(bp, blockP50[fl.setEval]))
		}
		r.logf("uncontended: %-18s p50 %7.1fµs  p99 %7.1fµs  %.2f× 2×PING  %.2f× PING+PING  %.2f× SET NX PX · DEL  %.2f× by hand",
			e.name, v, *row.UncontendedP99us, *row.FloorRatio, *row.TwoPingRatio, *row.SetDelRatio, *row.HandRatio)
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

// UncontendedBlocks is how many blocks of turns the uncontended figure's
// spreads are read over.
const UncontendedBlocks = 5

// blockQuantiles returns the q-quantile, in µs, of each of n contiguous
// blocks of samples, leaving samples as they are.
func blockQuantiles(samples Durations, n int, q float64) []float64 {
	if len(samples) < n {
		n = max(len(samples), 1)
	}
	out := make([]float64, 0, n)
	for i := range n {
		lo, hi := i*len(samples)/n, (i+1)*len(samples)/n
		if lo == hi {
			continue
		}
		out = append(out, us(slices.Clone(samples[lo:hi]).Quantile(q)))
	}
	return out
}

// ratioSpread is the spread of a[i] / b[i] over the rounds (or blocks)
// both have.
func ratioSpread(a, b []float64) Spread {
	var r []float64
	for i := range min(len(a), len(b)) {
		if b[i] != 0 {
			r = append(r, a[i]/b[i])
		}
	}
	return spreadOf(r)
}

func ptr[T any](v T) *T { return &v }

// warmUp runs each entry's cycle r.cfg.Warmup times, untimed, and makes
// room for its samples.
func (r *Runner) warmUp(entries []*seqEntry) error {
	for _, e := range entries {
		for range r.cfg.Warmup {
			if err := e.run(bg); err != nil {
				return fmt.Errorf("%s: %w", e.name, err)
			}
		}
		e.samples = make(Durations, 0, r.cfg.Iterations)
	}
	r.logf("uncontended: warmed up with %d cycles of each of %d locks and floors", r.cfg.Warmup, len(entries))
	return nil
}

// timeInTurns times r.cfg.Iterations cycles of each entry. Every entry
// runs one cycle in turn, in an order shuffled every turn: a moment when
// the shared machine is slow then hits all of them alike, and the ratios
// between them hold. A new order each turn also spreads over all entries
// alike what a cycle inherits from the one before it (the same
// connection just used, or another client's); with one order kept for a
// hundred turns, two entries sending the very same commands came out up
// to 3 % apart.
func (r *Runner) timeInTurns(ctx context.Context, entries []*seqEntry) error {
	order := slices.Clone(entries)
	rng := rand.New(rand.NewPCG(1, 2))
	report := max(r.cfg.Iterations/5, 1)
	for i := range r.cfg.Iterations {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
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
	return nil
}
