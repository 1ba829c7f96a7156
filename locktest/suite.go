package locktest

import (
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
// Properties), a subtest each, on the Redis of package redistest, after
// the contract. A verdict expect does not accept fails its subtest; the
// output then ends with the Expect literal of what was observed.
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
			accept(t, res, expect)
		})
	}
	if s := suggest(expect, results, where, caps); s != "" {
		t.Logf("%s", s)
	}
}

// accept is Report with what expect accepts.
func accept(t *testing.T, res Result, expect Expect) {
	t.Helper()
	want := expect.Verdict(res.Property)
	switch {
	case res.Err == nil && res.Verdict != want && expect.lenient(res):
		strict := mStrictList.New()
		if want == NotApplicable {
			strict = mStrictUnlist.New()
		}
		t.Logf("%s%s", mLenient.New(string(res.Property), string(res.Verdict), string(want), strict, res.Elapsed.Round(time.Millisecond), res.Message), res.noted())
	case res.Err == nil && res.Verdict == Breaks && want == Breaks:
		// The counterexample of a declared break is there for go test -v,
		// where the note of the Expect that suggest prints points to it.
		t.Logf("%s%s\n%s\n%s", mBreaksAsExpected.New(string(res.Property), res.Elapsed.Round(time.Millisecond), res.Message), res.noted(),
			mCounterexample.New(), res.formatTimeline())
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
			notes[p] = mNoteDeclared.New(where[p]).String()
		} else {
			notes[p] = mNoteCounterexample.New(where[p]).String()
		}
	}
	// What this run did not see keeps its declaration.
	for _, p := range expect.Breaks {
		if !seen[p] && !slices.Contains(observed.Breaks, p) {
			observed.Breaks = append(observed.Breaks, p)
			notes[p] = mNoteNoVerdict.New().String()
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

	say := []string{mNotAsDeclared.New(strings.Join(differ, ", ")).String()}
	if len(noVerdict) > 0 {
		say = append(say, mNoVerdictKept.New(strings.Join(noVerdict, ", ")).String())
	}
	if caps != nil {
		say = append(say, mOffers.New(caps.String()).String())
	}
	say = append(say, mTheExpect.New().String())
	return strings.Join(say, " ") + "\n\n" + observed.literal(notes)
}

// Report fails t when res is not the verdict wanted, or logs it.
func Report(t testing.TB, res Result, want Verdict) {
	t.Helper()
	if msg := mismatch(res, want); msg != "" {
		t.Error(msg + res.noted())
		return
	}
	t.Logf("%s%s", mAsExpected.New(string(res.Property), string(res.Verdict), res.Elapsed.Round(time.Millisecond), res.Message), res.noted())
}

// What Run says of each verdict, and at the end of a run in which some
// were not the declared ones. A property, a verdict and a subtest's name
// are data, in every language.
var (
	mAsExpected = msg.Define("run.as-expected", msg.K(msg.Text, msg.Text, msg.Duration, msg.Sub),
		"{0}: {1} as expected ({2}): {3}")
	mBreaksAsExpected = msg.Define("run.breaks-as-expected", msg.K(msg.Text, msg.Duration, msg.Sub),
		"{0}: breaks as expected ({1}): {2}")
	mLenient = msg.Define("run.lenient", msg.K(msg.Text, msg.Text, msg.Text, msg.Sub, msg.Duration, msg.Sub),
		"{0}: {1}, passes for the declared {2}: not broken (with Strict, {3}) ({4}): {5}")
	mStrictList   = msg.Define("run.strict-list", nil, "list it in NotApplicable")
	mStrictUnlist = msg.Define("run.strict-unlist", nil, "take it out of NotApplicable")

	mNotAsDeclared = msg.Define("run.not-as-declared", msg.K(msg.Text), "locktest: not as declared: {0}.")
	mNoVerdictKept = msg.Define("run.no-verdict-kept", msg.K(msg.Text),
		"No verdict for {0} (see the subtest): what was declared for it is kept.")
	mOffers             = msg.Define("run.offers", msg.K(msg.Text), "The lock offers {0}.")
	mTheExpect          = msg.Define("run.the-expect", nil, "The Expect that declares what this run observed:")
	mNoteDeclared       = msg.Define("run.note-declared", msg.K(msg.Text), "declared; go test -v logs its counterexample in {0}")
	mNoteCounterexample = msg.Define("run.note-counterexample", msg.K(msg.Text), "counterexample in {0}")
	mNoteNoVerdict      = msg.Define("run.note-no-verdict", nil, "declared; no verdict in this run")
)
