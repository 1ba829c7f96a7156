// Command lockcheck runs the conformance suite of package locktest on every
// strategy of package catalog, on a real Redis, and prints the verdict
// matrix of each kind of lock: the mutexes, the read-write locks, the
// semaphores, each under a title that names its kind; in each, one column
// per strategy, one row per property of the kind, each cell holds, breaks
// or n/a, marked with "!" when it is not the verdict the catalog declares.
// One summary under the matrices counts them all and lists the
// mismatches; one exit status says whether every kind's verdicts are the
// declared ones.
//
// Usage:
//
//	lockcheck [flags]
//	lockcheck -update [-strategy NAMES] [-property NAMES]
//	lockcheck -cleanup [-redis TARGET]
//	lockcheck -judge FILE [-lang en|zh]
//	lockcheck -exec COMMAND [-name NAME] [flags]
//
// The flags are:
//
//	-format NAME
//		how to print the matrix: text by default, markdown, json, html
//		(one self-contained page, every break drawn: see HTML below), or
//		another of package report's formats (report.Formats), which
//		lockcheck -help lists.
//	-width N
//		the most columns the text matrix may take: a wider one is printed
//		in parts, one under the other, each with the property column and
//		as many strategies as fit; 0 for no limit. By default, COLUMNS
//		when set, else the width of the terminal standard output is, else
//		100 (a pipe or a file).
//	-strategy NAMES, -property NAMES
//		check only these strategies or properties (comma-separated), of
//		any kind: a kind is checked when the lists name some of its
//		columns and properties, or none. A name of no kind is refused
//		with the names there are, grouped by kind.
//	-trace
//		also print the counterexample of every break as a Mermaid
//		sequence diagram.
//	-lang en|zh
//		the language of the output: English by default; zh prints the
//		headers, the summaries, the suite's reasons and the diagrams'
//		texts in Chinese (see below).
//	-runs N
//		run the matrix N times and report every verdict that was not the
//		same each time.
//	-columns N
//		check N columns at once, each one's properties one after the
//		other (1 by default). A big matrix ends sooner; a busy machine
//		disturbs more checks the more run at once, and each disturbed
//		check is run again.
//	-redis TARGET
//		use the Redis at TARGET instead of finding one: host:port, or a
//		URL redis://[[user]:password@]host:port[/db], or rediss:// for
//		TLS, which -tls-ca, -tls-cert, -tls-key and -tls-server-name
//		(or LOCKLAB_REDIS_CA, _CERT, _KEY, _SERVER_NAME) configure.
//	-timeout D
//		the most one property may take (30s by default; with
//		-granularity, the suite's own bound, which grows with the scale).
//	-granularity STEP
//		run every column that declares no time scale of its own at a
//		granularity of STEP (1s for a lock that counts TTLs in whole
//		seconds, as an -exec program can also announce on its ready
//		line): every TTL the suite asks for is a whole multiple of STEP,
//		and the report's header says which columns ran so and why. By
//		default each lock runs at the step it announces, else 1ms.
//	-update
//		write the verdicts found into the declared grid of each kind
//		checked, catalog/verdicts.txt (and catalog/verdicts-<kind>.txt)
//		from the working directory (the repository's root), instead of
//		printing the matrix, and say which cells changed: a change of
//		verdict is then a diff of that file. A strategy or property the
//		grid has no column or row for yet gets one, in its place, with "-"
//		in the cells that did not run. A check without a verdict writes
//		nothing. Without -update, such a strategy or property is refused
//		in one line that says what to run, with exit status 1.
//	-cleanup
//		remove what earlier runs left behind (see below), and nothing else.
//	-kind mutex|read-write|semaphore
//		check only the locks of this kind: the mutexes, on the
//		properties of a mutex (locktest.AllProperties) against
//		catalog.GridFile; the catalog's read-write locks or its
//		semaphores, on the properties of their kind
//		(locktest.KindProperties), against the kind's own grid
//		(catalog.KindGridFile). Without -kind, every kind, each against
//		its grid, which -update writes; an -exec program is a mutex
//		unless -kind says otherwise.
//	-judge FILE
//		judge again, without Redis, the results of a run saved with
//		-format json: each break's history goes to the judge that gave
//		its verdict (locktest.Judge), and a line says whether it gives
//		the same verdict and reason. Holds and n/a keep no history and
//		are listed as recorded. Exit status 0 when every history gives
//		back its verdict and reason, 1 when one does not.
//	-exec COMMAND, -name NAME
//		check a lock written in any language: COMMAND, run with sh -c once
//		per simulated client, serves it over the line protocol of package
//		locktest/process (docs/exec.md). Its column, named NAME or the
//		command, replaces the catalog's; no verdict is declared for it, so
//		only a check that reached no verdict is marked.
//
// Without -redis, lockcheck finds a Redis the way package redistest does:
// REDIS_ADDR or REDIS_URL, else a Docker container of LOCKLAB_REDIS_IMAGE:
// LOCKLAB_REDIS_TAG (by default locklab/redis:local where the engine has
// it, else redis:7), else a redis-server process from
// PATH; LOCKLAB_REDIS=external|docker|process forces one of them. A server
// it started is stopped when it exits. Each run makes its keys under
// "lockcheck:<xid>:" (the locks) and "{lockcheck:<xid>:" (luatoken's
// fencing counters, "{" + key + "}:fence"), and deletes them when done.
//
// Before the run, lockcheck reads the server's INFO. A replica or a
// Sentinel takes no writes: lockcheck says so once, naming the primary,
// and exits 2 without a check (-cleanup too). On a Redis Cluster node the
// run's keys are all under one hash tag, "{lockcheck:<xid>}:", drawn anew
// until its slot is one the node serves, so that a Cluster's node can be
// checked with -redis; a node of a Cluster that is down, or a primary that
// serves no slot, is refused as a replica is.
//
// While it runs, lockcheck writes one line per property per strategy to
// standard error: the verdict, whether it is the declared one, and how long
// the property took.
//
// A server that evicts keys when its memory is full (maxmemory with an
// allkeys-* or volatile-* policy, read with CONFIG GET or from INFO memory)
// can drop any lock's key before its TTL. lockcheck says so on standard
// error before the run and after it, and a check during which the server
// evicted a key, every time it was run, gets no verdict (error).
//
// # JSON
//
// With -format json the output is one object, whose fields are kept stable
// (docs/lockcheck.md describes each):
//
//	{
//	  "version": 2,                       // of this shape (report.JSONVersion)
//	  "redis_version": "7.0.15",
//	  "when": "2026-11-22T10:00:00Z",     // start of the run, RFC 3339, UTC
//	  "runs": 3,                          // only with -runs above 1
//	  "results": [
//	    {
//	      "strategy": "setnxpx",
//	      "kind": "semaphore",            // or read-write; none for a mutex
//	      "property": "double-release",
//	      "verdict": "breaks",            // holds, breaks, n/a, or error
//	      "expected": "breaks",           // the verdict the catalog declares
//	      "match": true,                  // verdict == expected
//	      "reason": "A's second release freed B's lock: ...",
//	      "message": {"id": "...", "args": [ ... ]}, // the reason as data
//	      "error": "...",                 // only with verdict "error"
//	      "elapsed_ms": 0.52,
//	      "timeline": [ ... ],            // the counterexample of a break
//	      "mermaid": "sequenceDiagram..." // only with -trace, for a break
//	    }
//	  ],
//	  "changed": [                        // only with -runs, when a verdict changed
//	    {"strategy": "...", "property": "...", "verdicts": ["holds", "breaks"]}
//	  ]
//	}
//
// With -lang zh, only "reason" and "mermaid" are in Chinese; the field
// names, the verdicts, the errors and the timelines stay as they are.
//
// The results come kind by kind (mutex, read-write, semaphore), strategy
// by strategy in the catalog's order, properties in the suite's order. A
// result is what a locktest.Result marshals to, plus "strategy", "kind",
// "expected", "match" and "mermaid". A result without "kind" is a
// mutex's, as every result was before there were other kinds: a saved
// run of either time is read alike (-judge). A timeline is a
// list of history.Event as it marshals: {"at_ns", "client", "kind",
// "node", "command", "reply", "error", "msg"}, where kind is command,
// clock, acquired, not-acquired, released, refreshed, enter, leave,
// overlap, crash, pause or note; "command" and "reply" are lists of typed
// values (history.Arg: the key, a time, a token...), and "msg" is what
// the event says, as an identifier of the catalogs and typed arguments.
// A result with a timeline also has "key", "start_unix_ms" (t0) and
// "tokens" (each client's tokens).
//
// # Diagrams
//
// With -trace every break is drawn as a Mermaid sequence diagram: the
// clients A, B, C... and Redis are the participants, each command an arrow
// to Redis and its reply a dashed arrow back; clock readings, crashes, the
// critical section and the scenario's notes are notes; a waiter's failed
// attempts are drawn once, in a loop labelled with how many times they ran.
// Markdown and JSON escape the characters Mermaid would misread (# ; " <
// >); text prints them as they are.
//
// # HTML
//
// With -format html the output is one self-contained page (its style
// sheet and drawings inline, nothing loaded, no script needed), titled
// with the kind it checked, or how many: a header with the server, the
// date, the time scale and what ran; the matrix, in a section per kind
// when there are several, each cell a symbol and its verdict, a mismatch
// marked "!" with the declared verdict; then every break with its
// reason, a link to its strategy's page under docs/ (docs/kinds.md for a
// read-write lock or a semaphore; relative, when the working directory
// has it) and its counterexample drawn as an SVG sequence diagram,
// linked to and from its cell. -lang zh writes it in Chinese. make report
// writes the page of every kind's matrix to locklab-report.html.
//
// # Languages
//
// The suite writes its reasons and notes in English. With -lang zh,
// lockcheck prints them in Chinese, with the headers and summaries of the
// output and the texts of the diagrams: identifiers, commands, keys,
// property names, the verdicts (holds, breaks, n/a) and the errors that
// strategies return stay as they are. The progress lines on standard
// error stay in English. Every message has a template in both languages:
// a test of the catalogs fails on one that lacks either.
//
// # Docs
//
// The generated blocks of README.md and docs/ are written from a run of
// the whole matrix by the command lockdocs (make docs), on the same
// runner (package matrixrun).
//
// # Signals and cleanup
//
// SIGINT, SIGTERM and SIGHUP stop a run: the check under way gets no
// verdict (the checks done keep their progress lines), lockcheck says on
// standard error that it was interrupted and by which signal, shuts the
// run's connections, removes the run's keys on fresh connections (a few
// tries, 5 seconds at most, saying how many it removed or which it could
// not), stops a server it started, and exits with 128 plus the signal's
// number. A second signal during that ends it at once.
//
// lockcheck -cleanup removes every key matching "lockcheck:*" and
// "{lockcheck:*" from the server given by -redis, or else the one named by
// REDIS_ADDR or REDIS_URL, and prints how many it removed: what runs
// killed outright (SIGKILL) left behind. It must not run while another
// lockcheck uses that server, whose keys it would remove too.
//
// # Exit status
//
// 0 when every verdict is the declared one (for -cleanup, when every key is
// removed); 1 when one is not, when the suite could not reach a verdict,
// when a verdict changed between runs, or when -cleanup could not remove
// every key; 2 for bad flags, when no Redis can be had (the message says
// how to get one), when the server cannot take the run (a replica, a
// Sentinel, a Cluster node that serves no key), or when the server
// stopped answering or restarted during the run (checked between checks
// by its run_id); 128+n when signal n stopped it: 130 for SIGINT, 143 for
// SIGTERM, 129 for SIGHUP.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/matrixrun"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
)

