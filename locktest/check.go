package locktest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/locklab/locklab/strategy"
)

// Factory builds a strategy instance for one simulated client. The suite
// calls it once per client, with a pool whose connections it watches and
// steers and with the client's clock; a strategy that reads the time must
// read it from clock.
type Factory func(pool strategy.Pool, clock strategy.Clock) (strategy.Strategy, error)

// Config says where and how to check.
type Config struct {
	// Pool reaches the real Redis the scenarios run on.
	Pool strategy.Pool
	// New builds the strategy under test.
	New Factory
	// Key is the lock key; the suite derives one key per scenario from it
	// and may leave them behind. It must be unique to this check.
	Key string
	// Timeout bounds each property (the watchdog); 0 means 30s.
	Timeout time.Duration
}

// Timing of the scenarios. Sleeps serve only real TTL expiry; everything
// else is ordered by gates and events.
const (
	shortTTL  = 60 * time.Millisecond // a lease meant to run out
	longTTL   = 5 * time.Second       // a lease that must not run out during the scenario
	slack     = 500 * time.Millisecond
	pollEvery = 5 * time.Millisecond
)

// Check runs one property and returns its verdict. It never hangs: a
// strategy that does not return within the watchdog's timeout, panics, or
// fails in a way the scenario did not expect yields a Result with Err set.
func Check(ctx context.Context, cfg Config, p Property) Result {
	start := time.Now()
	res := check(ctx, cfg, p)
	res.Property = p
	res.Elapsed = time.Since(start)
	return res
}

func check(ctx context.Context, cfg Config, p Property) Result {
	scenario, ok := scenarios[p]
	if !ok {
		return Result{Err: fmt.Errorf("unknown property %q", p)}
	}
	switch {
	case cfg.New == nil:
		return Result{Err: errors.New("nil Factory")}
	case cfg.Pool == nil:
		return Result{Err: errors.New("nil Pool")}
	case cfg.Key == "":
		return Result{Err: errors.New("empty Key")}
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	done := make(chan Result, 1)
	var r *run
	var runsMu sync.Mutex
	var runs []*run
	// Whatever way the check ends, every client it made is stopped, so
	// that nothing it started (a renewal) outlives it.
	defer func() {
		runsMu.Lock()
		defer runsMu.Unlock()
		for _, r := range runs {
			r.shutdown()
		}
	}()
	newRun := func(suffix string) *run {
		now := time.Now()
		r = &run{
			ctx:     ctx,
			pool:    cfg.Pool,
			factory: cfg.New,
			key:     cfg.Key + ":" + string(p) + suffix,
			t0:      now.UnixMilli(),
			rec:     &recorder{start: now},
		}
		r.det = &detector{rec: r.rec}
		r.note("t0 = %d (Unix ms); K = %s", r.t0, r.key)
		runsMu.Lock()
		runs = append(runs, r)
		runsMu.Unlock()
		return r
	}
	go func() {
		defer func() {
			if v := recover(); v != nil {
				a, ok := v.(abort)
				if !ok {
					panic(v)
				}
				res := Result{Err: a.err}
				if r != nil {
					res.Timeline = r.rec.snapshot()
				}
				done <- res
			}
		}()
		done <- scenario(newRun)
	}()
	select {
	case res := <-done:
		return res
	case <-ctx.Done():
		return Result{Err: fmt.Errorf("watchdog: no verdict after %v: the strategy hung (%w)", timeout, ctx.Err())}
	}
}

// scenario runs a property; it calls newRun for each fresh run it needs
// (a fresh key and timeline) and reports the verdict of the last one.
type scenario func(newRun func(suffix string) *run) Result

var scenarios = map[Property]scenario{}

// holds, breaks and notApplicable build results from a run.
func (r *run) holds(reason string, args ...any) Result {
	r.shutdown()
	return Result{Verdict: Holds, Reason: fmt.Sprintf(reason, args...)}
}

func (r *run) breaks(reason string, args ...any) Result {
	r.shutdown()
	return Result{Verdict: Breaks, Reason: fmt.Sprintf(reason, args...), Timeline: r.rec.snapshot()}
}

func (r *run) notApplicable(reason string, args ...any) Result {
	r.shutdown()
	return Result{Verdict: NotApplicable, Reason: fmt.Sprintf(reason, args...)}
}
