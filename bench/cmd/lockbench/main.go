// Command lockbench measures locklab's lock strategies against the
// two-round-trip floor and against redsync and redislock, luatoken also
// through its go-redis and rueidis adapters, in one run against one Redis
// server (and strategy/redlock against redsync on five private masters),
// and prints tables with each figure's spread over rounds and the targets
// met (✓) or missed (✗) beside theirs. It writes the figures as JSON and
// draws them as an SVG bar chart.
//
// Usage, from the bench directory:
//
//	go run ./cmd/lockbench [flags]
//
// The server comes from redistest.Start: REDIS_ADDR or REDIS_URL, else a
// Docker container, else a private redis-server process
// (LOCKLAB_REDIS=process forces the last). Progress goes to stderr.
//
// Flags:
//
//	-json path    write the report as JSON ("" for none; default ../docs/performance.json)
//	-svg path     draw the chart ("" for none; default ../docs/performance.svg)
//	-md path      write the tables as Markdown ("" for none)
//	-doc path     rewrite the blocks of the Markdown file at path that the run has figures for
//	              (<!-- lockbench:libraries -->: the libraries figure; <!-- lockbench:kinds -->: the
//	              read-write locks and semaphores; each with the run's conditions)
//	-from path    measure nothing: print, draw and write the report of an earlier run, read from JSON
//	-quick        a short run, to try things out (figures are rough)
//	-only a,b     measure only these subjects
//	-figures a,b  measure only these figures (uncontended, allocations, parallel, sameclient, libraries, kinds, redlock, contended, suite)
//	-iterations n uncontended cycles per subject (default 20000)
//	-parallel d   time per subject with 16 goroutines (default 2s)
//	-contended d  time per subject and waiting mode on one key (default 4s)
//	-waiters a,b  counts of goroutines on one key (default 8,32,128)
//	-sweep a,b    the peers' retry delays to sweep at each count ("" for none; default 1ms,2ms,5ms,10ms,20ms,50ms,100ms)
//	-sweep-time d time per swept delay (default 1s)
//	-rounds n     rounds of the contended figure and the sweep (default 4)
//	-goroutines n goroutines on their own keys (default 16)
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/locklab/locklab/bench"
	"github.com/locklab/locklab/redistest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "lockbench:", err)
		os.Exit(1)
	}
}

