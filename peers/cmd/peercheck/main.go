// Command peercheck runs locklab's conformance suite on the peers of
// package peers (redsync, redislock, the plain go-redis lock) and on
// luatoken, on a real Redis, and prints their columns side by side, in the
// formats of lockcheck: one column per lock, one row per property, each
// cell holds, breaks or n/a, marked with "!" when it is not the verdict
// declared in package peers (or, for luatoken, in package catalog).
//
// Usage:
//
//	peercheck [-format text|markdown|json] [-trace] [-strategy NAMES] [-property NAMES] [-redis ADDR] [-timeout D]
//	peercheck -docs [-root DIR] [file ...]
//
// The flags are lockcheck's (see its documentation); -strategy names
// columns: redsync, redislock, goredislock, luatoken. Without -redis, peercheck finds a Redis as lockcheck
// does: REDIS_ADDR or REDIS_URL, else a Docker container, else a
// redis-server from PATH (package redistest). Its keys are made under
// "peercheck:<xid>:" and deleted at the end; progress goes to standard
// error, one line per check.
//
// peercheck -docs rewrites the generated blocks of docs/peers.md (or the
// files given) from one run, as lockcheck -docs does for the other pages,
// with markers named peercheck instead of lockcheck:
//
//	<!-- peercheck:matrix --> ... <!-- /peercheck:matrix -->
//	<!-- peercheck:verdicts strategy=redsync --> ... <!-- /peercheck:verdicts -->
//	<!-- peercheck:trace strategy=redsync property=holder-overrun --> ... <!-- /peercheck:trace -->
//	<!-- peercheck:source file=peers/goredislock/goredislock.go func=Lock.Release --> ... <!-- /peercheck:source -->
//
// File paths in source blocks are relative to the directory given by
// -root, the working directory by default (make peers-docs gives the
// repository's root). Nothing is written unless every verdict is the
// declared one.
//
// Exit status: 0 when every verdict is the declared one; 1 when one is
// not, or a check reached no verdict; 2 for bad flags or when no Redis can
// be had; 130 when interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/peers"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/rs/xid"
)

// Exit statuses.
const (
	exitOK        = 0
	exitMismatch  = 1
	exitUsage     = 2
	exitInterrupt = 130
)

// keyPrefix starts every key a run makes.
const keyPrefix = "peercheck:"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := peercheck(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the parsed flags.
type options struct {
	format     string
	trace      bool
	columns    []catalog.Entry
	properties []locktest.Property
	addr       string
	timeout    time.Duration
	docs       bool
	root       string
	paths      []string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("peercheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.format, "format", "text", "output `format`: text, markdown or json")
	fs.BoolVar(&o.trace, "trace", false, "print every break's counterexample as a Mermaid sequence diagram")
	columns := fs.String("strategy", "", "check only these `columns` (comma-separated; all by default)")
	properties := fs.String("property", "", "check only these `properties` (comma-separated; all by default)")
	fs.StringVar(&o.addr, "redis", "", "use the Redis at `ADDR` (host:port) instead of finding one")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "the most one property may take")
	fs.BoolVar(&o.docs, "docs", false, "regenerate the peercheck blocks of the Markdown files given (default docs/peers.md)")
	fs.StringVar(&o.root, "root", ".", "with -docs, the `directory` that the file paths of source blocks are relative to")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: peercheck [flags]\n       peercheck -docs [file ...]\n\n"+
			"peercheck runs locklab's conformance suite on redsync, redislock and a plain go-redis lock,\n"+
			"and on luatoken, against a real Redis, and prints their columns side by side.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch o.format {
	case "text", "markdown", "json":
	default:
		return o, fmt.Errorf("-format %q: want text, markdown or json", o.format)
	}
	if o.timeout <= 0 {
		return o, fmt.Errorf("-timeout %v: want a positive duration", o.timeout)
	}
	var err error
	if o.columns, err = catalog.Select(peers.Columns(), *columns); err != nil {
		return o, fmt.Errorf("-strategy: %w", err)
	}
	if o.properties, err = catalog.SelectProperties(*properties); err != nil {
		return o, fmt.Errorf("-property: %w", err)
	}
	o.paths = fs.Args()
	switch {
	case o.docs && (*columns != "" || *properties != ""):
		return o, errors.New("-docs needs every column and property: drop -strategy and -property")
	case o.docs && len(o.paths) == 0:
		o.paths = []string{"docs/peers.md"}
	case !o.docs && len(o.paths) > 0:
		return o, fmt.Errorf("unexpected arguments %q (file arguments go with -docs)", o.paths)
	}
	return o, nil
}

