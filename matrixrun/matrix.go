package matrixrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
)

// matrix runs properties on strategies, one at a time unless told
// otherwise (Matrix.Columns): the scenarios time TTLs in tens of
// milliseconds and are best left alone.
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
	// columns: see Matrix.Columns.
	columns int
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
	// Columns run at once, each one's checks one after the other; the
	// first column to end the run (an interruption, a lost server) stops
	// the others' at their next check.
	var (
		mu   sync.Mutex // progress lines, done, stop
		done int
		stop error
	)
	var all [][]report.Result
	for i := 1; i <= runs; i++ {
		byColumn := make([][]report.Result, len(columns))
		runCtx, cancel := context.WithCancel(ctx)
		next := 0
		var wg sync.WaitGroup
		for range min(max(m.columns, 1), len(columns)) {
			wg.Go(func() {
				for {
					mu.Lock()
					ci := next
					next++
					mu.Unlock()
					if ci >= len(columns) {
						return
					}
					results, err := m.column(runCtx, ctx, columns[ci].e, columns[ci].kind, columns[ci].props, i, runs, &mu, &done, n)
					byColumn[ci] = results
					if err != nil {
						mu.Lock()
						if stop == nil {
							stop = err
						}
						mu.Unlock()
						cancel()
						return
					}
				}
			})
		}
		wg.Wait()
		cancel()
		if stop != nil {
			return nil, stop
		}
		all = append(all, slices.Concat(byColumn...))
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

// column checks every property of props on e, in order, in run i of
// runs, and gives their results; or the error that ends the whole run.
// runCtx ends when another column ended the run, ctx when the run was
// stopped from outside. mu guards done (the checks with a verdict so
// far, of total) and the progress lines.
func (m matrix) column(runCtx, ctx context.Context, e catalog.Entry, kind strategy.Kind, props []locktest.Property,
	i, runs int, mu *sync.Mutex, done *int, total int) ([]report.Result, error) {
	key := m.prefix + ":" + keyName(e.Name)
	if runs > 1 {
		key += fmt.Sprintf(":run-%d", i)
	}
	interrupted := func(current string) error {
		mu.Lock()
		defer mu.Unlock()
		return &interruption{done: *done, total: total, current: current}
	}
	if m.warmUp && i == 1 {
		m.warm(runCtx, e, key, mu)
	}
	var results []report.Result
	for _, p := range props {
		if runCtx.Err() != nil {
			return results, interrupted("")
		}
		r := m.check(runCtx, e, p, key)
		r.Kind = kind
		current := e.Name + " " + string(p)
		if runs > 1 {
			current = fmt.Sprintf("%s (run %d/%d)", current, i, runs)
		}
		if unfinished(runCtx, r.Result) {
			if ctx.Err() == nil {
				current = "" // another column ended the run: it says why
			}
			return results, interrupted(current)
		}
		if errors.Is(r.Result.Err, locktest.ErrNoLogin) {
			// Every check would say the same: say it once.
			return results, errNoLogin{current, r.Result.Err}
		}
		if m.health != nil {
			if err := m.health(runCtx); err != nil {
				mu.Lock()
				defer mu.Unlock()
				return results, &lostServer{err: err, interruption: interruption{done: *done, total: total, current: current}}
			}
		}
		mu.Lock()
		m.report(r, i, runs)
		*done++
		mu.Unlock()
		results = append(results, r)
	}
	return results, nil
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
func (m matrix) warm(ctx context.Context, e catalog.Entry, key string, mu *sync.Mutex) {
	caps, err := locktest.Detect(ctx, m.config(e, key))
	if m.progress == nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
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
