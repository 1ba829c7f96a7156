// Command lockcheck runs the conformance suite of package locktest on every
// strategy of package catalog, on a real Redis, and prints the verdict
// matrix: one column per strategy, one row per property, each cell holds,
// breaks or n/a, marked with "!" when it is not the verdict the catalog
// declares. The mismatches are listed under the table.
//
// Usage:
//
//	lockcheck [flags]
//	lockcheck -docs [file or directory ...]
//	lockcheck -cleanup [-redis TARGET]
//	lockcheck -exec COMMAND [-name NAME] [flags]
//
// The flags are:
//
//	-format text|markdown|json
//		how to print the matrix (text by default).
//	-width N
//		the most columns the text matrix may take: a wider one is printed
//		in parts, one under the other, each with the property column and
//		as many strategies as fit; 0 for no limit. By default, COLUMNS
//		when set, else the width of the terminal standard output is, else
//		100 (a pipe or a file).
//	-strategy NAMES, -property NAMES
//		check only these strategies or properties (comma-separated).
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
//	-redis TARGET
//		use the Redis at TARGET instead of finding one: host:port, or a
//		URL redis://[[user]:password@]host:port[/db], or rediss:// for
//		TLS, which -tls-ca, -tls-cert, -tls-key and -tls-server-name
//		(or LOCKLAB_REDIS_CA, _CERT, _KEY, _SERVER_NAME) configure.
//	-timeout D
//		the most one property may take (30s by default).
//	-docs
//		regenerate the generated blocks of Markdown files (see below).
//	-cleanup
//		remove what earlier runs left behind (see below), and nothing else.
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
//	  "redis_version": "7.0.15",
//	  "when": "2026-11-22T10:00:00Z",     // start of the run, RFC 3339, UTC
//	  "runs": 3,                          // only with -runs above 1
//	  "results": [
//	    {
//	      "strategy": "setnxpx",
//	      "property": "double-release",
//	      "verdict": "breaks",            // holds, breaks, n/a, or error
//	      "expected": "breaks",           // the verdict the catalog declares
//	      "match": true,                  // verdict == expected
//	      "reason": "A's second release freed B's lock: ...",
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
// The results come strategy by strategy in the catalog's order, properties
// in the suite's order. A timeline is a list of locktest.Event as it
// marshals: {"at_ns", "client", "kind", "command", "reply", "error",
// "text", "args", "reply_args", "text_args"}, where kind is command, clock,
// acquired, released, enter, leave, overlap, crash or note, and the last
// three are the values typed (locktest.Arg). In a timeline the lock key
// reads K, and times near the run's start read t0±Δms; a result with a
// timeline also has "key", "start_unix_ms" (t0) and "tokens" (each client's
// tokens).
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
// # Languages
//
// The suite writes its reasons and notes in English. With -lang zh,
// lockcheck prints them in Chinese, with the headers and summaries of the
// output and the texts of the diagrams: identifiers, commands, keys,
// property names, the verdicts (holds, breaks, n/a) and the errors that
// strategies return stay as they are. The progress lines on standard
// error stay in English. A sentence that has no Chinese yet is printed in
// English; a test runs the whole matrix and fails on any.
//
// # Docs
//
// lockcheck -docs rewrites the generated blocks of Markdown files (by
// default README.md and the files of docs/ and docs/zh/) from one run of
// the whole matrix; everything outside the blocks is left as it is. A block sits
// between two HTML comments:
//
//	<!-- lockcheck:matrix --> ... <!-- /lockcheck:matrix -->
//		the verdict matrix, with the Redis version and date of the run;
//	<!-- lockcheck:verdicts strategy=getset --> ... <!-- /lockcheck:verdicts -->
//		one strategy's verdicts, with the suite's reason for each;
//	<!-- lockcheck:trace strategy=getset property=clock-skew --> ... <!-- /lockcheck:trace -->
//		the counterexample of that break, as a Mermaid diagram;
//	<!-- lockcheck:source file=strategy/getset/getset.go func=takeover --> ... <!-- /lockcheck:source -->
//		a code block quoting a file, or one Go function or method
//		(func=Type.Method) of it, so that quoted code stays current.
//
// File paths are relative to the working directory, which for make docs is
// the repository's root. The blocks of a file in a directory named zh
// (docs/zh) are written in Chinese, as -lang zh writes them.
//
// Each break is drawn from its one run; the diagrams show nothing else
// that changes from run to run than times and retry counts. A block whose
// structure is unchanged (only times, retry counts, the Redis version or
// the date differ) is kept as it is. When a
// verdict is not the declared one, or a trace block names a property that
// does not break, nothing is written. make docs runs it; docs/lockcheck.md
// says more.
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
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
)

