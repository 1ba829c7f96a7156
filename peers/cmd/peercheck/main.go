// Command peercheck runs locklab's conformance suite on the peers of
// package peers (redsync, redislock, the plain go-redis lock, go-zero,
// rueidislock) and on
// luatoken, on a real Redis, and prints their columns side by side, in the
// formats of lockcheck: one column per lock, one row per property, each
// cell holds, breaks or n/a, marked with "!" when it is not the verdict
// declared in package peers (or, for luatoken, in package catalog).
//
// Usage:
//
//	peercheck [-format NAME] [-trace] [-strategy NAMES] [-property NAMES] [-redis TARGET] [-timeout D]
//	peercheck -update [-root DIR] [-strategy NAMES] [-property NAMES]
//	peercheck -libraries [-root DIR] [flags]
//	peercheck -explore [-libraries] [-strategy NAMES] [-seed N] [-runs N] [-for D]
//	peercheck -cleanup [-redis TARGET]
//
// The flags are lockcheck's (see its documentation), and so is the run:
// package matrixrun finds or connects to the Redis (REDIS_ADDR or
// REDIS_URL, else a Docker container, else a redis-server from PATH; -redis
// takes host:port or a redis:// or rediss:// URL, with the -tls-* flags),
// refuses a replica, puts the keys of a Cluster node's run in a slot it
// serves, watches the server between checks, stops cleanly on SIGINT,
// SIGTERM or SIGHUP, and removes the run's keys, made under
// "peercheck:<xid>:"; each column runs with every field of its
// catalog.Entry.Config. -strategy names columns: redsync, redislock,
// goredislock, luatoken. Before its checks, each column takes and
// releases a lock once (locktest.Detect), so that scripts are loaded
// outside the interleavings, and says what it offers; progress goes to
// standard error, one line per check.
//
// The generated blocks of docs/peers.md are written from peercheck's run
// by lockdocs, the one generator of the docs, which reads its -format json
// (make peers-docs):
//
//	peercheck -format json > run.json
//	lockdocs -report run.json -marker peercheck docs/peers.md
//
// peercheck -libraries checks the columns of docs/libraries.md instead, on
// the one-Redis properties: the peers, redis-py's Lock and the PHP
// frameworks' locks (package recipes), whose programs run from the
// repository's root (-root, by default found above the working
// directory), and luatoken. A column whose packages are missing is left
// out, with one line naming them. make docs writes the library pages from
// its JSON:
//
//	peercheck -libraries -format json > run.json
//	lockdocs -report run.json -marker libraries docs/libraries.md docs/zh/libraries.md
//
// peercheck -explore explores generated runs of each column instead of
// checking the properties, as lockcheck -explore does (docs/explorer.md):
// with -libraries, the columns of the library pages. A column that shows
// a violation prints it, shrunk; the exit status is then 1.
//
// peercheck -update writes the verdicts found into the declared grid,
// catalog/verdicts.txt under -root, where the peers' columns are declared
// with the catalog's, and says which cells changed.
//
// peercheck -cleanup removes every key matching "peercheck:*" and
// "{peercheck:*" from the server that -redis (or REDIS_ADDR, REDIS_URL)
// names, as lockcheck -cleanup does for its own.
//
// Exit status: 0 when every verdict is the declared one; 1 when one is
// not, or a check reached no verdict; 2 for bad flags, when no Redis can
// be had, or when the server cannot take the run or was lost during it;
// 128+n when signal n stopped it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/matrixrun"
	"github.com/locklab/locklab/peers"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
)

// Exit statuses.
const (
	exitOK       = matrixrun.ExitOK
	exitMismatch = matrixrun.ExitMismatch
	exitUsage    = matrixrun.ExitUsage
)

