package explore

import (
	"context"
	"time"

	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/judge"
)

// Options bound an exploration.
type Options struct {
	Seed     int64         // the first run's; run i draws its plan from Seed+i
	Runs     int           // at most this many runs; 0: Budget alone
	Budget   time.Duration // at most this long; 0: Runs alone
	Replays  int           // how often a shrunk counterexample is run again
	Progress func(Progress)
}

// Progress is where an exploration stands.
type Progress struct {
	Runs       int // runs done
	Violations int // runs whose history showed a violation
	Errors     int // runs that reached no verdict
	Elapsed    time.Duration
}

// Found is what an exploration found: a violation, shrunk, or none.
type Found struct {
	Progress
	Broken     bool
	Plan       Plan            // the plan of the first run that broke, as drawn
	Shrunk     Plan            // the smallest plan that still breaks
	Outcome    harness.Outcome // the break of the shrunk plan
	ShrinkRuns int             // the runs the shrinking took
	Reproduced int             // how many of the replays of Shrunk broke again
	Replays    int
	LastErr    error // the last run without a verdict, if any
}

// Loop runs the plans drawn from opts.Seed on, one after the other, each
// through run, until one breaks (then shrinks it), opts.Runs or
// opts.Budget is reached, or ctx ends.
func Loop(ctx context.Context, opts Options, lock Lock, run func(Plan) harness.Outcome) Found {
	start := time.Now()
	var f Found
	for i := 0; opts.Runs <= 0 || i < opts.Runs; i++ {
		if ctx.Err() != nil || (opts.Budget > 0 && time.Since(start) >= opts.Budget) {
			break
		}
		p := Draw(opts.Seed+int64(i), lock)
		out := run(p)
		f.Runs++
		switch {
		case out.Err != nil:
			f.Errors++
			f.LastErr = out.Err
		case out.Verdict == judge.Breaks:
			f.Violations++
		}
		f.Elapsed = time.Since(start)
		if opts.Progress != nil {
			opts.Progress(f.Progress)
		}
		if out.Err == nil && out.Verdict == judge.Breaks {
			f.Broken, f.Plan = true, p
			f.shrink(ctx, opts, out, run)
			f.Elapsed = time.Since(start)
			return f
		}
	}
	return f
}

// shrink shrinks the plan that broke with out, then replays the result.
func (f *Found) shrink(ctx context.Context, opts Options, out harness.Outcome, run func(Plan) harness.Outcome) {
	same := func(o harness.Outcome) bool {
		return o.Err == nil && o.Verdict == judge.Breaks && o.Message.ID == out.Message.ID
	}
	last := out
	f.Shrunk, f.ShrinkRuns = Shrink(f.Plan, func(p Plan) bool {
		if ctx.Err() != nil {
			return false
		}
		o := run(p)
		if same(o) {
			last = o
			return true
		}
		return false
	})
	f.Outcome = last
	f.Replays = opts.Replays
	for range opts.Replays {
		if ctx.Err() != nil {
			break
		}
		if o := run(f.Shrunk); same(o) {
			f.Reproduced++
			f.Outcome = o
		}
	}
}