// Exit statuses.
const (
	exitOK       = matrixrun.ExitOK
	exitMismatch = matrixrun.ExitMismatch
	exitUsage    = matrixrun.ExitUsage
)

func main() {
	e := env{stdout: os.Stdout, stderr: os.Stderr, start: redistest.Start, width: columns(os.Stdout)}
	ctx, stop := e.program().Signals()
	code := lockcheck(ctx, os.Args[1:], e)
	stop()
	os.Exit(code)
}

// strategies lists the strategies to check; tests replace it.
var strategies = catalog.Strategies

// env is what lockcheck runs with; tests replace its parts.
type env struct {
	stdout, stderr io.Writer
	// start finds a Redis when -redis is not given; lockcheck closes it.
	start func(ctx context.Context) (*redistest.Server, error)
	// width is what the text matrix is cut to without -width (see
	// columns); 0 is no limit.
	width int
	// root is the repository's root, where -update finds the grid: the
	// working directory when "".
	root string
}

// program is lockcheck as package matrixrun runs it.
func (e env) program() matrixrun.Program {
	return matrixrun.Program{Name: "lockcheck", Stdout: e.stdout, Stderr: e.stderr, Start: e.start}
}

// options are the parsed flags.
type options struct {
	format report.Format
	lang   report.Lang
	// parts are the matrices to check: one per kind of lock, or the one
	// of -kind.
	parts     []matrixrun.Part
	trace     bool
	width     int // -width; -1 when not given
	runs      int
	redisAddr string
	tls       redistest.TLSFiles
	timeout   time.Duration
	// granularity is -granularity: the time scale of every column that
	// does not declare its own; 0 when not given.
	granularity time.Duration
	columns     int // -columns: the columns checked at once
	update      bool
	cleanup     bool
	judge       string // -judge: a saved run to judge again
	// undeclared: the -exec column, for which no verdict is declared.
	undeclared bool
	explore    *matrixrun.Exploration // -explore: its seed and bounds; nil when not given
}

