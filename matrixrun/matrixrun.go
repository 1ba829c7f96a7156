// Package matrixrun runs a verdict matrix on a real Redis for the
// commands that print one, lockcheck, lockdocs and peercheck: it finds or
// connects to the server, looks at it before writing (a replica, a
// Sentinel, a Cluster node, eviction), runs every property on every
// column with one progress line each, watches the server's health between
// checks, stops cleanly on a signal, and removes the run's keys. What the
// command does with the matrix (print it, write the docs, -update the
// declared grid) is the function it passes to Program.Run.
package matrixrun

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
)

// Exit statuses of the commands; a signal n gives 128+n.
const (
	ExitOK       = 0
	ExitMismatch = 1
	ExitUsage    = 2
)

// Program is a command that runs matrices.
type Program struct {
	// Name starts every line the program writes to Stderr ("lockcheck: ").
	Name string
	// Keys names the program whose keys the runs make ("lockcheck:<xid>:"),
	// and whose -cleanup removes them: Name when "".
	Keys           string
	Stdout, Stderr io.Writer
	// Start finds a Redis when no target is given (redistest.Start); the
	// program stops the one it started.
	Start func(ctx context.Context) (*redistest.Server, error)
	// Updater is the command that writes the declared grid, which a run
	// of columns or properties not declared yet names: Name + " -update"
	// when "".
	Updater string
}

// Matrix is what one run checks, and where.
type Matrix struct {
	// Target names the server: host:port, or a redis:// or rediss:// URL
	// that TLS completes; "" lets Program.Start find one.
	Target string
	TLS    redistest.TLSFiles
	// Entries are the columns, each run with every field of its Config.
	Entries    []catalog.Entry
	Properties []locktest.Property
	// Runs is how many times the whole matrix runs (1 when 0).
	Runs    int
	Timeout time.Duration
	// Undeclared: no verdict is declared for the columns (lockcheck -exec).
	Undeclared bool
	// Update: the run writes the declared grid (-update), so a cell it
	// declares nothing for yet is no error.
	Update bool
	// WarmUp takes and releases a lock of each column once before its
	// checks (locktest.Detect), and says what the column offers: a lock
	// that loads its scripts on first use then does so outside the
	// interleavings the checks count.
	WarmUp bool
	// Granularity is the time scale of the columns that declare none
	// (lockcheck -granularity); 0 leaves each at the one its lock
	// announces, or the default.
	Granularity time.Duration
	// Columns is how many columns are checked at once, each one's checks
	// one after the other (1 when 0). The scenarios time TTLs in tens of
	// milliseconds: a busy machine disturbs more checks (each is run
	// again, see locktest.ErrInconclusive) the more run at once. The
	// results keep the columns' order.
	Columns int
	// Parts, when not empty, are the matrices of several kinds of locks
	// checked in this one run (lockcheck without -kind), one after the
	// other, on the same server, into one report whose results each say
	// their part's kind; Entries and Properties are then unused.
	Parts []Part
}

// Part is the matrix of one kind of locks in a run of several.
type Part struct {
	// Kind marks every result of the part (report.Result.Kind), and
	// names the grid its columns are declared in (catalog.KindGridFile).
	Kind       strategy.Kind
	Entries    []catalog.Entry
	Properties []locktest.Property
}

// parts returns the matrices m checks: Parts, or else one of Entries and
// Properties whose results say no kind.
func (m Matrix) parts() []Part {
	if len(m.Parts) > 0 {
		return m.Parts
	}
	return []Part{{Entries: m.Entries, Properties: m.Properties}}
}

// log writes a message to p.Stderr after the program's name.
func (p Program) log(format string, args ...any) {
	fmt.Fprintf(p.Stderr, "%s: %s\n", p.Name, fmt.Sprintf(format, args...))
}

// say writes msg to p.Stderr, each line after the program's name.
func (p Program) say(msg string) {
	for line := range strings.Lines(msg) {
		fmt.Fprintf(p.Stderr, "%s: %s\n", p.Name, strings.TrimSuffix(line, "\n"))
	}
}

