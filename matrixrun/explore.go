package matrixrun

import (
	"context"
	"fmt"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
)

// Exploration is what -explore runs: locktest.Explore on each entry.
type Exploration struct {
	Target  string
	TLS     redistest.TLSFiles
	Entries []catalog.Entry
	Seed    int64
	Runs    int
	Budget  time.Duration // for each entry
	Timeout time.Duration
}

// Explore explores each entry of x on the Redis of x.Target (or one it
// finds or starts), printing its progress, and writes what it found with
// wr: for each entry a violation, shrunk, with its history and the plan
// that reproduces it, or the runs that found none. It returns ExitOK when
// no violation was found, ExitMismatch when one was, ExitUsage without a
// Redis.
func (p Program) Explore(ctx context.Context, x Exploration, wr report.Writer) int {
	srv, closeServer, err := p.connect(ctx, x.Target, x.TLS)
	if err != nil {
		p.log("%v", err)
		return ExitUsage
	}
	p.log("%v", srv)
	prefix, note, err := preflight(ctx, srv, p.keyPrefix())
	if err != nil {
		return p.refused(ctx, srv, err, closeServer)
	}
	if note != "" {
		p.log("%s", note)
	}
	rep := &report.Report{RedisVersion: srv.Version, Program: p.Name, When: time.Now(), Runs: 1, Sources: map[string]string{}}
	code := ExitOK
	for _, e := range x.Entries {
		if ctx.Err() != nil {
			break
		}
		rep.Sources[e.Name] = e.Sources
		cfg := e.Config(locktest.Config{Addr: srv.Addr, Key: prefix + ":explore:" + keyName(e.Name), Timeout: x.Timeout,
			TLS: srv.Login.TLS, Username: srv.Login.Username, Password: srv.Login.Password, DB: srv.Login.DB})
		start, last := time.Now(), time.Now()
		progress := func(runs, violations int) {
			if time.Since(last) >= 2*time.Second {
				last = time.Now()
				rate := float64(runs) / time.Since(start).Seconds()
				p.log("%s", msg.Render(msg.Lang(wr.Lang), mExploreProgress.New(e.Name, runs, violations, fmt.Sprintf("%.1f", rate))))
			}
		}
		res, err := locktest.Explore(ctx, cfg, locktest.ExploreOptions{Seed: x.Seed, Runs: x.Runs, Budget: x.Budget, Progress: progress})
		if err != nil {
			p.log("%s: %v", e.Name, err)
		}
		switch {
		case res.Verdict == locktest.Breaks:
			code = ExitMismatch
		case res.Verdict == locktest.NoVerdict && code == ExitOK:
			code = ExitMismatch
		}
		rep.Results = append(rep.Results, report.Result{Strategy: e.Name, Timing: cfg.Timing.Resolved(), Result: res})
	}
	p.cleanupRun(srv, []string{prefix}, ctx.Err() != nil)
	if err := closeServer(); err != nil {
		p.log("stopping Redis: %v", err)
	}
	if ctx.Err() != nil {
		p.log("%s", interruptCause(ctx))
		return interruptStatus(ctx)
	}
	if wr.Format != report.Text {
		if err := wr.Write(p.Stdout, rep); err != nil {
			p.log("%v", err)
			return ExitMismatch
		}
		return code
	}
	lang := msg.Lang(wr.Lang)
	for _, r := range rep.Results {
		fmt.Fprintf(p.Stdout, "%s: %s: %s\n", r.Strategy, r.Verdict, msg.Render(lang, r.Message))
		if r.Err != nil && r.Message.IsZero() {
			fmt.Fprintf(p.Stdout, "  %v\n", r.Err)
		}
		for _, n := range r.Notes {
			fmt.Fprintln(p.Stdout, msg.Render(lang, n))
		}
		if len(r.Timeline) > 0 {
			fmt.Fprintln(p.Stdout, history.Format(r.Timeline))
		}
	}
	return code
}

var mExploreProgress = msg.Define("lockcheck.explore-progress", msg.K(msg.Text, msg.Count, msg.Count, msg.Text),
	"exploring {0}: {1} {1|run|runs}, {2} {2|violation|violations} ({3} runs/s)")