// peercheck is the command; it returns the exit status.
func peercheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "peercheck: %v\n", err)
		return exitUsage
	}
	srv, err := connect(ctx, o.addr)
	if err != nil {
		fmt.Fprintf(stderr, "peercheck: %v\n", err)
		return exitUsage
	}
	defer srv.Close()
	fmt.Fprintf(stderr, "peercheck: %v\n", srv)

	r := &runner{addr: srv.Addr, timeout: o.timeout, progress: stderr}
	defer r.cleanup(srv, stderr)
	rep := r.run(ctx, srv.Version, o.columns, o.properties)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "peercheck: interrupted")
		return exitInterrupt
	}
	if o.docs {
		return writeDocs(rep, o.paths, o.root, stderr)
	}
	ropts := report.Options{Trace: o.trace}
	switch o.format {
	case "markdown":
		err = report.Markdown(stdout, rep, ropts)
	case "json":
		err = report.JSON(stdout, rep, ropts)
	default:
		err = report.Text(stdout, rep, ropts)
	}
	if err != nil {
		fmt.Fprintf(stderr, "peercheck: %v\n", err)
		return exitMismatch
	}
	if !rep.OK() {
		return exitMismatch
	}
	return exitOK
}

// connect returns the server at addr, or the one redistest finds.
func connect(ctx context.Context, addr string) (*redistest.Server, error) {
	if addr == "" {
		return redistest.Start(ctx)
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("-redis %q is not host:port: %w", addr, err)
	}
	return redistest.Connect(ctx, addr, redistest.TLSFilesFromEnv())
}

// runner checks properties on columns, one at a time.
type runner struct {
	addr     string
	timeout  time.Duration
	progress io.Writer
	// prefixes start the keys of the run: one for the checks, and one for
	// each check a test runs again.
	prefixes []string
}

// newPrefix returns a new prefix for the run's keys.
func (r *runner) newPrefix() string {
	p := keyPrefix + xid.New().String()
	r.prefixes = append(r.prefixes, p)
	return p
}

// check runs property p on e, on keys under prefix.
func (r *runner) check(ctx context.Context, e catalog.Entry, p locktest.Property, prefix string) report.Result {
	cfg := locktest.Config{Addr: r.addr, New: e.New, Key: prefix + ":" + e.Name, Timeout: r.timeout}
	res := report.Result{Strategy: e.Name, Expected: e.Expect.Verdict(p), Result: locktest.Check(ctx, cfg, p)}
	status := "as declared"
	if !res.Matches() {
		status = fmt.Sprintf("DECLARED %s!", res.Expected)
	}
	line := fmt.Sprintf("%-11s  %-19s  %-6s  %-16s %8.1fms", e.Name, p, res.Outcome(), status, float64(res.Elapsed.Microseconds())/1000)
	if res.Err != nil {
		line += "  " + res.Err.Error()
	}
	fmt.Fprintln(r.progress, line)
	return res
}

// run checks props on columns, until ctx ends.
func (r *runner) run(ctx context.Context, version string, columns []catalog.Entry, props []locktest.Property) *report.Report {
	start := time.Now()
	rep := &report.Report{RedisVersion: version, When: start, Runs: 1}
	prefix := r.newPrefix()
	for _, e := range columns {
		r.warmUp(ctx, e, prefix)
		for _, p := range props {
			if ctx.Err() != nil {
				return rep
			}
			rep.Results = append(rep.Results, r.check(ctx, e, p, prefix))
		}
	}
	fmt.Fprintf(r.progress, "peercheck: %d checks in %.2fs\n", len(rep.Results), time.Since(start).Seconds())
	return rep
}

// warmUp takes and releases a lock of e once, as locktest.Run does first
// (locktest.Detect), and reports what e offers. A lock loads its scripts
// into Redis on first use (EVALSHA, NOSCRIPT, EVAL); loaded beforehand,
// they take no turn in the interleavings exclusion counts, whatever ran
// on the server before.
func (r *runner) warmUp(ctx context.Context, e catalog.Entry, prefix string) {
	cfg := locktest.Config{Addr: r.addr, New: e.New, Key: prefix + ":" + e.Name, Timeout: r.timeout}
	caps, err := locktest.Detect(ctx, cfg)
	if err != nil {
		fmt.Fprintf(r.progress, "%-11s  capabilities: %v\n", e.Name, err)
		return
	}
	fmt.Fprintf(r.progress, "%-11s  capabilities: %s\n", e.Name, caps)
}

// cleanup deletes the run's keys: the locks, and luatoken's fencing
// counters beside them ("{" + key + "}:fence").
func (r *runner) cleanup(srv *redistest.Server, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := srv.Dial(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "peercheck: removing the run's keys: %v\n", err)
		return
	}
	defer c.Close()
	var patterns []string
	for _, p := range r.prefixes {
		patterns = append(patterns, p+":*", "{"+p+":*")
	}
	for _, pattern := range patterns {
		for cursor := "0"; ; {
			reply, err := redis.Values(redis.DoContext(c, ctx, "SCAN", cursor, "MATCH", pattern, "COUNT", 1000))
			var keys []string
			if err == nil {
				_, err = redis.Scan(reply, &cursor, &keys)
			}
			if err == nil && len(keys) > 0 {
				_, err = redis.DoContext(c, ctx, "DEL", redis.Args{}.AddFlat(keys)...)
			}
			if err != nil {
				fmt.Fprintf(stderr, "peercheck: removing the run's keys (%s): %v\n", pattern, err)
				return
			}
			if cursor == "0" {
				break
			}
		}
	}
}
