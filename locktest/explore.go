package locktest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/explore"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/props"
	"github.com/locklab/locklab/locktest/internal/servererr"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

const Explored Property = "explore" // the property of Explore's Result

// ExploreOptions bound Explore: Runs and Budget, whichever ends first.
type ExploreOptions struct {
	Seed     int64 // run i draws its plan from Seed+i; 0: a random seed, which the Result names
	Runs     int
	Budget   time.Duration
	Progress func(runs, violations int) // called after each run; may be nil
}

// exploreWorkers is how many runs an exploration makes at once: they spend
// most of their time waiting on TTLs. On two cores, 16 made 40 to 46 runs
// a second of luatoken, rwlua and semlua (4: 13), with no false alarm and
// no run without a verdict in 2,000 each; 32 made no more under load, and
// runs began to end without a verdict.
const exploreWorkers = 16

// Explore runs plans of clients, faults and schedules drawn from seeds,
// judges each run's history, and shrinks the first violation to a small
// counterexample (a Result that breaks); else the Result holds.
func Explore(ctx context.Context, cfg Config, opts ExploreOptions) (Result, error) {
	start := time.Now()
	if err := cfg.validate(); err != nil {
		return Result{Property: Explored, Verdict: NoVerdict, Err: err}, err
	}
	if cfg.Masters > 1 {
		err := fmt.Errorf("locktest: Explore: Masters = %d: the explorer runs on one server; a lock over several masters is checked by the topology properties", cfg.Masters)
		return Result{Property: Explored, Verdict: NoVerdict, Err: err}, err
	}
	if opts.Runs <= 0 && opts.Budget <= 0 {
		err := errors.New("locktest: Explore: neither Runs nor Budget bounds the exploration")
		return Result{Property: Explored, Verdict: NoVerdict, Err: err}, err
	}
	if opts.Seed == 0 {
		opts.Seed = rand.Int64N(1<<31) + 1
	}
	cfg.perms, cfg.noLogin = &sim.Permissions{}, &atomic.Bool{}
	pool := cfg.pool()
	defer pool.Close()
	fail := func(err error) (Result, error) {
		return Result{Property: Explored, Verdict: NoVerdict, Err: err, Elapsed: time.Since(start)}, err
	}
	if err := checkPool(ctx, pool); err != nil {
		return fail(err)
	}
	if cfg.Timing.Granularity <= 0 {
		if g, err := Announced(ctx, cfg); err == nil {
			cfg.Timing.Granularity = g
		}
	}
	lock, err := exploredLock(ctx, cfg, pool)
	if err != nil {
		return fail(err)
	}
	var n atomic.Int64
	run := func(p explore.Plan) harness.Outcome {
		m := watch(ctx, pool, lock.Short)
		defer m.stop()
		sc := func(newRun func(string) *harness.Run) harness.Outcome {
			return explore.Execute(newRun(fmt.Sprintf("/%d", p.Seed)), p, lock)
		}
		return checkOnce(ctx, cfg, pool, m, Explored, sc, fmt.Sprintf("/run-%d", n.Add(1)))
	}
	o := explore.Options{Seed: opts.Seed, Runs: opts.Runs, Budget: opts.Budget, Replays: 5, Workers: exploreWorkers,
		Knobs: exploreKnobs()}
	if o.Knobs.Workers > 0 {
		o.Workers = o.Knobs.Workers
	}
	if opts.Progress != nil {
		o.Progress = func(p explore.Progress) { opts.Progress(p.Runs, p.Violations) }
	}
	f := explore.Loop(ctx, o, lock, run)
	res := Result{Property: Explored, Elapsed: time.Since(start), Granularity: cfg.Timing.Resolved().Granularity}
	switch {
	case f.Broken:
		res = resultOf(f.Outcome)
		res.Property, res.Elapsed, res.Granularity = Explored, time.Since(start), cfg.Timing.Resolved().Granularity
		c, ops, faults := f.Shrunk.Size()
		res.Message = mExploreBreaks.New(f.Outcome.Message, f.Plan.Seed, f.First, c, ops, faults, f.Reproduced, f.Replays)
		if f.Replays == 0 {
			res.Message = mExploreUnshrunk.New(f.Outcome.Message, f.Plan.Seed, f.First, c, ops, faults)
		}
		if f.FromRun > 0 {
			res.Notes = append(res.Notes, mExploreLater.New(f.First, f.FirstBroke, explore.Tries, f.Finds-1, f.FromRun, f.From.Seed))
		}
		res.Notes = append(res.Notes, mExplorePlan.New(f.Shrunk.String()))
	case f.Runs == 0 && ctx.Err() != nil:
		return fail(fmt.Errorf("%w: %w", ErrInterrupted, context.Cause(ctx)))
	case f.Errors == f.Runs && f.LastErr != nil:
		return fail(f.LastErr)
	default:
		res.Verdict = Holds
		res.Message = mExploreHolds.New(f.Runs, opts.Seed, f.Errors)
	}
	return res, nil
}