// usageError is a bad command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// lockcheck is the command; it returns the exit status. When ctx ends
// (main cancels it on a signal), the run stops: the check under way gets
// no verdict, the run's keys are removed, a Redis lockcheck started is
// stopped, and the status is 128 plus the signal's number.
func lockcheck(ctx context.Context, args []string, e env) int {
	opts, err := parseFlags(args, e.stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "lockcheck: %v\n", err)
		return exitUsage
	}
	if opts.judge != "" {
		return e.program().Judge(opts.judge, opts.lang)
	}
	p := e.program()
	if opts.cleanup {
		return p.Cleanup(ctx, opts.redisAddr, opts.tls)
	}
	if opts.explore != nil {
		wr := report.Writer{Format: opts.format, Lang: opts.lang}
		return p.Explore(ctx, explore(opts), wr)
	}
	m := matrixrun.Matrix{Target: opts.redisAddr, TLS: opts.tls, Parts: opts.parts,
		Runs: opts.runs, Timeout: opts.timeout, Undeclared: opts.undeclared, Update: opts.update, Granularity: opts.granularity, Columns: opts.columns}
	return p.Run(ctx, m, func(rep *report.Report) int {
		if opts.update {
			// Each kind's grid, from its results.
			code := exitOK
			for _, part := range opts.parts {
				code = max(code, p.UpdateKindGrid(rep.Of(part.Kind), cmp.Or(e.root, "."), part.Kind))
			}
			return code
		}
		wr := report.Writer{Format: opts.format, Trace: opts.trace, Lang: opts.lang, Hint: !opts.undeclared, Width: e.width}
		if !opts.undeclared {
			// A read-write lock or a semaphore has no page of its own:
			// docs/kinds.md explains each, design by design.
			wr.Pages = matrixrun.Pages(cmp.Or(e.root, "."), opts.lang, "kinds")
		}
		if opts.width >= 0 {
			wr.Width = opts.width
		}
		return p.Print(rep, wr)
	})
}

