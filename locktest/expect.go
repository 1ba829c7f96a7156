package locktest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/props"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// Expect declares a strategy's weaknesses, negatively: a property not
// listed must hold. A declared break must be reproduced. By default n/a
// and holds both mean "not broken"; Strict tells them apart.
type Expect struct {
	Breaks        []Property // what the strategy is known to break
	NotApplicable []Property // scenarios that cannot arise, for Strict
	Strict        bool       // n/a is a verdict to declare, as in catalog
}

// Verdict returns the verdict e declares for p.
func (e Expect) Verdict(p Property) Verdict {
	switch {
	case slices.Contains(e.Breaks, p):
		return Breaks
	case slices.Contains(e.NotApplicable, p):
		return NotApplicable
	}
	return Holds
}

// Mismatch says how res differs from what e accepts, or returns "".
func (e Expect) Mismatch(res Result) string {
	if res.Err == nil && e.lenient(res) {
		return ""
	}
	return mismatch(res, e.Verdict(res.Property))
}

// lenient reports whether a non-strict e accepts res although its verdict
// is not the declared one: n/a and holds stand for each other.
func (e Expect) lenient(res Result) bool {
	notBroken := func(v Verdict) bool { return v == Holds || v == NotApplicable }
	return !e.Strict && notBroken(res.Verdict) && notBroken(e.Verdict(res.Property))
}

// expectFrom returns the Expect that declares the verdicts of results: the
// properties that broke and, when strict, those that were n/a. A result
// without a verdict declares nothing. Its GoString is the Go literal to
// paste into a test.
func expectFrom(results []Result, strict bool) Expect {
	e := Expect{Strict: strict}
	for _, r := range results {
		switch {
		case r.Err != nil:
		case r.Verdict == Breaks && !slices.Contains(e.Breaks, r.Property):
			e.Breaks = append(e.Breaks, r.Property)
		case r.Verdict == NotApplicable && strict && !slices.Contains(e.NotApplicable, r.Property):
			e.NotApplicable = append(e.NotApplicable, r.Property)
		}
	}
	sortProperties(e.Breaks)
	sortProperties(e.NotApplicable)
	return e
}

// sortProperties puts ps in the order of AllProperties, unknown ones last.
func sortProperties(ps []Property) {
	all := AllProperties()
	rank := func(p Property) int {
		if i := slices.Index(all, p); i >= 0 {
			return i
		}
		return len(all)
	}
	slices.SortStableFunc(ps, func(a, b Property) int { return rank(a) - rank(b) })
}

// GoString returns e as the Go literal that declares it, with a comment
// on what each break means; %#v prints it.
func (e Expect) GoString() string { return e.literal(nil) }

// literal returns e as the Go literal that declares it, formatted as gofmt
// would, ready to paste into a test that imports locktest. Each break has
// a comment line above it: what the break means (describe) and, after a
// semicolon, notes[p] when there is one, such as the subtest that holds
// its counterexample. NotApplicable goes on one line.
func (e Expect) literal(notes map[Property]string) string {
	var b strings.Builder
	b.WriteString("locktest.Expect{")
	if len(e.Breaks) == 0 && len(e.NotApplicable) == 0 && !e.Strict {
		b.WriteString("}")
		return b.String()
	}
	b.WriteString("\n")
	if len(e.Breaks) > 0 {
		b.WriteString("\tBreaks: []locktest.Property{\n")
		for _, p := range e.Breaks {
			comment := props.Describe(string(p)).String()
			if n := notes[p]; n != "" {
				if comment != "" {
					comment += "; "
				}
				comment += n
			}
			if comment != "" {
				fmt.Fprintf(&b, "\t\t// %s\n", comment)
			}
			fmt.Fprintf(&b, "\t\t%s,\n", goName(p))
		}
		b.WriteString("\t},\n")
	}
	// gofmt aligns the values of NotApplicable and Strict when both are
	// there, on consecutive lines.
	pad := func(key string) string {
		if len(e.NotApplicable) > 0 && e.Strict {
			return key + ":" + strings.Repeat(" ", len("NotApplicable")-len(key)+1)
		}
		return key + ": "
	}
	if len(e.NotApplicable) > 0 {
		names := make([]string, len(e.NotApplicable))
		for i, p := range e.NotApplicable {
			names[i] = goName(p)
		}
		fmt.Fprintf(&b, "\t%s[]locktest.Property{%s},\n", pad("NotApplicable"), strings.Join(names, ", "))
	}
	if e.Strict {
		fmt.Fprintf(&b, "\t%strue,\n", pad("Strict"))
	}
	b.WriteString("}")
	return b.String()
}

// mismatch describes how res differs from the verdict wanted, or returns ""
// when it does not: the verdicts must be equal, n/a included, as lockcheck
// compares them. A run without a verdict is always a mismatch.
func mismatch(res Result, want Verdict) string {
	p, v, w := string(res.Property), string(res.Verdict), string(want)
	switch {
	case res.Err != nil:
		return mNoVerdictFor.New(p, sim.MessageOf(res.Err)).String() + "\n" + res.formatTimeline()
	case res.Verdict == want:
		return ""
	case want == Breaks:
		return mExpectedToBreak.New(p, v, w, res.Message).String()
	case res.Verdict == Breaks:
		return mUndeclaredBreak.New(p, w, res.Message).String() + "\n" + mCounterexample.New().String() + "\n" + res.formatTimeline()
	default:
		return mWanted.New(p, v, w, res.Message).String()
	}
}

// What mismatch says.
var (
	mCounterexample  = msg.Define("run.counterexample", nil, "counterexample:")
	mNoVerdictFor    = msg.Define("run.no-verdict", msg.K(msg.Text, msg.Sub), "{0}: no verdict: {1}")
	mExpectedToBreak = msg.Define("run.expected-to-break", msg.K(msg.Text, msg.Text, msg.Text, msg.Sub),
		"{0}: verdict = {1}, wanted {2}: expected to break, but {3}")
	mUndeclaredBreak = msg.Define("run.undeclared-break", msg.K(msg.Text, msg.Text, msg.Sub),
		"{0}: verdict = breaks, wanted {1}: {2}")
	mWanted = msg.Define("run.wanted", msg.K(msg.Text, msg.Text, msg.Text, msg.Sub),
		"{0}: verdict = {1}, wanted {2}: {3}")
)