// exploreKnobs reads LOCKLAB_EXPLORE, which the explorer's benchmark sets
// to measure what each part buys: "sched=pct", "sched=walk",
// "sched=exhaustive", "swarm=off", "workers=N", and "shrink=off" (a quick
// exploration in CI), comma-separated.
func exploreKnobs() explore.Knobs {
	var k explore.Knobs
	for _, kv := range strings.Split(os.Getenv("LOCKLAB_EXPLORE"), ",") {
		switch kv {
		case "sched=pct":
			k.Sched = "pct"
		case "sched=walk":
			k.Sched = "walk"
		case "sched=exhaustive":
			k.Sched = "exhaustive"
		case "swarm=off":
			k.NoSwarm = true
		case "shrink=off":
			k.NoShrink = true
		default:
			if n, err := strconv.Atoi(strings.TrimPrefix(kv, "workers=")); err == nil && strings.HasPrefix(kv, "workers=") && n > 0 {
				k.Workers = n
			}
		}
	}
	return k
}

// probeTries bounds the attempts exploredLock makes to take a lock.
const probeTries = 3

// exploredLock is what the plans need to know of cfg's lock, from a
// client's strategy.
func exploredLock(ctx context.Context, cfg Config, pool *redis.Pool) (explore.Lock, error) {
	tm := cfg.Timing.Resolved()
	lock := explore.Lock{Short: tm.Short, Long: tm.Long, Poll: tm.Poll, Slack: tm.Slack, Kind: strategy.Mutex}
	_, err := watchdog(ctx, cfg.timeout(), func(ctx context.Context) struct{} {
		r := harness.NewRun(ctx, cfg.setting(), pool, cfg.Key+":explore:probe")
		defer r.Shutdown()
		p := r.NewClient("P", 0)
		s := p.S
		lock.Kind = strategy.KindOf(s)
		if c, ok := s.(strategy.Counting); ok {
			lock.Permits = c.Permits()
		}
		_, lock.Shared = s.(strategy.Shared)
		_, lock.Weight = s.(strategy.Weighted)
		if w, ok := s.(strategy.WriterFirst); ok {
			lock.WriterIntent = w.WriterIntent()
		} else if sh, ok := s.(strategy.Shared); ok && writersFirst(ctx, sh, cfg.Key+":explore:policy", tm) {
			// It keeps an intent it does not declare: the judge excuses
			// a reader's refusal for as long as writer-progress waits
			// for such an intent to end.
			lock.WriterIntent = props.MaxWriterIntent
		}
		// What a lock offers shows on a lock it gives: a probe that
		// fails (an error on a loaded machine) is tried again, on a key
		// of its own, twice. Taken for a lock without them, a lock that
		// renews its holds would have every renewal the judge cannot
		// see read as a lock that stays taken. A lock that refuses a
		// free key every time is explored as it is: that is its finding.
		for try := range probeTries {
			l, err := s.TryAcquire(ctx, fmt.Sprintf("%s:explore:probe:%d", cfg.Key, try), tm.Long)
			if err != nil || l == nil {
				time.Sleep(tm.Poll)
				continue
			}
			// A lease signal makes a holder's overrun a finding where
			// the work heeds it: the explorer's work leaves the moment
			// its lease is lost, so the judge counts overruns of a
			// leased lock (Lock.Leased). Its work checks no fencing
			// token, so a fenced lock's overrun is no finding here.
			caps := capabilitiesOf(s, l)
			lock.Refresh, lock.Renews, lock.Leased = caps.Refresh, caps.Lease, caps.Lease
			_ = l.Release(ctx)
			lock.Commands = probeCommands(ctx, p, fmt.Sprintf("%s:explore:probe:%d:warm", cfg.Key, try), tm.Long)
			break
		}
		return struct{}{}
	})
	return lock, err
}

