package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
)

// The suite figure times the conformance suite itself: every property on
// luatoken (locktest.Check, one Config, each property in turn), then the
// whole matrix (every catalog strategy × every property, one check at a
// time, as lockcheck runs it), against the floor: the time the scenarios
// must spend sleeping on TTLs, which no speed-up of the suite's own code
// can remove.

// suiteTiming is the time scale of the suite figure: locktest's defaults
// (Timing{} means the same), written out as the figure records them. The
// floors are each property's (locktest.Property.Floor) at this scale.
var suiteTiming = locktest.Timing{
	Short: 60 * time.Millisecond,
	Long:  5 * time.Second,
	Slack: 500 * time.Millisecond,
	Poll:  5 * time.Millisecond,
}

// SuiteFigure is the suite's own speed: luatoken alone, and the matrix.
type SuiteFigure struct {
	// Timing is the time scale of every check, in ms.
	ShortMs int64 `json:"short_ms"`
	LongMs  int64 `json:"long_ms"`
	SlackMs int64 `json:"slack_ms"`
	PollMs  int64 `json:"poll_ms"`

	Luatoken SuiteRun `json:"luatoken"`
	Matrix   SuiteRun `json:"matrix"`
}

// SuiteRun is one timed run of the suite: some columns × some properties.
type SuiteRun struct {
	Columns    int `json:"columns"`
	Properties int `json:"properties"`
	// Errors: checks that ended without a verdict.
	Errors int     `json:"errors"`
	TotalS float64 `json:"total_s"`
	// FloorS is the sum of the floors of the checks (Property.Floor: the
	// waits of the verdict each check reached).
	FloorS     float64 `json:"floor_s"`
	FloorRatio float64 `json:"floor_ratio"` // TotalS / FloorS
	// TotalS over columns and over properties: how the run grows with each.
	PerColumnS   float64 `json:"per_column_s"`
	PerPropertyS float64 `json:"per_property_s"`
	// By property, summed over the columns; by column, over the properties.
	ByProperty []SuiteTime `json:"by_property"`
	ByColumn   []SuiteTime `json:"by_column,omitempty"`
}

// SuiteTime is the time of a property or a column.
type SuiteTime struct {
	Name   string  `json:"name"`
	S      float64 `json:"s"`
	FloorS float64 `json:"floor_s"`
	// Holds: how many of its checks held (their floor is the longer); for
	// luatoken's run, Verdict is the property's verdict.
	Holds   int    `json:"holds"`
	Verdict string `json:"verdict,omitempty"`
}

// suite measures the suite figure.
func (r *Runner) suite(ctx context.Context, rep *Report) error {
	lt, ok := catalog.Lookup("luatoken")
	if !ok {
		return fmt.Errorf("no luatoken in the catalog")
	}
	props := locktest.AllProperties()
	fig := &SuiteFigure{
		ShortMs: suiteTiming.Short.Milliseconds(), LongMs: suiteTiming.Long.Milliseconds(),
		SlackMs: suiteTiming.Slack.Milliseconds(), PollMs: suiteTiming.Poll.Milliseconds(),
	}
	var err error
	r.logf("suite: luatoken, %d properties", len(props))
	if fig.Luatoken, err = r.suiteRun(ctx, "luatoken", []catalog.Entry{lt}, props); err != nil {
		return err
	}
	es := catalog.Strategies()
	r.logf("suite: the matrix, %d strategies × %d properties", len(es), len(props))
	if fig.Matrix, err = r.suiteRun(ctx, "matrix", es, props); err != nil {
		return err
	}
	rep.Suite = fig
	return nil
}

// suiteRun checks every property on every entry, one at a time, and times
// each check; its keys start with name, so that no run meets another's.
func (r *Runner) suiteRun(ctx context.Context, name string, es []catalog.Entry, props []locktest.Property) (SuiteRun, error) {
	run := SuiteRun{Columns: len(es), Properties: len(props)}
	byProp := make([]SuiteTime, len(props))
	for i, p := range props {
		byProp[i].Name = string(p)
	}
	start := time.Now()
	for _, e := range es {
		col := SuiteTime{Name: e.Name}
		login := r.srv.Login
		cfg := e.Config(locktest.Config{Addr: r.srv.Addr, Key: r.key("suite", name, e.Name), Timing: suiteTiming,
			TLS: login.TLS, Username: login.Username, Password: login.Password, DB: login.DB})
		for i, p := range props {
			if err := ctx.Err(); err != nil {
				return run, err
			}
			res := locktest.Check(ctx, cfg, p)
			el := res.Elapsed.Seconds()
			floor := 0.0
			if res.Err != nil {
				run.Errors++
				r.logf("suite: %s %s: %v", e.Name, p, res.Err)
			} else {
				floor = p.Floor(suiteTiming, res.Verdict).Seconds()
				if res.Verdict == locktest.Holds {
					byProp[i].Holds++
					col.Holds++
				}
			}
			byProp[i].S += el
			byProp[i].FloorS += floor
			col.S += el
			col.FloorS += floor
			if len(es) == 1 {
				byProp[i].Verdict = string(res.Verdict)
				if res.Err != nil {
					byProp[i].Verdict = "error"
				}
			}
		}
		run.FloorS += col.FloorS
		if len(es) > 1 {
			run.ByColumn = append(run.ByColumn, col)
			r.logf("suite: %s %.1fs", e.Name, col.S)
		}
	}
	run.TotalS = time.Since(start).Seconds()
	run.ByProperty = byProp
	if run.FloorS > 0 {
		run.FloorRatio = run.TotalS / run.FloorS
	}
	run.PerColumnS = run.TotalS / float64(max(run.Columns, 1))
	run.PerPropertyS = run.TotalS / float64(max(run.Properties, 1))
	return run, nil
}

// write prints the suite figure: as Markdown if md, else as text.
func (fig *SuiteFigure) write(w io.Writer, md bool) {
	t := &table{head: []string{"property", "luatoken s", "floor s", "verdict", "matrix s", "matrix floor s", "held"},
		right: []bool{false, true, true, false, true, true, true}}
	for i, lp := range fig.Luatoken.ByProperty {
		row := []string{lp.Name, fmt.Sprintf("%.2f", lp.S), fmt.Sprintf("%.2f", lp.FloorS), lp.Verdict, "", "", ""}
		if i < len(fig.Matrix.ByProperty) {
			mp := fig.Matrix.ByProperty[i]
			row[4], row[5], row[6] = fmt.Sprintf("%.1f", mp.S), fmt.Sprintf("%.1f", mp.FloorS), fmt.Sprintf("%d/%d", mp.Holds, fig.Matrix.Columns)
		}
		t.add(row...)
	}
	for _, run := range []struct {
		name string
		r    SuiteRun
	}{{"luatoken", fig.Luatoken}, {"matrix", fig.Matrix}} {
		fmt.Fprintf(w, "%s: %d column%s × %d properties in %.2fs; TTL floor %.2fs (%.1f× the floor); %.2fs per column, %.2fs per property",
			run.name, run.r.Columns, plural(run.r.Columns), run.r.Properties, run.r.TotalS, run.r.FloorS, run.r.FloorRatio, run.r.PerColumnS, run.r.PerPropertyS)
		if run.r.Errors > 0 {
			fmt.Fprintf(w, "; %d checks without a verdict", run.r.Errors)
		}
		fmt.Fprintln(w)
		if md {
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
	if md {
		t.markdown(w)
	} else {
		t.text(w)
	}
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
