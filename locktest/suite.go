package locktest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/redistest"
)

// Testing is what Run and RunConfig use of a test; a *testing.T has it.
type Testing interface {
	Helper()
	Name() string
	Fatal(args ...any)
	Logf(format string, args ...any)
	Run(name string, f func(t *testing.T)) bool
}

// Run checks the lock newStrategy builds against props (by default
// Properties), each as a subtest named after it, on the Redis package
// redistest provides. It first runs the contract and logs the lock's
// capabilities. A verdict expect does not accept fails its subtest, with
// the counterexample of a break; the test's output then ends with the
// Expect literal that declares what was observed.
func Run(t Testing, newStrategy Factory, expect Expect, props ...Property) {
	t.Helper()
	RunConfig(t, Config{Addr: redistest.Shared(t).Addr, New: newStrategy, Key: redistest.Key(t)}, expect, props...)
}

// RunConfig is Run on the server cfg names, with its key, timing and
// watchdog. A key left empty is derived from the test's name.
func RunConfig(t Testing, cfg Config, expect Expect, props ...Property) {
	t.Helper()
	if len(props) == 0 {
		props = Properties()
	}
	if cfg.Key == "" {
		cfg.Key = "locktest:" + t.Name() + ":" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	// Each check runs under its subtest's context, which ends with it.
	t.Run("contract", func(t *testing.T) {
		t.Helper()
		for _, f := range Contract(t.Context(), cfg) {
			t.Run(f.Name, func(t *testing.T) {
				t.Helper()
				if f.Err != nil {
					t.Error(f.Err)
				} else {
					t.Log(f.What)
				}
			})
		}
	})
	var caps *Capabilities
	// The subtests are helpers too: what they log is reported at the line
	// of the test that called Run, the author's own test file.
	t.Run("capabilities", func(t *testing.T) {
		t.Helper()
		c, err := Detect(t.Context(), cfg)
		if err != nil {
			t.Error(err)
			return
		}
		caps = &c
		t.Log(c.explain(msg.English))
	})
	if caps != nil && cfg.Timing.Granularity <= 0 && caps.Granularity > 0 {
		// The lock counts TTLs in steps of its own: ask only for those.
		cfg.Timing.Granularity = caps.Granularity
	}
	var results []Result
	where := map[Property]string{}
	for _, p := range props {
		t.Run(string(p), func(t *testing.T) {
			t.Helper()
			res := Check(t.Context(), cfg, p)
			results = append(results, res)
			where[p] = t.Name()
			judge(t, res, expect)
		})
	}
	if s := suggest(expect, results, where, caps); s != "" {
		t.Logf("%s", s)
	}
}

// judge is Report with what expect accepts.
func judge(t *testing.T, res Result, expect Expect) {
	t.Helper()
	want := expect.Verdict(res.Property)
	switch {
	case res.Err == nil && res.Verdict != want && expect.lenient(res):
		strict := "list it in NotApplicable"
		if want == NotApplicable {
			strict = "take it out of NotApplicable"
		}
		t.Logf("%s: %s, passes for the declared %s: not broken (with Strict, %s) (%v): %s",
			res.Property, res.Verdict, want, strict, res.Elapsed.Round(time.Millisecond), res.Reason())
	case res.Err == nil && res.Verdict == Breaks && want == Breaks:
		// The counterexample of a declared break is there for go test -v,
		// where the note of the Expect that suggest prints points to it.
		t.Logf("%s: breaks as expected (%v): %s\ncounterexample:\n%s",
			res.Property, res.Elapsed.Round(time.Millisecond), res.Reason(), res.formatTimeline())
	default:
		Report(t, res, want)
	}
}

// suggest returns the closing message of a run in which some verdict was
// not the declared one: the Expect literal that declares what was
// observed, keeping the declaration of the properties without a verdict;
// or "" when every verdict was accepted.
func suggest(expect Expect, results []Result, where map[Property]string, caps *Capabilities) string {
	var differ, noVerdict []string
	seen := map[Property]bool{} // the properties with a verdict
	for _, r := range results {
		if r.Err == nil {
			seen[r.Property] = true
		} else {
			noVerdict = append(noVerdict, string(r.Property))
		}
		if expect.Mismatch(r) != "" {
			differ = append(differ, string(r.Property))
		}
	}
	if len(differ) == 0 {
		return ""
	}
	observed := expectFrom(results, expect.Strict)
	notes := map[Property]string{}
	for _, p := range observed.Breaks {
		if expect.Verdict(p) == Breaks {
			notes[p] = "declared; go test -v logs its counterexample in " + where[p]
		} else {
			notes[p] = "counterexample in " + where[p]
		}
	}
	// What this run did not see keeps its declaration.
	for _, p := range expect.Breaks {
		if !seen[p] && !slices.Contains(observed.Breaks, p) {
			observed.Breaks = append(observed.Breaks, p)
			notes[p] = "declared; no verdict in this run"
		}
	}
	if expect.Strict {
		for _, p := range expect.NotApplicable {
			if !seen[p] && !slices.Contains(observed.NotApplicable, p) {
				observed.NotApplicable = append(observed.NotApplicable, p)
			}
		}
	}
	sortProperties(observed.Breaks)
	sortProperties(observed.NotApplicable)

	var b strings.Builder
	fmt.Fprintf(&b, "locktest: not as declared: %s.", strings.Join(differ, ", "))
	if len(noVerdict) > 0 {
		fmt.Fprintf(&b, " No verdict for %s (see the subtest): what was declared for it is kept.", strings.Join(noVerdict, ", "))
	}
	if caps != nil {
		fmt.Fprintf(&b, " The lock offers %s.", caps)
	}
	b.WriteString(" The Expect that declares what this run observed:\n\n")
	b.WriteString(observed.literal(notes))
	return b.String()
}

// Report fails t when res is not the verdict wanted, or logs it.
func Report(t testing.TB, res Result, want Verdict) {
	t.Helper()
	if msg := mismatch(res, want); msg != "" {
		t.Error(msg)
		return
	}
	t.Logf("%s: %s as expected (%v): %s", res.Property, res.Verdict, res.Elapsed.Round(time.Millisecond), res.Reason())
}

// mismatch describes how res differs from the verdict wanted, or returns ""
// when it does not: the verdicts must be equal, n/a included, as lockcheck
// compares them. A run without a verdict is always a mismatch.
func mismatch(res Result, want Verdict) string {
	switch {
	case res.Err != nil:
		return fmt.Sprintf("%s: no verdict: %v\n%s", res.Property, res.Err, res.formatTimeline())
	case res.Verdict == want:
		return ""
	case want == Breaks:
		return fmt.Sprintf("%s: verdict = %s, wanted %s: expected to break, but %s", res.Property, res.Verdict, want, res.Reason())
	case res.Verdict == Breaks:
		return fmt.Sprintf("%s: verdict = breaks, wanted %s: %s\ncounterexample:\n%s", res.Property, want, res.Reason(), res.formatTimeline())
	default:
		return fmt.Sprintf("%s: verdict = %s, wanted %s: %s", res.Property, res.Verdict, want, res.Reason())
	}
}