// keys is the program whose keys the runs make.
func (p Program) keys() string {
	if p.Keys == "" {
		return p.Name
	}
	return p.Keys
}

// keyPrefix starts the name of every key the program makes.
func (p Program) keyPrefix() string { return p.keys() + ":" }

// TLSFlags defines the flags -tls-ca, -tls-cert, -tls-key and
// -tls-server-name on fs, which complete a rediss:// target, their
// defaults from the environment (redistest.TLSFilesFromEnv).
func TLSFlags(fs *flag.FlagSet) *redistest.TLSFiles {
	fromEnv := redistest.TLSFilesFromEnv()
	var f redistest.TLSFiles
	fs.StringVar(&f.CA, "tls-ca", fromEnv.CA, "for rediss://, the PEM `file` of the authorities to trust (the system's by default; "+redistest.EnvCA+")")
	fs.StringVar(&f.Cert, "tls-cert", fromEnv.Cert, "for rediss://, the PEM `file` of a client certificate ("+redistest.EnvCert+")")
	fs.StringVar(&f.Key, "tls-key", fromEnv.Key, "for rediss://, the PEM `file` of the client certificate's key ("+redistest.EnvKey+")")
	fs.StringVar(&f.ServerName, "tls-server-name", fromEnv.ServerName, "for rediss://, the `name` the server's certificate must carry (the URL's host by default; "+redistest.EnvServerName+")")
	return &f
}

// Run runs m and calls use with the report once every check is done; use
// prints or writes it and returns the exit status. When ctx ends (Signals
// cancels it), the run stops: the check under way gets no verdict, use is
// not called, and the status is 128 plus the signal's number. Either way
// the run's keys are removed and a Redis the program started is stopped.
func (p Program) Run(ctx context.Context, m Matrix, use func(*report.Report) int) int {
	if !m.Undeclared && !m.Update {
		for _, part := range m.parts() {
			if columns, rows := catalog.Undeclared(part.Entries, part.Properties); len(columns) > 0 {
				p.log("%s", p.notDeclared(part, columns, rows))
				return ExitMismatch
			}
		}
	}
	srv, closeServer, err := p.connect(ctx, m.Target, m.TLS)
	if err != nil {
		if ctx.Err() != nil {
			p.log("%s while getting a Redis: no check ran", interruptCause(ctx))
			return interruptStatus(ctx)
		}
		p.log("%v", err)
		return ExitUsage
	}
	p.log("%v", srv)
	// Every run's keys start with a prefix of its own, removed at the end;
	// on a Cluster node, one whose slot the node serves.
	prefix, note, err := preflight(ctx, srv, p.keyPrefix())
	if err != nil {
		return p.refused(ctx, srv, err, closeServer)
	}
	if note != "" {
		p.log("%s", note)
	}

	// Each check dials its connections afresh, through the gate: a
	// connection the server cut (CLIENT KILL, a proxy's timeout) never
	// outlives the check that saw it cut.
	s := &session{p: p, srv: srv, gate: newGate(srv.Addr, p.Name), prefixes: []string{prefix}}
	code := s.run(ctx, m, use)

	interrupted := ctx.Err() != nil
	if interrupted {
		msg := interruptCause(ctx)
		if s.stopped != nil {
			msg += ": " + s.stopped.Error()
		} else {
			msg += " once the checks were done"
		}
		p.log("%s", msg)
		// Whatever an unfinished check left running sends nothing more.
		if !s.gate.close(shutLimit) {
			p.log("commands of the unfinished check still under way after %v; cleaning up regardless", shutLimit)
		}
	}
	p.cleanupRun(srv, s.prefixes, interrupted)
	s.gate.close(0)
	if err := closeServer(); err != nil {
		p.log("stopping Redis: %v", err)
	} else if interrupted && srv.Kind != redistest.KindExternal {
		p.log("stopped the Redis it started (%s)", srv.Kind)
	}
	if interrupted {
		return interruptStatus(ctx)
	}
	return code
}