func main() {
	ctx, stop := program(os.Stdout, os.Stderr).Signals()
	code := peercheck(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// program is peercheck as package matrixrun runs it.
func program(stdout, stderr io.Writer) matrixrun.Program {
	return matrixrun.Program{Name: "peercheck", Stdout: stdout, Stderr: stderr, Start: redistest.Start, Updater: "peercheck -update -root .."}
}

// options are the parsed flags.
type options struct {
	format     report.Format
	trace      bool
	columns    []catalog.Entry
	properties []locktest.Property
	addr       string
	tls        redistest.TLSFiles
	timeout    time.Duration
	update     bool
	cleanup    bool
	root       string
	// libraries: the columns of the library pages (-libraries).
	libraries bool
	// explore: -explore's seed and bounds; nil when not given.
	explore *matrixrun.Exploration
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("peercheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	format := fs.String("format", "text", "output `format`: "+report.FormatList())
	fs.BoolVar(&o.trace, "trace", false, "print every break's counterexample as a Mermaid sequence diagram")
	columns := fs.String("strategy", "", "check only these `columns` (comma-separated; all by default)")
	properties := fs.String("property", "", "check only these `properties` (comma-separated; all by default)")
	fs.StringVar(&o.addr, "redis", "", "use the Redis at `TARGET` (host:port, or a redis:// or rediss:// URL) instead of finding one")
	tlsFiles := matrixrun.TLSFlags(fs)
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "the most one property may take")
	fs.BoolVar(&o.update, "update", false, "write the verdicts found into the declared grid, "+catalog.GridFile+" under -root")
	fs.BoolVar(&o.cleanup, "cleanup", false, "remove the keys earlier runs left on the server (-redis, or REDIS_ADDR/REDIS_URL), and nothing else")
	fs.StringVar(&o.root, "root", ".", "with -update, the repository's root `directory`; with -libraries, also where the programs run from (default: found above the working directory)")
	exploreF := matrixrun.AddExploreFlags(fs)
	runs := fs.Int("runs", 0, "with -explore, at most `N` runs for each column")
	fs.BoolVar(&o.libraries, "libraries", false, "check the columns of docs/libraries.md on one Redis: the Go libraries, redis-py's Lock, Symfony's and Laravel's locks, and luatoken")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: peercheck [flags]\n       peercheck -update\n       peercheck -cleanup [-redis TARGET]\n\n"+
			"peercheck runs locklab's conformance suite on redsync, redislock, a plain go-redis lock, go-zero and rueidislock,\n"+
			"and on luatoken, against a real Redis, and prints their columns side by side.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.tls = *tlsFiles
	var err error
	if o.format, err = report.ParseFormat(*format); err != nil {
		return o, fmt.Errorf("-format: %w", err)
	}
	if o.timeout <= 0 {
		return o, fmt.Errorf("-timeout %v: want a positive duration", o.timeout)
	}
	all := peers.Columns()
	if o.libraries {
		rootSet := false
		fs.Visit(func(f *flag.Flag) { rootSet = rootSet || f.Name == "root" })
		if !rootSet {
			if o.root, err = repositoryRoot("."); err != nil {
				return o, fmt.Errorf("-libraries: %w", err)
			}
		}
		if all, err = libraryColumns(o.root, stderr); err != nil {
			return o, fmt.Errorf("-libraries: %w", err)
		}
	}
	if o.columns, err = catalog.Select(all, *columns); err != nil {
		return o, fmt.Errorf("-strategy: %w", err)
	}
	if o.properties, err = catalog.SelectProperties(*properties); err != nil {
		return o, fmt.Errorf("-property: %w", err)
	}
	if o.libraries && *properties == "" {
		// The library columns are declared on one Redis: the topology
		// rows are every single-Redis lock's (docs/peers.md).
		o.properties = locktest.Properties()
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q (the docs are written by lockdocs: make peers-docs)", fs.Args())
	}
	if o.explore, err = exploreF.Bounds(fs, []string{"update", "property", "trace"}, *runs); err != nil {
		return o, err
	}
	if o.explore == nil && *runs != 0 {
		return o, errors.New("-runs bounds -explore: give -explore too")
	}
	if o.explore != nil && *runs < 0 {
		return o, fmt.Errorf("-runs %d: want 1 or more", *runs)
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
	p := program(stdout, stderr)
	if o.cleanup {
		return p.Cleanup(ctx, o.addr, o.tls)
	}
	if o.explore != nil {
		x := *o.explore
		x.Target, x.TLS, x.Entries, x.Timeout = o.addr, o.tls, o.columns, o.timeout
		return p.Explore(ctx, x, report.Writer{Format: o.format})
	}
	m := matrixrun.Matrix{Target: o.addr, TLS: o.tls, Entries: o.columns, Properties: o.properties, Runs: 1, Timeout: o.timeout, WarmUp: true, Update: o.update}
	return p.Run(ctx, m, func(rep *report.Report) int {
		if o.update {
			return p.UpdateGrid(rep, o.root)
		}
		// The peers are explained on one page, luatoken on its own; the
		// links are relative to -root.
		return p.Print(rep, report.Writer{Format: o.format, Trace: o.trace, Pages: matrixrun.Pages(o.root, report.English, "peers")})
	})
}
