package matrixrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
	"unicode"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
)

// matrix runs properties on strategies, one at a time: the scenarios time
// TTLs in tens of milliseconds and are best left alone.
type matrix struct {
	// name is the program's, which starts its summary line.
	name string
	// addr is the server's; dial, when set, opens the connections to it.
	addr string
	dial func(context.Context) (net.Conn, error)
	// login is how every connection logs in (user, password, database, TLS).
	login redistest.Login
	// prefix starts every key; each check adds its strategy's name (and
	// run number) to it.
	prefix  string
	timeout time.Duration
	// progress, when not nil, gets one line per check.
	progress io.Writer
	// width is how wide the strategy column of the progress lines is.
	width int
	// health, when not nil, is called after every check: an error (the
	// server is gone or restarted) ends the run, and the check gets no verdict.
	health func(context.Context) error
	// undeclared: no verdict is declared (lockcheck -exec); each one found
	// is reported as it is.
	undeclared bool
	// warmUp: see Matrix.WarmUp.
	warmUp bool
	// granularity: see Matrix.Granularity.
	granularity time.Duration
}

// scale returns e with the granularity it runs at, and where that came
// from: the column's own, -granularity, or what its lock announces
// (locktest.Announced, asked once here rather than by every check).
func (m matrix) scale(ctx context.Context, e catalog.Entry, key string) (catalog.Entry, report.ScaleFrom) {
	switch {
	case e.Timing.Granularity > 0:
		return e, report.ScaleColumn
	case m.granularity > 0:
		e.Timing.Granularity = m.granularity
		return e, report.ScaleFlag
	}
	g, err := locktest.Announced(ctx, m.config(e, key))
	if err != nil {
		// Each check meets the same error, and says it.
		return e, ""
	}
	e.Timing.Granularity = max(g, time.Millisecond)
	return e, report.ScaleLock
}

// config is the configuration of the checks of e on key: every field of
// the entry's (catalog.Entry.Config), and the server's.
func (m matrix) config(e catalog.Entry, key string) locktest.Config {
	return e.Config(locktest.Config{Addr: m.addr, Dial: m.dial, Key: key, Timeout: m.timeout,
		TLS: m.login.TLS, Username: m.login.Username, Password: m.login.Password, DB: m.login.DB})
}

// check runs property p on strategy e.
func (m matrix) check(ctx context.Context, e catalog.Entry, p locktest.Property, key string) report.Result {
	cfg := m.config(e, key)
	r := report.Result{Strategy: e.Name, Expected: e.Expect.Verdict(p), Timing: cfg.Timing.Resolved(), Result: locktest.Check(ctx, cfg, p)}
	if m.undeclared {
		r.Expected = ""
	}
	return r
}