// notDeclared says, in one line, which columns or properties of m, a
// part of a run, its kind's grid declares nothing for yet, and the
// command that writes them.
func (p Program) notDeclared(m Part, columns []string, rows []locktest.Property) string {
	var props []string
	for _, r := range rows {
		props = append(props, string(r))
	}
	// Name the columns unless they are all of the run and the properties
	// say which cells; name the properties unless they are all of it.
	byColumn, byRow := len(columns) < len(m.Entries), len(rows) < len(m.Properties)
	var what []string
	cmd := cmp.Or(p.Updater, p.Name+" -update")
	if byColumn || !byRow {
		what = append(what, columns...)
		cmd += " -strategy " + strings.Join(columns, ",")
	}
	if byRow {
		what = append(what, props...)
		cmd += " -property " + strings.Join(props, ",")
	}
	file := catalog.GridFile
	if m.Kind != "" && m.Kind != strategy.Mutex {
		file = catalog.KindGridFile(m.Kind)
	}
	return fmt.Sprintf("%s: not declared yet in %s: run %s", strings.Join(what, ", "), file, cmd)
}

// session is one run of the checks on a server.
type session struct {
	p    Program
	srv  *redistest.Server
	gate *gate
	// prefixes start the keys of the run: one, for the matrix.
	prefixes []string
	// stopped says how far the run got when ctx ended, if it ended during
	// the checks.
	stopped *interruption
}

// run checks and hands the report to use; it returns the exit status,
// which the caller replaces when ctx has ended.
func (s *session) run(ctx context.Context, m Matrix, use func(*report.Report) int) int {
	h, err := newHealth(ctx, s.srv)
	if err != nil {
		s.p.log("%v", err)
		return ExitUsage
	}
	ev, err := readEviction(ctx, s.srv)
	switch {
	case err != nil:
		s.p.log("cannot tell whether the server evicts keys: %v", err)
	case ev.evicts():
		s.p.say(ev.before())
	}
	if s.srv.Kind == redistest.KindExternal {
		var props []locktest.Property
		for _, part := range m.parts() {
			props = append(props, part.Properties...)
		}
		if private := topologyOf(props); len(private) > 0 {
			s.p.log("%s %s on private redis-server processes the suite starts, not on yours: they kill, restart and partition servers",
				joinAnd(private), plural(len(private), "runs", "run"))
		}
	}
	mx := matrix{name: s.p.Name, addr: s.srv.Addr, login: s.srv.Login, dial: s.gate.dial, prefix: s.prefixes[0], timeout: m.Timeout,
		progress: s.p.Stderr, health: h.check, undeclared: m.Undeclared, warmUp: m.WarmUp, granularity: m.Granularity, columns: m.Columns}
	rep, err := mx.run(ctx, s.srv.Version, m.parts(), max(m.Runs, 1))
	var lost *lostServer
	if errors.As(err, &lost) {
		s.p.log("%v", lost)
		return ExitUsage
	}
	if errors.Is(err, locktest.ErrNoLogin) {
		s.p.log("%v", err)
		return ExitUsage
	}
	if errors.As(err, &s.stopped) {
		return ExitMismatch
	}
	if err != nil {
		s.p.log("%v", err)
		return ExitMismatch
	}
	rep.Server = s.srv.String()
	if msg := ev.after(rep); msg != "" {
		s.p.say(msg)
	}
	return use(rep)
}

// connect returns the server to run on: the one target names (host:port
// or a URL), or the one p.Start finds; and how to let it go.
func (p Program) connect(ctx context.Context, target string, files redistest.TLSFiles) (*redistest.Server, func() error, error) {
	if target == "" {
		srv, err := p.Start(ctx)
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
			"Give the address of a running Redis, or drop -redis to let %s find one\n"+
			"(REDIS_ADDR, a Docker container, or a redis-server on PATH)", shown, err, p.Name)
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
