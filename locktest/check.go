package locktest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/props"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// Check runs one property. A watchdog bounds it: a strategy that hangs,
// panics or fails unexpectedly yields a Result with Err set.
func Check(ctx context.Context, cfg Config, p Property) Result {
	start := time.Now()
	res := check(ctx, cfg, p)
	res.Property = p
	res.Elapsed = time.Since(start)
	if res.Err != nil {
		res.Verdict = NoVerdict
		if f, ok := res.Err.(*sim.Failed); ok {
			res.Message = f.M // why, in any language
		}
	}
	return res
}

func check(ctx context.Context, cfg Config, p Property) Result {
	row, ok := props.Lookup(string(p))
	scenario := row.Scenario
	if !ok {
		return Result{Err: fmt.Errorf("locktest: unknown property %q", p)}
	}
	if err := cfg.validate(); err != nil {
		return Result{Err: err}
	}
	cfg.perms, cfg.noLogin = &sim.Permissions{}, &atomic.Bool{}
	pool := cfg.pool()
	defer pool.Close()
	if err := checkPool(ctx, pool); err != nil {
		return Result{Err: err}
	}
	if cfg.Timing.Granularity <= 0 {
		// A factory that fails here fails in the check too, which says so.
		if g, err := Announced(ctx, cfg); err == nil {
			cfg.Timing.Granularity = g
		}
	}
	tm := cfg.Timing.Resolved()
	var res Result
	for n := 1; n <= checkRuns; n++ {
		suffix := ""
		if n > 1 {
			suffix = fmt.Sprintf("/rerun-%d", n) // fresh keys: the last run may have left its own
		}
		m := watch(ctx, pool, tm.Short)
		res = resultOf(checkOnce(ctx, cfg, pool, m, p, scenario, suffix))
		res.Granularity = tm.Granularity
		why := m.stop()
		// A NOAUTH explains a check that got no verdict; one that reached
		// a verdict keeps it.
		if cfg.noLogin.Load() && res.Err != nil && !errors.Is(res.Err, ErrInterrupted) {
			return Result{Err: sim.Failure(mFailNoLogin.New(), ErrNoLogin), Timeline: res.Timeline, Key: res.Key, Start: res.Start, Tokens: res.Tokens}
		}
		if err := cfg.perms.Err(); err != nil && !errors.Is(res.Err, ErrInterrupted) {
			return Result{Err: err, Timeline: res.Timeline, Key: res.Key, Start: res.Start, Tokens: res.Tokens}
		}
		if why == nil || errors.Is(res.Err, ErrInterrupted) {
			return res
		}
		res.Timeline = append(res.Timeline, harness.NoteEvent(mDisturbed.New(n, sim.MessageOf(why))))
		res = Result{Err: sim.Failure(mInconclusive.New(n, sim.MessageOf(why)), ErrInconclusive, why),
			Timeline: res.Timeline, Key: res.Key, Start: res.Start, Tokens: res.Tokens, Granularity: tm.Granularity}
	}
	return res
}

// checkOnce runs a property once, on keys under cfg.Key, p and suffix.
func checkOnce(ctx context.Context, cfg Config, pool *redis.Pool, m *monitor, p Property, sc props.Scenario, suffix string) harness.Outcome {
	var r *harness.Run
	var runsMu sync.Mutex
	var runs []*harness.Run
	// Whatever way the check ends, every client it made is stopped, so
	// that nothing it started (a renewal) outlives it.
	defer func() {
		runsMu.Lock()
		defer runsMu.Unlock()
		for _, r := range runs {
			r.Shutdown()
		}
	}()
	res, err := watchdog(ctx, cfg.timeout(), func(ctx context.Context) harness.Outcome {
		return sc(func(name string) *harness.Run {
			r = harness.NewRun(ctx, cfg.setting(), pool, cfg.Key+":"+string(p)+suffix+name)
			r.Lost, r.Disturb = m.lost, m.Disturbed
			runsMu.Lock()
			runs = append(runs, r)
			runsMu.Unlock()
			return r
		})
	})
	if ctx.Err() != nil {
		// Cut short from outside: whatever the run found is not a verdict.
		return harness.Outcome{Err: fmt.Errorf("%w: %w", ErrInterrupted, context.Cause(ctx))}
	}
	switch e := err.(type) {
	case nil:
	case *panicked:
		panic(e.v) // not the strategy's: guard turns its panics into aborts
	case *hung:
		return harness.Outcome{Err: sim.Failure(mFailHung.New(e.after, e.err.Error()), e.err)}
	default: // an abort
		res = harness.Outcome{Err: err}
		if r != nil {
			res = r.Counterexample(res)
		}
	}
	runsMu.Lock()
	defer runsMu.Unlock()
	return harness.DeclareKeys(res, runs)
}

// ErrNoLogin: a client sent commands before logging in with Client.Password.
var ErrNoLogin = errors.New("locktest: a client sent commands to its proxy without logging in")

// ErrInterrupted is returned when the check's context ends first.
var ErrInterrupted = errors.New("locktest: interrupted before a verdict")

// validate says what is wrong with cfg, if anything.
func (cfg Config) validate() error {
	switch {
	case cfg.New == nil:
		return errors.New("locktest: nil Factory")
	case cfg.Addr == "" && cfg.Dial == nil:
		return errors.New("locktest: no Addr: the suite needs a Redis server to run on")
	case cfg.Key == "":
		return errors.New("locktest: empty Key")
	case cfg.Masters < 0 || cfg.Masters > harness.MaxMasters:
		return fmt.Errorf("locktest: Masters = %d: want 0 to %d", cfg.Masters, harness.MaxMasters)
	case cfg.DB < 0:
		return fmt.Errorf("locktest: DB = %d: want 0 or more", cfg.DB)
	case cfg.Username != "" && cfg.Password == "":
		return fmt.Errorf("locktest: Username %q without a Password", cfg.Username)
	case cfg.RestartDelay < 0:
		return fmt.Errorf("locktest: RestartDelay = %v: want 0 or more", cfg.RestartDelay)
	}
	return nil
}