// Exit statuses.
const (
	exitOK       = 0
	exitMismatch = 1
	exitUsage    = 2
)

func main() {
	ctx, stop := onSignals(os.Stderr)
	code := lockcheck(ctx, os.Args[1:], env{stdout: os.Stdout, stderr: os.Stderr, start: redistest.Start, width: columns(os.Stdout)})
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
}

// options are the parsed flags.
type options struct {
	format     string
	lang       report.Lang
	strategies []catalog.Entry
	properties []locktest.Property
	trace      bool
	width      int // -width; -1 when not given
	runs       int
	redisAddr  string
	tls        redistest.TLSFiles
	timeout    time.Duration
	docs       bool
	paths      []string
	cleanup    bool
	// undeclared: the -exec column, for which no verdict is declared.
	undeclared bool
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
	if opts.cleanup {
		return cleanupCommand(ctx, opts.redisAddr, opts.tls, e)
	}
	srv, closeServer, err := connect(ctx, opts.redisAddr, opts.tls, e.start)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(e.stderr, "lockcheck: %s while getting a Redis: no check ran\n", interruptCause(ctx))
			return interruptStatus(ctx)
		}
		fmt.Fprintf(e.stderr, "lockcheck: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(e.stderr, "lockcheck: %v\n", srv)
	// Every run's keys start with a prefix of its own, removed at the end;
	// on a Cluster node, one whose slot the node serves.
	prefix, note, err := preflight(ctx, srv)
	if err != nil {
		return refused(ctx, srv, err, closeServer, e.stderr)
	}
	if note != "" {
		fmt.Fprintf(e.stderr, "lockcheck: %s\n", note)
	}

	// Each check dials its connections afresh, through the gate: a
	// connection the server cut (CLIENT KILL, a proxy's timeout) never
	// outlives the check that saw it cut.
	r := &session{srv: srv, gate: newGate(srv.Addr), prefixes: []string{prefix}}
	code := r.run(ctx, opts, e)

	interrupted := ctx.Err() != nil
	if interrupted {
		msg := interruptCause(ctx)
		if r.stopped != nil {
			msg += ": " + r.stopped.Error()
		} else {
			msg += " once the checks were done"
		}
		fmt.Fprintf(e.stderr, "lockcheck: %s\n", msg)
		// Whatever an unfinished check left running sends nothing more.
		if !r.gate.close(shutLimit) {
			fmt.Fprintf(e.stderr, "lockcheck: commands of the unfinished check still under way after %v; cleaning up regardless\n", shutLimit)
		}
	}
	cleanupRun(srv, r.prefixes, interrupted, e.stderr)
	r.gate.close(0)
	if err := closeServer(); err != nil {
		fmt.Fprintf(e.stderr, "lockcheck: stopping Redis: %v\n", err)
	} else if interrupted && srv.Kind != redistest.KindExternal {
		fmt.Fprintf(e.stderr, "lockcheck: stopped the Redis it started (%s)\n", srv.Kind)
	}
	if interrupted {
		return interruptStatus(ctx)
	}
	return code
}

// session is one run of the checks on a server.
type session struct {
	srv  *redistest.Server
	gate *gate
	// prefixes start the keys of the run: one, for the matrix.
	prefixes []string
	// stopped says how far the run got when ctx ended, if it ended during
	// the checks.
	stopped *interruption
}

