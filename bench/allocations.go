package bench

import (
	"context"
	"fmt"
	"runtime"
)

// allocations averages the heap allocations of one cycle: of every lock,
// and of the floors through each client (two PINGs, and luatoken's commands
// by hand, with a new token and with a fixed one). Nothing else runs
// meanwhile; the runtime's own background allocations are noise well below
// one per cycle.
func (r *Runner) allocations(ctx context.Context, rep *Report) error {
	cl, closeAll, err := r.clients(1)
	if err != nil {
		return err
	}
	defer closeAll()
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

	for _, kind := range ClientKinds {
		h := handOf(kind, cl)
		fl := rep.Floor(kind)
		a, b, err := measure(func() error { return twice(func() error { return h.ping(bg) }) })
		if err != nil {
			return fmt.Errorf("PING %s: %w", kind, err)
		}
		fl.AllocsPerOp, fl.BytesPerOp = a, b
		key := r.key("allocs", "floor", kind)
		a, _, err = measure(func() error { return h.setEval(bg, key) })
		if err != nil {
			return fmt.Errorf("SET+EVALSHA %s: %w", kind, err)
		}
		fl.SetEvalAllocsPerOp = f(a)
		a, _, err = measure(func() error { return h.setEvalFixed(bg, key) })
		if err != nil {
			return fmt.Errorf("SET+EVALSHA fixed token %s: %w", kind, err)
		}
		fl.SetEvalFixedAllocsPerOp = f(a)
		r.logf("allocations: floor %-8s %5.1f allocs for two PINGs, %5.1f for SET NX PX · EVALSHA by hand (%.1f with one fixed token)",
			kind, fl.AllocsPerOp, *fl.SetEvalAllocsPerOp, a)
	}
	for i, s := range r.subs {
		sc, closeSub, err := r.clientOf(s.Client, 1)
		if err != nil {
			return err
		}
		lk, err := s.Open1(sc, r.key("allocs", s.Name), "")
		if err != nil {
			closeSub()
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
		closeSub()
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		rep.Rows[i].AllocsPerOp, rep.Rows[i].BytesPerOp = f(a), f(b)
		r.logf("allocations: %-18s %5.1f allocs  %6.0f B per acquire + release", s.Name, a, b)
	}
	return nil
}
