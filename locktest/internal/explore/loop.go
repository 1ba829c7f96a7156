package explore

import (
	"cmp"
	"context"
	"slices"
	"sync"
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
	Workers  int           // runs at once, each on keys of its own; 1 if 0
	Knobs    Knobs
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
	// Enumerated: the small plans whose other schedules were run, depth
	// first; Complete: those of them whose every schedule was.
	Enumerated, Complete int
	// First: the number of the run whose plan is Plan, in the order the
	// runs began (from 1): the runs it took to find the violation, however
	// many ran at once.
	First int
	// FirstBroke: how many of Tries runs of Plan broke again, before
	// shrinking. Finds: the violations whose plans were tried (Plan's
	// first); when Plan broke again in fewer than Keep, the exploration
	// went on for others. From and FromRun: the plan that was shrunk
	// and the number of its run, when it is not Plan (zero otherwise).
	FirstBroke, Finds int
	From              Plan
	FromRun           int
}

// Loop runs the plans drawn from opts.Seed on, Workers at a time, each
// through run, until one breaks (then shrinks the one of lowest seed
// among those that broke), opts.Runs or opts.Budget is reached, or ctx
// ends. A small plan's other schedules are runs of their own, made one
// after the other by the worker that drew it (exhaust.go), unless
// opts.Knobs ask for PCT or walks alone; by default such searches take
// at most one run in searchShare.
func Loop(ctx context.Context, opts Options, lock Lock, run func(Plan) harness.Outcome) Found {
	start := time.Now()
	workers := max(opts.Workers, 1)
	var (
		mu       sync.Mutex
		f        Found
		started  int // runs begun
		searched int // of them, runs of a search
		next     int // the next plan
		broken   []brokenRun
		wanted   int // the runs that broke that end the search
	)
	// reserve takes a run, of a new plan or of the search of the plan
	// the worker has, and gives the plan's index and the run's number, in
	// the order the runs begin (from 1); false once the exploration is
	// over, or, for a search, once searches have had their share.
	reserve := func(plan bool) (int, int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if len(broken) >= wanted || ctx.Err() != nil || (opts.Runs > 0 && started >= opts.Runs) ||
			(opts.Budget > 0 && time.Since(start) >= opts.Budget) {
			return 0, 0, false
		}
		if !plan && opts.Knobs.Sched == "" && searched*searchShare >= started {
			return 0, 0, false
		}
		started++
		if plan {
			next++
		} else {
			searched++
		}
		return next - 1, started, true
	}
	// do runs p, the i-th plan, as run number seq, and gives the choice
	// points it met and whether it broke.
	do := func(i, seq int, p Plan) ([]point, bool) {
		t := &trail{}
		p.Sched.trail = t
		out := run(p)
		p.Sched.trail = nil
		mu.Lock()
		defer mu.Unlock()
		f.Runs++
		broke := false
		switch {
		case out.Err != nil:
			f.Errors++
			f.LastErr = out.Err
		case out.Verdict == judge.Breaks:
			f.Violations++
			broke = true
			broken = append(broken, brokenRun{i, seq, p, out, t.went()})
		}
		f.Elapsed = time.Since(start)
		if opts.Progress != nil {
			opts.Progress(f.Progress)
		}
		return t.get(), broke
	}
	enumerates := opts.Knobs.Sched == "" || opts.Knobs.Sched == "exhaustive"
	// search runs plans, Workers at a time, until want runs broke, or the
	// bounds are reached.
	search := func(want int) {
		mu.Lock()
		wanted = want
		mu.Unlock()
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for {
					i, seq, ok := reserve(true)
					if !ok {
						return
					}
					p := Draw(opts.Seed+int64(i), lock, opts.Knobs)
					first, broke := do(i, seq, p)
					if broke || !enumerates || schedulesOf(first) > smallSchedules {
						continue
					}
					_, complete := enumerate(p, first, func(q Plan) ([]point, bool) {
						_, seq, ok := reserve(false)
						if !ok {
							return nil, false
						}
						met, broke := do(i, seq, q)
						return met, !broke
					})
					mu.Lock()
					f.Enumerated++
					if complete {
						f.Complete++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	search(1)
	if len(broken) == 0 {
		f.Elapsed = time.Since(start)
		return f
	}
	byPlan := func(a, b brokenRun) int {
		return cmp.Or(a.i-b.i, a.plan.Sched.Index-b.plan.Sched.Index)
	}
	first := slices.MinFunc(broken, byPlan)
	f.Broken, f.Plan, f.First = true, first.plan, first.seq
	if opts.Knobs.NoShrink {
		f.Shrunk, f.Outcome = first.plan, first.out
		f.Elapsed = time.Since(start)
		return f
	}
	// The plan shrinking begins from: the first violation's, unless it
	// breaks again in fewer than Keep of Tries runs (its break needed a
	// margin of a few milliseconds); then the exploration goes on, within
	// its bounds, to moreFinds more violations, and the plan that breaks
	// most often is shrunk.
	sctx, cancel := context.WithTimeout(ctx, ShrinkFor)
	defer cancel()
	st := f.startOf(sctx, first, run)
	f.FirstBroke = st.kept.Broke
	tried := map[int]bool{first.seq: true}
	for n := 0; st.kept.Broke < Keep && n < moreFinds && sctx.Err() == nil; n++ {
		untried := slices.DeleteFunc(slices.Clone(broken), func(b brokenRun) bool { return tried[b.seq] })
		if len(untried) == 0 {
			search(len(broken) + 1)
			untried = slices.DeleteFunc(slices.Clone(broken), func(b brokenRun) bool { return tried[b.seq] })
			if len(untried) == 0 {
				break // the exploration's bounds
			}
		}
		b := slices.MinFunc(untried, byPlan)
		tried[b.seq] = true
		if s := f.startOf(sctx, b, run); s.kept.Broke > st.kept.Broke {
			st = s
		}
	}
	f.Finds = len(tried)
	if st.b.seq != first.seq {
		f.From, f.FromRun = st.b.plan, st.b.seq
	}
	f.shrink(ctx, sctx, opts, st, run)
	f.Elapsed = time.Since(start)
	return f
}

// ShrinkFor bounds the shrinking of a violation.
const ShrinkFor = 2 * time.Minute

// brokenRun is a run whose history showed a violation.
type brokenRun struct {
	i     int
	seq   int // the run's number, in the order the runs began
	plan  Plan
	out   harness.Outcome
	order []int // the client whose command went at each step
}

// replayedPlans bounds the plans kept by the shrinking that are replayed:
// the smallest, then, while none broke in every replay, the ones kept
// before it.
const replayedPlans = 3

// moreFinds bounds the violations after the first whose plans are tried
// when the first's breaks again in fewer than Keep of Tries runs.
const moreFinds = 3

// start is a run that broke, with the plan shrinking would begin from:
// its plan as drawn or in the order of its own commands (replay.go),
// whichever broke more often in Tries runs, and how often.
type start struct {
	b    brokenRun
	kept Kept
}

// same says whether o shows the violation of b.
func (b brokenRun) same(o harness.Outcome) bool {
	return o.Err == nil && o.Verdict == judge.Breaks && o.Message.ID == b.out.Message.ID
}

// startOf runs b's plan, as drawn and in its recorded order, Tries times
// each, and gives the one that broke more often.
func (f *Found) startOf(ctx context.Context, b brokenRun, run func(Plan) harness.Outcome) start {
	starts := []Plan{b.plan}
	if len(b.order) > 0 {
		q := b.plan.clone()
		q.Sched = Schedule{Kind: Ordered, Order: b.order}
		starts = []Plan{q, b.plan}
	}
	k, runs := tryStarts(starts, func(p Plan) (harness.Outcome, bool) {
		if ctx.Err() != nil {
			return harness.Outcome{}, false
		}
		o := run(p)
		return o, b.same(o)
	})
	f.ShrinkRuns += runs
	return start{b, k}
}

// shrink shrinks the plan st begins from (sctx bounds it), then replays
// the result:
// the smallest plan kept, or, when it did not break in every replay, the
// most reliable of it and the plans kept before it (replayedPlans at
// most), the smaller on a tie. The plan reported is the plan replayed.
func (f *Found) shrink(ctx, sctx context.Context, opts Options, st start, run func(Plan) harness.Outcome) {
	out, same := st.b.out, st.b.same
	chain, runs := ShrinkFrom(st.kept, func(p Plan) (harness.Outcome, bool) {
		if sctx.Err() != nil {
			return harness.Outcome{}, false
		}
		o := run(p)
		return o, same(o)
	})
	f.ShrinkRuns += runs
	f.Replays = opts.Replays
	// replay runs p opts.Replays times at once, as the shrinking's tries
	// are: under the same load, which a timing depends on.
	replay := func(p Plan) (int, harness.Outcome) {
		var mu sync.Mutex
		n, last := 0, harness.Outcome{}
		var wg sync.WaitGroup
		for range opts.Replays {
			wg.Go(func() {
				if ctx.Err() != nil {
					return
				}
				if o := run(p); same(o) {
					mu.Lock()
					n, last = n+1, o
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return n, last
	}
	best := -1
	for i, tried := len(chain)-1, 0; i >= 0 && tried < replayedPlans; i-- {
		k := chain[i]
		if best >= 0 && k.Broke*opts.Replays <= best*Tries {
			continue // it broke no more often in the shrinking than the best replayed
		}
		tried++
		n, o := replay(k.Plan)
		if n <= best {
			continue
		}
		best, f.Shrunk, f.Reproduced = n, k.Plan, n
		switch {
		case n > 0:
			f.Outcome = o // the history of a replay of the plan reported
		case k.Outcome.Verdict == judge.Breaks:
			f.Outcome = k.Outcome // of a run of it in the shrinking
		default:
			f.Outcome = out
		}
		if n == opts.Replays {
			break
		}
	}
}
