package bench

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
)

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
	t := tap{sent: &count, names: names}
	rc := r.goRedis(1)
	defer rc.Close()
	rc.AddHook(tapHook{t})
	rq, err := r.rueidisClient()
	if err != nil {
		return err
	}
	defer rq.Close()
	fp := r.redigoPool(1)
	defer fp.Close()
	cl := &Clients{Redigo: tapPool{p: fp, t: t}, GoRedis: rc, Rueidis: tapRueidis{Client: rq, t: t}}

	type entry struct {
		name   string
		run    func() error
		done   func(total float64, byCmd map[string]float64, server float64)
		byCmd  map[string]float64
		total  float64
		usec   int64
		cycles int
	}
	var entries []*entry
	for _, kind := range ClientKinds {
		h := handOf(kind, cl)
		key := r.key("commands", "floor", kind)
		fl := rep.Floor(kind)
		entries = append(entries,
			&entry{name: "PING+PING " + kind, run: func() error { return twice(func() error { return h.ping(bg) }) },
				done: func(_ float64, _ map[string]float64, us float64) { fl.ServerTwoPingUs = us }},
			&entry{name: "SET+DEL " + kind, run: func() error { return h.setDel(bg, key) },
				done: func(_ float64, _ map[string]float64, us float64) { fl.ServerSetDelUs = us }},
			&entry{name: "SET+EVALSHA " + kind, run: func() error { return h.setEval(bg, key) },
				done: func(_ float64, _ map[string]float64, us float64) { fl.ServerSetEvalUs = f(us) }},
			&entry{name: "SET+EVALSHA fixed token " + kind, run: func() error { return h.setEvalFixed(bg, key) },
				done: func(_ float64, _ map[string]float64, us float64) { fl.ServerSetEvalFixedUs = f(us) }})
	}
	for i, s := range r.subs {
		pool := r.redigoPool(1)
		defer pool.Close()
		cl := &Clients{Redigo: tapPool{p: pool, t: t}, GoRedis: rc, Rueidis: tapRueidis{Client: rq, t: t}}
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
		r.logf("commands: %-20s %.0f per cycle (%s), server time %.2fµs", e.name, e.total, fmtByName(e.byCmd), us)
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