// probeCommands lists the commands p sends to acquire key, free, to
// refresh that lock and to release it, on the second of two rounds, the
// first having loaded the scripts: the plans strike them with their
// faults. An operation that fails is not listed.
func probeCommands(ctx context.Context, p *harness.Client, key string, ttl time.Duration) map[explore.OpKind][]servererr.Command {
	probeRound(ctx, p, key+":1", ttl)
	return probeRound(ctx, p, key+":2", ttl)
}

// probeRound is one round of probeCommands.
func probeRound(ctx context.Context, p *harness.Client, key string, ttl time.Duration) map[explore.OpKind][]servererr.Command {
	out := map[explore.OpKind][]servererr.Command{}
	watch := func(k explore.OpKind, f func() error) {
		p.WatchCommands()
		err := f()
		if sent := p.Watched(); err == nil {
			for _, c := range sent {
				out[k] = append(out[k], servererr.FromArgs(c.Args))
			}
		}
	}
	var l strategy.Lock
	watch(explore.Acquire, func() (err error) {
		if l, err = p.S.TryAcquire(ctx, key, ttl); err == nil && l == nil {
			err = strategy.ErrNotAcquired
		}
		return err
	})
	if l == nil {
		return out
	}
	if rf, ok := l.(strategy.Refresher); ok {
		watch(explore.Refresh, func() error { return rf.Refresh(ctx, ttl) })
	}
	watch(explore.Release, func() error { return l.Release(ctx) })
	return out
}

// writersFirst says whether s, a read-write lock, refuses a new reader
// while a writer waits, as writer-progress finds its policy: R1 reads,
// W's attempt to write is refused, then R2 tries to read. Each try is on
// a key of its own; a try that cannot tell (an error, or W let in) is
// made again, up to probeTries, and a lock none tells of is taken to put
// readers first, as the suite takes one that declares nothing.
func writersFirst(ctx context.Context, s strategy.Shared, key string, tm Timing) bool {
	for try := range probeTries {
		k := fmt.Sprintf("%s:%d", key, try)
		var held []strategy.Lock
		take := func(l strategy.Lock, err error) error {
			if l != nil {
				held = append(held, l)
			}
			return err
		}
		r1 := take(s.TryAcquireShared(ctx, k, tm.Long))
		w := take(s.TryAcquire(ctx, k, tm.Long))
		r2 := take(s.TryAcquireShared(ctx, k, tm.Long))
		for _, l := range held {
			_ = l.Release(ctx)
		}
		switch {
		case r1 != nil || !errors.Is(w, strategy.ErrNotAcquired):
			// R1 not in, or W let in or failed: it tells nothing.
		case r2 == nil:
			return false
		case errors.Is(r2, strategy.ErrNotAcquired):
			return true
		}
		time.Sleep(tm.Poll)
	}
	return false
}

var (
	mExploreBreaks = msg.Define("explore.breaks", msg.K(msg.Sub, msg.Count, msg.Count, msg.Count, msg.Count, msg.Count, msg.Count, msg.Count),
		"{0} (seed {1}, found in {2} {2|run|runs}; shrunk to {3} {3|client|clients}, {4} {4|operation|operations}, {5} {5|fault|faults}; reproduced {6} of {7})")
	mExploreUnshrunk = msg.Define("explore.breaks-unshrunk", msg.K(msg.Sub, msg.Count, msg.Count, msg.Count, msg.Count, msg.Count),
		"{0} (seed {1}, found in {2} {2|run|runs}; not shrunk: {3} {3|client|clients}, {4} {4|operation|operations}, {5} {5|fault|faults})")
	mExploreHolds = msg.Define("explore.holds", msg.K(msg.Count, msg.Count, msg.Count),
		"{0} {0|run|runs} from seed {1}, no violation ({2} without a verdict)")
	mExplorePlan  = msg.Define("explore.shrunk-plan", msg.K(msg.Text), "the shrunk plan: {0}")
	mExploreLater = msg.Define("explore.later-find", msg.K(msg.Count, msg.Count, msg.Count, msg.Count, msg.Count, msg.Count),
		"the plan of run {0}, the first that broke, broke again in {1} of {2} runs, too few to shrink: the exploration went on to {3} more {3|violation|violations}, and the plan shrunk is run {4}'s (seed {5}), which broke most often")
)