func run() error {
	def := bench.DefaultConfig()
	var (
		jsonPath   = flag.String("json", "../docs/performance.json", "write the report as JSON to `path` (\"\" for none)")
		svgPath    = flag.String("svg", "../docs/performance.svg", "draw the chart as SVG to `path` (\"\" for none)")
		mdPath     = flag.String("md", "", "write the tables as Markdown to `path` (\"\" for none)")
		docPath    = flag.String("doc", "", "rewrite the blocks of the Markdown file at `path` that the run has figures for (<!-- lockbench:libraries -->, <!-- lockbench:kinds -->)")
		from       = flag.String("from", "", "measure nothing: report the run saved as JSON at `path`")
		quick      = flag.Bool("quick", false, "a short run, to try things out; the figures are rough")
		only       = flag.String("only", "", "comma-separated `names` of the subjects to measure (default all)")
		figures    = flag.String("figures", "", "comma-separated `figures` to measure: "+strings.Join(bench.Figures, ", ")+" (default all)")
		iterations = flag.Int("iterations", def.Iterations, "uncontended acquire + release cycles per subject")
		parallel   = flag.Duration("parallel", def.ParallelTime, "time per subject with 16 goroutines on 16 keys")
		contended  = flag.Duration("contended", def.ContendedTime, "time per subject and waiting mode with 8 goroutines on one key")
		waiters    = flag.String("waiters", joinInts(def.Waiters), "comma-separated `counts` of goroutines on one key in the contended figure")
		sweep      = flag.String("sweep", joinDurations(def.SweepDelays), "comma-separated retry `delays` to sweep for the peers at each count of waiters (\"\" for none)")
		sweepTime  = flag.Duration("sweep-time", def.SweepTime, "time per swept retry delay")
		rounds     = flag.Int("rounds", def.Rounds, "rounds of the contended figure and of the sweep")
		goroutines = flag.Int("goroutines", def.Goroutines, "goroutines, each on its own key, in the parallel figure")
	)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: lockbench [flags]\n\nSubjects: %s\n\nFlags:\n",
			strings.Join(bench.Names(bench.Subjects()), ", "))
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		return fmt.Errorf("unexpected arguments: %q", flag.Args())
	}

	cfg := def
	cfg.Iterations, cfg.ParallelTime, cfg.ContendedTime = *iterations, *parallel, *contended
	cfg.Goroutines, cfg.Rounds, cfg.SweepTime = *goroutines, *rounds, *sweepTime
	var err error
	if cfg.Waiters, err = parseInts(*waiters); err != nil {
		return fmt.Errorf("-waiters: %w", err)
	}
	if cfg.SweepDelays, err = parseDurations(*sweep); err != nil {
		return fmt.Errorf("-sweep: %w", err)
	}
	if *quick {
		cfg.Iterations, cfg.Warmup, cfg.Rounds, cfg.AllocCycles = 2000, 200, 3, 500
		cfg.ParallelTime, cfg.ContendedTime, cfg.Warm = 400*time.Millisecond, 600*time.Millisecond, 100*time.Millisecond
		cfg.SameClientRounds, cfg.SameClientTime, cfg.SweepTime = 3, 100*time.Millisecond, 300*time.Millisecond
		cfg.KindsRounds, cfg.KindsCycles, cfg.KindsTime = 3, 100, 200*time.Millisecond
	}
	if *only != "" {
		cfg.Only = strings.Split(*only, ",")
	}
	if *figures != "" {
		cfg.Figures = strings.Split(*figures, ",")
	}
	cfg.Progress = os.Stderr

	var rep *bench.Report
	if *from != "" {
		b, err := os.ReadFile(*from)
		if err != nil {
			return err
		}
		rep = new(bench.Report)
		if err := json.Unmarshal(b, rep); err != nil {
			return fmt.Errorf("%s: %w", *from, err)
		}
		// Checked again, by this version's rules.
		rep.Targets = bench.Targets(rep)
	} else {
		if rep, err = measure(cfg); err != nil {
			return err
		}
	}
	fmt.Println()
	rep.WriteText(os.Stdout)

	var errs []error
	if *jsonPath != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = writeFile(*jsonPath, append(b, '\n'))
		}
		errs = append(errs, err)
	}
	if *svgPath != "" {
		var sb strings.Builder
		err := rep.WriteSVG(&sb)
		if err == nil {
			err = writeFile(*svgPath, []byte(sb.String()))
		}
		errs = append(errs, err)
	}
	if *mdPath != "" {
		var sb strings.Builder
		rep.WriteMarkdown(&sb)
		errs = append(errs, writeFile(*mdPath, []byte(sb.String())))
	}
	if *docPath != "" {
		b, err := os.ReadFile(*docPath)
		if err == nil {
			b, err = rep.ReplaceBlocks(b)
		}
		if err == nil {
			err = writeFile(*docPath, b)
		} else {
			err = fmt.Errorf("-doc %s: %w", *docPath, err)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// measure runs the benchmarks on a server found by redistest.
func measure(cfg bench.Config) (*bench.Report, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	fmt.Fprintln(os.Stderr, "lockbench: finding a Redis server…")
	startCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	srv, err := redistest.Start(startCtx)
	cancel()
	if err != nil {
		return nil, err
	}
	defer srv.Close()

	r, err := bench.NewRunner(srv, cfg)
	if err != nil {
		return nil, err
	}
	return r.Run(ctx)
}

func parseInts(s string) ([]int, error) {
	var ns []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, err
		}
		ns = append(ns, n)
	}
	return ns, nil
}

func parseDurations(s string) ([]time.Duration, error) {
	var ds []time.Duration
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func joinDurations(ds []time.Duration) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return strings.Join(s, ",")
}

func writeFile(path string, b []byte) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "lockbench: wrote", path)
	return nil
}
