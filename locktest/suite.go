package locktest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
)

// Expect declares a strategy's weaknesses, negatively: every property not
// listed is expected to hold. A declared break is not skipped: the suite
// must reproduce it, and fails when the property holds instead.
type Expect struct {
	// Breaks lists the properties the strategy is known to break.
	Breaks []Property
	// NotApplicable lists the properties whose scenario cannot arise for
	// the strategy (a crash between the commands of a one-command acquire).
	NotApplicable []Property
}

// Verdict returns the verdict e expects for p.
func (e Expect) Verdict(p Property) Verdict {
	switch {
	case slices.Contains(e.Breaks, p):
		return Breaks
	case slices.Contains(e.NotApplicable, p):
		return NotApplicable
	}
	return Holds
}

// Run runs every property against the strategy newStrategy builds, each as
// a subtest named after the property, in the order of Properties, on the
// real Redis that package redistest provides. A verdict that differs from
// expect fails the subtest, with the counterexample of any break.
//
// Call it from a strategy's test file:
//
//	func TestConformance(t *testing.T) {
//		locktest.Run(t, func(p strategy.Pool, _ strategy.Clock) (strategy.Strategy, error) {
//			return mylock.New(p)
//		}, locktest.Expect{Breaks: []locktest.Property{locktest.HolderOverrun}})
//	}
func Run(t *testing.T, newStrategy Factory, expect Expect) {
	t.Helper()
	RunProperties(t, newStrategy, expect, Properties()...)
}

// RunProperties is Run for the given properties only.
func RunProperties(t *testing.T, newStrategy Factory, expect Expect, props ...Property) {
	t.Helper()
	pool := redistest.Pool(t)
	key := redistest.Key(t)
	for _, p := range props {
		t.Run(string(p), func(t *testing.T) {
			res := Check(context.Background(), Config{Pool: pool, New: newStrategy, Key: key}, p)
			Report(t, res, expect.Verdict(p))
		})
	}
}

// Report fails t when res is not the verdict wanted, with the reason and,
// for a break, the timeline; otherwise it logs the verdict.
func Report(t testing.TB, res Result, want Verdict) {
	t.Helper()
	if msg := Mismatch(res, want); msg != "" {
		t.Error(msg)
		return
	}
	t.Logf("%s: %s as expected (%v): %s", res.Property, res.Verdict, res.Elapsed.Round(time.Millisecond), res.Reason)
}

// Mismatch describes how res differs from the verdict wanted, or returns ""
// when it does not. A run without a verdict is always a mismatch.
func Mismatch(res Result, want Verdict) string {
	switch {
	case res.Err != nil:
		return fmt.Sprintf("%s: no verdict: %v\n%s", res.Property, res.Err, FormatTimeline(res.Timeline))
	case res.Verdict == want:
		return ""
	case want == Breaks:
		return fmt.Sprintf("%s: verdict = %s, wanted %s: expected to break, but %s", res.Property, res.Verdict, want, res.Reason)
	case res.Verdict == Breaks:
		return fmt.Sprintf("%s: verdict = breaks, wanted %s: %s\ncounterexample:\n%s", res.Property, want, res.Reason, FormatTimeline(res.Timeline))
	default:
		return fmt.Sprintf("%s: verdict = %s, wanted %s: %s", res.Property, res.Verdict, want, res.Reason)
	}
}