// run checks every property of each part on every strategy of the part,
// runs times, and reports the last run with the verdicts that changed
// between runs.
func (m matrix) run(ctx context.Context, version string, parts []Part, runs int) (*report.Report, error) {
	rep := &report.Report{RedisVersion: version, Program: m.name, When: time.Now(), Runs: runs,
		Sources: map[string]string{}, ScaleFrom: map[string]report.ScaleFrom{}}
	start := time.Now()
	// The columns of every part, in order, each with its time scale.
	type column struct {
		e     catalog.Entry
		kind  strategy.Kind
		props []locktest.Property
	}
	var columns []column
	n := 0
	for _, part := range parts {
		for _, e := range part.Entries {
			rep.Sources[e.Name] = e.Sources
			m.width = max(m.width, len(e.Name))
			columns = append(columns, column{e: e, kind: part.Kind, props: part.Properties})
			n += len(part.Properties) * runs
		}
	}
	for i, c := range columns {
		var from report.ScaleFrom
		columns[i].e, from = m.scale(ctx, c.e, m.prefix+":"+keyName(c.e.Name))
		if columns[i].e.Timing.Granularity > time.Millisecond {
			rep.ScaleFrom[c.e.Name] = from
		}
	}
	var all [][]report.Result
	done := 0
	for i := 1; i <= runs; i++ {
		var results []report.Result
		for _, c := range columns {
			e := c.e
			key := m.prefix + ":" + keyName(e.Name)
			if runs > 1 {
				key += fmt.Sprintf(":run-%d", i)
			}
			if m.warmUp && i == 1 {
				m.warm(ctx, e, key)
			}
			for _, p := range c.props {
				if ctx.Err() != nil {
					return nil, &interruption{done: done, total: n}
				}
				r := m.check(ctx, e, p, key)
				r.Kind = c.kind
				current := e.Name + " " + string(p)
				if runs > 1 {
					current = fmt.Sprintf("%s (run %d/%d)", current, i, runs)
				}
				if unfinished(ctx, r.Result) {
					return nil, &interruption{done: done, total: n, current: current}
				}
				if errors.Is(r.Result.Err, locktest.ErrNoLogin) {
					// Every check would say the same: say it once.
					return nil, errNoLogin{current, r.Result.Err}
				}
				if m.health != nil {
					if err := m.health(ctx); err != nil {
						return nil, &lostServer{err: err, interruption: interruption{done: done, total: n, current: current}}
					}
				}
				m.report(r, i, runs)
				results = append(results, r)
				done++
			}
		}
		all = append(all, results)
	}
	rep.Results = all[len(all)-1]
	rep.Changes = report.Changes(all)
	if m.progress != nil {
		plural := "s"
		if n == 1 {
			plural = ""
		}
		fmt.Fprintf(m.progress, "%s: %d check%s in %.2fs\n", m.name, n, plural, time.Since(start).Seconds())
	}
	return rep, nil
}

// interruption is the error of a run stopped from outside: how far it got.
type interruption struct {
	done, total int    // checks that reached a verdict, of all the run was to make
	current     string // the check under way, which has no verdict; "" when none was
}

func (e *interruption) Error() string {
	msg := fmt.Sprintf("%d of %d checks done", e.done, e.total)
	if e.current != "" {
		msg += fmt.Sprintf("; %s was under way and has no verdict", e.current)
	}
	return msg
}

// report writes the progress line of one check.
func (m matrix) report(r report.Result, run, runs int) {
	if m.progress == nil {
		return
	}
	status := "as declared"
	switch {
	case r.Expected == "" && r.Matches():
		status = "found"
	case r.Expected == "":
		status = "NO VERDICT!"
	case !r.Matches():
		status = fmt.Sprintf("DECLARED %s!", r.Expected)
	}
	line := fmt.Sprintf("%-*s  %-19s  %-6s  %-16s %8.1fms", m.width, r.Strategy, r.Property, r.Outcome(), status, float64(r.Elapsed.Microseconds())/1000)
	if runs > 1 {
		line = fmt.Sprintf("run %d/%d  %s", run, runs, line)
	}
	if r.Err != nil {
		msg, _, _ := strings.Cut(r.Err.Error(), "\n") // its first line
		line += "  " + msg
	}
	fmt.Fprintln(m.progress, line)
}

// warm takes and releases a lock of e once (locktest.Detect) and writes
// what e offers, or why it could not tell, as a progress line.
func (m matrix) warm(ctx context.Context, e catalog.Entry, key string) {
	caps, err := locktest.Detect(ctx, m.config(e, key))
	if m.progress == nil {
		return
	}
	if err != nil {
		fmt.Fprintf(m.progress, "%-*s  capabilities: %v\n", m.width, e.Name, err)
		return
	}
	fmt.Fprintf(m.progress, "%-*s  capabilities: %s\n", m.width, e.Name, caps)
}

// keyName is a column's name as its keys carry it: white space, which the
// line protocol cannot carry in a key, becomes "_" (an -exec column is
// named after its command by default).
func keyName(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, name)
}