// parseFlags parses and checks the command line.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("lockcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output `format`: "+report.FormatList())
	strategyList := fs.String("strategy", "", "check only these `strategies` (comma-separated; all by default)")
	properties := fs.String("property", "", "check only these `properties` (comma-separated; all by default)")
	trace := fs.Bool("trace", false, "print every break's counterexample as a Mermaid sequence diagram")
	lang := fs.String("lang", "en", "the `language` of the output: en or zh")
	runs := fs.Int("runs", 1, "run the matrix `N` times and report verdicts that changed")
	columns := fs.Int("columns", 1, "check `N` columns at once, each one's properties one after the other")
	width := fs.Int("width", -1, "cut the text matrix to `N` columns, in parts of whole strategy columns; 0 for no limit (default: $COLUMNS, else the terminal's width, else 100)")
	addr := fs.String("redis", "", "use the Redis at `TARGET` (host:port, or a redis:// or rediss:// URL with [user:password@] and /db) instead of finding one")
	tlsFiles := matrixrun.TLSFlags(fs)
	timeout := fs.Duration("timeout", 30*time.Second, "the most one property may take")
	granularity := fs.Duration("granularity", 0, "run the columns at a time scale of `STEP` (1s for a lock that counts TTLs in whole seconds): every TTL asked is a whole multiple of it (default: what each lock announces, else 1ms)")
	update := fs.Bool("update", false, "write the verdicts found into the declared grid, "+catalog.GridFile+" (run from the repository's root)")
	cleanup := fs.Bool("cleanup", false, "remove the keys earlier runs left on the server (-redis, or REDIS_ADDR/REDIS_URL), and nothing else")
	kind := fs.String("kind", "", "check only the locks of this `kind`: mutex, read-write or semaphore (default: every kind, one matrix each, each with its properties and grid)")
	judgeFile := fs.String("judge", "", "judge again, without Redis, the results of a run saved by -format json in `FILE`, and say whether each history gives its recorded verdict and reason")
	execF := addExecFlags(fs)
	exploreF := matrixrun.AddExploreFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: lockcheck [flags]\n       lockcheck -update [-strategy NAMES] [-property NAMES]\n       lockcheck -cleanup [-redis host:port]\n       lockcheck -judge FILE [-lang en|zh]\n       lockcheck -exec COMMAND [-name NAME] [flags]\n       lockcheck -explore [-strategy NAMES] [-seed N] [-runs N] [-for DURATION]\n\n"+
			"lockcheck runs locklab's conformance suite on every strategy against a real Redis\n"+
			"and prints the verdict matrix of each kind of lock (mutexes, read-write locks and\n"+
			"semaphores). Exit status: 0 when every verdict is the declared one,\n"+
			"1 when one is not, 2 for bad flags or no Redis (a replica, or one lost during the run),\n"+
			"128+n when stopped by signal n "+
			"(130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	opts := options{trace: *trace, width: *width, runs: *runs, redisAddr: *addr, tls: *tlsFiles, timeout: *timeout, granularity: *granularity, columns: *columns, update: *update, cleanup: *cleanup, judge: *judgeFile}
	if opts.judge != "" {
		var others []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "judge" && f.Name != "lang" {
				others = append(others, "-"+f.Name)
			}
		})
		if len(others) > 0 || fs.NArg() > 0 {
			return opts, usageError{fmt.Sprintf("-judge takes no other flag than -lang, nor arguments (got %s)", strings.Join(append(others, fs.Args()...), " "))}
		}
		var err error
		if opts.lang, err = report.ParseLang(*lang); err != nil || *lang == "" {
			return opts, usageError{fmt.Sprintf("-lang %q: want %s", *lang, langList())}
		}
		return opts, nil
	}
	if opts.cleanup {
		var others []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "cleanup" && f.Name != "redis" && !strings.HasPrefix(f.Name, "tls-") {
				others = append(others, "-"+f.Name)
			}
		})
		if len(others) > 0 || fs.NArg() > 0 {
			return opts, usageError{fmt.Sprintf("-cleanup takes no other flag than -redis and -tls-*, nor arguments (got %s)", strings.Join(append(others, fs.Args()...), " "))}
		}
		return opts, nil
	}
	var err error
	if opts.format, err = report.ParseFormat(*format); err != nil {
		return opts, usageError{"-format: " + err.Error()}
	}
	if opts.lang, err = report.ParseLang(*lang); err != nil || *lang == "" {
		return opts, usageError{fmt.Sprintf("-lang %q: want %s", *lang, langList())}
	}
	if opts.width < -1 {
		return opts, usageError{fmt.Sprintf("-width %d: want 0 (no limit) or more", opts.width)}
	}
	if opts.runs < 1 {
		return opts, usageError{fmt.Sprintf("-runs %d: want 1 or more", opts.runs)}
	}
	if opts.timeout <= 0 {
		return opts, usageError{fmt.Sprintf("-timeout %v: want a positive duration", opts.timeout)}
	}
	if opts.columns < 1 {
		return opts, usageError{fmt.Sprintf("-columns %d: want 1 or more", opts.columns)}
	}
	if g := opts.granularity; g != 0 && (g < time.Millisecond || g%time.Millisecond != 0) {
		return opts, usageError{fmt.Sprintf("-granularity %v: want a whole number of milliseconds, 1ms or more", g)}
	}
	timeoutSet := false
	fs.Visit(func(f *flag.Flag) { timeoutSet = timeoutSet || f.Name == "timeout" })
	if !timeoutSet && opts.granularity > 0 {
		opts.timeout = 0 // the suite's own bound, which grows with the scale
	}
	kinds := allKinds
	one := strategy.Kind(*kind)
	kindSet := false
	fs.Visit(func(f *flag.Flag) { kindSet = kindSet || f.Name == "kind" })
	switch {
	case slices.Contains(allKinds, one):
		kinds = []strategy.Kind{one}
	case kindSet:
		return opts, usageError{fmt.Sprintf("-kind %q: want mutex, read-write or semaphore", *kind)}
	case *execF.command != "" || exploreF.On():
		// A program is a lock of one kind, and -explore explores
		// mutexes: a mutex unless -kind says otherwise.
		kinds = []strategy.Kind{strategy.Mutex}
	}
	if opts.parts, err = selectParts(kinds, *strategyList, *properties); err != nil {
		return opts, err
	}
	if err := execF.apply(&opts, *strategyList); err != nil {
		return opts, err
	}
	if err := applyExplore(exploreF, &opts, fs); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, usageError{fmt.Sprintf("unexpected arguments %q (the docs are written by lockdocs: make docs)", fs.Args())}
	}
	if opts.update && opts.granularity > 0 {
		return opts, usageError{"-update writes the verdicts declared at each column's own time scale: drop -granularity"}
	}
	if opts.update && opts.undeclared {
		return opts, usageError{"-update writes the declared grid of the catalog's strategies: drop -exec"}
	}
	return opts, nil
}

// langList names the languages of -lang: "en or zh".
func langList() string {
	var names []string
	for _, l := range report.Langs() {
		names = append(names, string(l))
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