// run checks and prints; it returns the exit status, which the caller
// replaces when ctx has ended.
func (s *session) run(ctx context.Context, opts options, e env) int {
	h, err := newHealth(ctx, s.srv)
	if err != nil {
		fmt.Fprintf(e.stderr, "lockcheck: %v\n", err)
		return exitUsage
	}
	ev, err := readEviction(ctx, s.srv)
	switch {
	case err != nil:
		fmt.Fprintf(e.stderr, "lockcheck: cannot tell whether the server evicts keys: %v\n", err)
	case ev.evicts():
		say(e.stderr, ev.before())
	}
	if s.srv.Kind == redistest.KindExternal {
		if private := topologyOf(opts.properties); len(private) > 0 {
			fmt.Fprintf(e.stderr, "lockcheck: %s %s on private redis-server processes the suite starts, not on yours: they kill, restart and partition servers\n",
				joinAnd(private), plural(len(private), "runs", "run"))
		}
	}
	m := matrix{addr: s.srv.Addr, login: s.srv.Login, dial: s.gate.dial, prefix: s.prefixes[0], timeout: opts.timeout, progress: e.stderr, health: h.check, undeclared: opts.undeclared}
	rep, err := m.run(ctx, s.srv.Version, opts.strategies, opts.properties, opts.runs)
	var lost *lostServer
	if errors.As(err, &lost) {
		fmt.Fprintf(e.stderr, "lockcheck: %v\n", lost)
		return exitUsage
	}
	if errors.As(err, &s.stopped) {
		return exitMismatch
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "lockcheck: %v\n", err)
		return exitMismatch
	}
	if msg := ev.after(rep); msg != "" {
		say(e.stderr, msg)
	}
	if opts.docs {
		return writeDocs(rep, opts.paths, e.stderr)
	}
	ropts := report.Options{Trace: opts.trace, Lang: opts.lang, Hint: !opts.undeclared, Width: e.width}
	if opts.width >= 0 {
		ropts.Width = opts.width
	}
	switch opts.format {
	case "markdown":
		err = report.Markdown(e.stdout, rep, ropts)
	case "json":
		err = report.JSON(e.stdout, rep, ropts)
	default:
		err = report.Text(e.stdout, rep, ropts)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "lockcheck: %v\n", err)
		return exitMismatch
	}
	if !rep.OK() {
		return exitMismatch
	}
	return exitOK
}

// say writes msg to w, each line after "lockcheck: ".
func say(w io.Writer, msg string) {
	for line := range strings.Lines(msg) {
		fmt.Fprintf(w, "lockcheck: %s\n", strings.TrimSuffix(line, "\n"))
	}
}

