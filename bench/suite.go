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
// (Timing{} means the same), written out so that the floors below are
// derived from the very values the checks run with.
var suiteTiming = locktest.Timing{
	Short: 60 * time.Millisecond,
	Long:  5 * time.Second,
	Slack: 500 * time.Millisecond,
	Poll:  5 * time.Millisecond,
}

// suiteFloor is the least time a check of p must sleep waiting on TTLs,
// at timing tm: any, whatever the verdict; holds, when the lock holds p
// (any included). A lock that breaks a property, or to which it does not
// apply, may end the scenario before most waits (lease-kept ends at the
// first probe that gets in), so only the waits a scenario makes before
// any verdict can be reached count for those. Where the scenario's waits
// depend on the lock (how many commands its acquire or release sends, when
// it frees the key), the floor counts one wait, or none where even that is
// not certain. A check without a verdict counts 0. The derived durations
// repeat locktest's (config.go): kept = renewedTTL = 5*Short,
// keptTolerance = max(kept/10, Short/3), staleAfter = Short/3.
func suiteFloor(p locktest.Property, tm locktest.Timing, v locktest.Verdict) time.Duration {
	f, _ := suiteFloorCase(p, tm)
	if v == locktest.Holds {
		return f.holds
	}
	return f.any
}

// floor is the two floors of a property.
type floor struct{ any, holds time.Duration }

// suiteFloorCase is the floors of p, and whether p has a case of its own.
func suiteFloorCase(p locktest.Property, tm locktest.Timing) (floor, bool) {
	kept := 5 * tm.Short
	keptTolerance := max(kept/10, tm.Short/3)
	staleAfter := tm.Short / 3
	renewedTTL := 5 * tm.Short
	switch p {
	case locktest.Exclusion, locktest.ReleaseFrees, locktest.DoubleRelease:
		// Acquires and releases with the Long TTL, which never runs out:
		// nothing to wait for.
		return floor{}, true
	case locktest.LeaseKept:
		// A holds for kept; B and C probe until keptTolerance before its
		// end. A lock that can be refreshed runs a second round, not
		// counted.
		return floor{holds: kept - keptTolerance}, true
	case locktest.CrashRecovery:
		// A crashes holding a lock with the Short TTL; B cannot get it
		// before that TTL has run out.
		return floor{holds: tm.Short}, true
	case locktest.CrashMidAcquire, locktest.StaleTakeoverRace:
		// Both begin by making a stale lock: H acquires for Short, crashes,
		// and the scenario sleeps Short + staleAfter, whatever the lock.
		// The waits after a crash mid-acquire depend on which commands
		// were sent: not counted.
		return floor{any: tm.Short + staleAfter, holds: tm.Short + staleAfter}, true
	case locktest.CrashMidRelease:
		// Whether B must wait for A's TTL depends on which of the release's
		// commands ran before A died: no certain floor.
		return floor{}, true
	case locktest.ClockSkew:
		// B, its clock 2*Long ahead, tries for 20*Poll and must not get
		// the lock A holds for Long.
		return floor{holds: 20 * tm.Poll}, true
	case locktest.HolderClock:
		// Ahead: B waits out A's Short TTL. Behind: B polls until
		// keptTolerance before the end of A's kept TTL.
		return floor{holds: tm.Short + kept - keptTolerance}, true
	case locktest.SafeRelease, locktest.SafeRefresh, locktest.FencedOverrun:
		// A, paused, holds with the Short TTL; B acquires only once it has
		// run out (at least once: the other boundaries or skews are not
		// counted).
		return floor{holds: tm.Short}, true
	case locktest.HolderOverrun:
		// B may get in as soon as A's Short TTL runs out, or wait it out
		// twice with Slack; the verdict alone does not say which.
		return floor{}, true
	case locktest.RenewedOverrun:
		// A is paused for a third of renewedTTL, whatever the lock; then,
		// paused again, its lease must run out (renewedTTL, with no
		// renewal) before B gets in.
		return floor{any: renewedTTL / 3, holds: renewedTTL/3 + renewedTTL}, true
	case locktest.Failover, locktest.RestartAmnesia, locktest.NodeClockJump, locktest.MinorityDown:
		// Topology: the time goes into starting servers of their own and
		// forcing faults, not into TTL waits.
		return floor{}, true
	}
	return floor{}, false
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
	// FloorS is the sum of the floors of the checks (suiteFloor: the
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
				floor = suiteFloor(p, suiteTiming, res.Verdict).Seconds()
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