// parseFlags parses and checks the command line.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("lockcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output `format`: text, markdown or json")
	strategyList := fs.String("strategy", "", "check only these `strategies` (comma-separated; all by default)")
	properties := fs.String("property", "", "check only these `properties` (comma-separated; all by default)")
	trace := fs.Bool("trace", false, "print every break's counterexample as a Mermaid sequence diagram")
	lang := fs.String("lang", "en", "the `language` of the output: en or zh")
	runs := fs.Int("runs", 1, "run the matrix `N` times and report verdicts that changed")
	width := fs.Int("width", -1, "cut the text matrix to `N` columns, in parts of whole strategy columns; 0 for no limit (default: $COLUMNS, else the terminal's width, else 100)")
	addr := fs.String("redis", "", "use the Redis at `TARGET` (host:port, or a redis:// or rediss:// URL with [user:password@] and /db) instead of finding one")
	fromEnv := redistest.TLSFilesFromEnv()
	var tlsFiles redistest.TLSFiles
	fs.StringVar(&tlsFiles.CA, "tls-ca", fromEnv.CA, "for rediss://, the PEM `file` of the authorities to trust (the system's by default; "+redistest.EnvCA+")")
	fs.StringVar(&tlsFiles.Cert, "tls-cert", fromEnv.Cert, "for rediss://, the PEM `file` of a client certificate ("+redistest.EnvCert+")")
	fs.StringVar(&tlsFiles.Key, "tls-key", fromEnv.Key, "for rediss://, the PEM `file` of the client certificate's key ("+redistest.EnvKey+")")
	fs.StringVar(&tlsFiles.ServerName, "tls-server-name", fromEnv.ServerName, "for rediss://, the `name` the server's certificate must carry (the URL's host by default; "+redistest.EnvServerName+")")
	timeout := fs.Duration("timeout", 30*time.Second, "the most one property may take")
	docs := fs.Bool("docs", false, "regenerate the lockcheck blocks of the Markdown files given (default README.md, docs and docs/zh)")
	cleanup := fs.Bool("cleanup", false, "remove the keys earlier runs left on the server (-redis, or REDIS_ADDR/REDIS_URL), and nothing else")
	execF := addExecFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: lockcheck [flags]\n       lockcheck -docs [file or directory ...]\n       lockcheck -cleanup [-redis host:port]\n       lockcheck -exec COMMAND [-name NAME] [flags]\n\n"+
			"lockcheck runs locklab's conformance suite on every strategy against a real Redis\n"+
			"and prints the verdict matrix. Exit status: 0 when every verdict is the declared one,\n"+
			"1 when one is not, 2 for bad flags or no Redis (a replica, or one lost during the run),\n"+
			"128+n when stopped by signal n "+
			"(130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	opts := options{format: *format, trace: *trace, width: *width, runs: *runs, redisAddr: *addr, tls: tlsFiles, timeout: *timeout, docs: *docs, cleanup: *cleanup}
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
	switch opts.format {
	case "text", "markdown", "json":
	default:
		return opts, usageError{fmt.Sprintf("-format %q: want text, markdown or json", opts.format)}
	}
	var err error
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
	if opts.strategies, err = catalog.Select(strategies(), *strategyList); err != nil {
		return opts, usageError{"-strategy: " + err.Error()}
	}
	if opts.properties, err = catalog.SelectProperties(*properties); err != nil {
		return opts, usageError{"-property: " + err.Error()}
	}
	if err := execF.apply(&opts, *strategyList); err != nil {
		return opts, err
	}
	opts.paths = fs.Args()
	if opts.docs {
		if *strategyList != "" || *properties != "" || opts.runs != 1 {
			return opts, usageError{"-docs needs the whole matrix, once: drop -strategy, -property and -runs"}
		}
		if opts.lang != report.English {
			return opts, usageError{"-docs writes each file in its own language (the files of docs/zh in Chinese): drop -lang"}
		}
		if len(opts.paths) == 0 {
			opts.paths = []string{"README.md", "docs", "docs/zh"}
		}
	} else if len(opts.paths) > 0 {
		return opts, usageError{fmt.Sprintf("unexpected arguments %q (file arguments go with -docs)", opts.paths)}
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

// connect returns the server to run on: the one target names (host:port
// or a URL), or the one start finds; and how to let it go.
func connect(ctx context.Context, target string, files redistest.TLSFiles, start func(context.Context) (*redistest.Server, error)) (*redistest.Server, func() error, error) {
	if target == "" {
		srv, err := start(ctx)
		if err != nil {
			return nil, nil, err
		}
		return srv, srv.Close, nil
	}
	shown := redactTarget(target)
	if _, _, err := redistest.ParseTarget(target, files); err != nil {
		return nil, nil, fmt.Errorf("-redis %s: %w", shown, err)
	}
	srv, err := redistest.Connect(ctx, target, files)
	if err != nil {
		if errors.Is(err, redistest.ErrLogin) {
			return nil, nil, fmt.Errorf("-redis %s: %w", shown, err)
		}
		return nil, nil, fmt.Errorf("-redis %s: no Redis answers there: %w\n"+
			"Give the address of a running Redis, or drop -redis to let lockcheck find one\n"+
			"(REDIS_ADDR, a Docker container, or a redis-server on PATH)", shown, err)
	}
	return srv, srv.Close, nil
}

// redactTarget hides the password of a URL, for messages.
func redactTarget(target string) string {
	u, err := url.Parse(target)
	if err != nil || u.User == nil || !strings.Contains(target, "://") {
		return target
	}
	return u.Redacted()
}

// topologyOf returns those of props that run on servers of their own.
func topologyOf(props []locktest.Property) []string {
	var out []string
	for _, p := range props {
		if slices.Contains(locktest.TopologyProperties(), p) {
			out = append(out, string(p))
		}
	}
	return out
}

// joinAnd joins words as a sentence does: "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
