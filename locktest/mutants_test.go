package locktest_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/locklab/locklab/internal/mutants"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// overrun are the properties that no TTL lock without renewal or fencing
// can hold, the correct one included.
var overrun = []locktest.Property{locktest.HolderOverrun, locktest.FencedOverrun, locktest.RenewedOverrun}

// mutant returns the mutant of the corpus named name.
func mutant(t *testing.T, name string) mutants.Mutant {
	t.Helper()
	m, ok := mutants.Lookup(name)
	require.True(t, ok, "no mutant %q in the corpus", name)
	return m
}

// TestMutants proves the suite's teeth: every property declared to kill a
// mutant breaks on it, with a counterexample. A kill by error does not
// count.
func TestMutants(t *testing.T) {
	t.Parallel()
	for _, m := range mutants.Mutants() {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			require.NotEmpty(t, m.Killers, "%s: no property declared to kill it", m.Name)
			if m.Base != "" {
				// The slip's doing, not the base's: the base holds each killer.
				base, ok := mutants.LookupVariant(m.Base)
				require.True(t, ok, "%s: no variant %q", m.Name, m.Base)
				eachResult(mutexVariantResults(t, base), m.Killers, func(p locktest.Property, res locktest.Result) {
					locktest.Report(t, res, locktest.Holds)
				})
			}
			checkEach(t, m.New, m.Killers, func(p locktest.Property, res locktest.Result) {
				switch {
				case res.Err != nil:
					t.Errorf("%s survives %s: no verdict: %v\n%s", m.Name, p, res.Err, locktest.FormatTimeline(res.Timeline))
				case res.Verdict != locktest.Breaks:
					t.Errorf("%s survives %s: verdict = %s, wanted breaks: %s", m.Name, p, res.Verdict, res.Reason())
				case len(res.Timeline) == 0:
					t.Errorf("%s: %s breaks without a timeline: %s", m.Name, p, res.Reason())
				default:
					t.Logf("%s: killed in %v: %s", p, res.Elapsed.Round(time.Millisecond), res.Reason())
				}
			})
		})
	}
}

// TestCorrectVariants proves the suite raises no false alarm: a correct
// lock written an unusual way breaks nothing but the overrun properties,
// which it must break like every TTL lock; it may be n/a only where the
// scenario cannot be staged on it.
func TestCorrectVariants(t *testing.T) {
	t.Parallel()
	for _, v := range mutants.Variants() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			eachResult(mutexVariantResults(t, v), locktest.Properties(), func(p locktest.Property, res locktest.Result) {
				want := locktest.Holds
				if v.Renews && p == locktest.HolderOverrun {
					// Its renewals keep A's lock only while each comes in
					// time, which a loaded machine does not promise; with
					// no lease to tell A, a late one lets B in.
					t.Logf("%s: %s, not judged: %s", p, res.Verdict, res.Reason())
					return
				}
				if slices.Contains(overrun, p) && !(v.Fenced && p == locktest.FencedOverrun) {
					want = locktest.Breaks
				}
				if res.Err == nil && res.Verdict == locktest.NotApplicable && locktest.Structural(p) {
					t.Logf("%s: n/a: %s", p, res.Reason())
					return
				}
				locktest.Report(t, res, want)
			})
		})
	}
}

// TestMutantsSweep runs every property on every mutant, and checks that
// the declared killers are exactly the properties that break it beyond
// what they break on the correct lock (the overrun properties); a property
// without a verdict is no kill (see the mutant's Gap). It takes a few
// minutes with -race: set LOCKLAB_MUTANTS_SWEEP=1 to run it.
func TestMutantsSweep(t *testing.T) {
	if os.Getenv("LOCKLAB_MUTANTS_SWEEP") == "" {
		t.Skip("set LOCKLAB_MUTANTS_SWEEP=1 to run every property on every mutant")
	}
	for _, m := range mutants.Mutants() {
		t.Run(m.Name, func(t *testing.T) {
			var broke []locktest.Property
			checkEach(t, m.New, locktest.Properties(), func(p locktest.Property, res locktest.Result) {
				t.Logf("%-20s %-6s %5dms %s", p, res.Verdict, res.Elapsed.Milliseconds(), res.Reason())
				if res.Err != nil && slices.Contains(m.Killers, p) {
					t.Errorf("%s: %s: no verdict: %v", m.Name, p, res.Err)
				}
				exempt := slices.Contains(overrun, p)
				if v, ok := mutants.LookupVariant(m.Base); ok && v.Fenced && p == locktest.FencedOverrun {
					exempt = false // its base holds it
				}
				if res.Verdict == locktest.Breaks && !exempt {
					broke = append(broke, p)
				}
			})
			// A killer among the topology properties (failover) runs on
			// servers of its own, not in this sweep of one server's.
			run := slices.DeleteFunc(slices.Clone(m.Killers), func(p locktest.Property) bool {
				return !slices.Contains(locktest.Properties(), p)
			})
			assert.ElementsMatch(t, run, broke, "%s: declared killers (first) and the properties that broke it", m.Name)
		})
	}
}

// TestSurvivors keeps the list of the suite's known blind spots honest:
// each survivor still breaks nothing but the overrun properties. When a
// property kills one, it moves to Mutants with that property declared.
func TestSurvivors(t *testing.T) {
	for _, m := range mutants.Survivors() {
		t.Run(m.Name, func(t *testing.T) {
			checkEach(t, m.New, locktest.Properties(), func(p locktest.Property, res locktest.Result) {
				switch {
				case res.Err != nil:
					t.Errorf("%s: %s: no verdict: %v", m.Name, p, res.Err)
				case res.Verdict == locktest.Breaks && !slices.Contains(overrun, p):
					t.Errorf("%s is killed by %s now (%s): move it into Mutants with %s among its killers", m.Name, p, res.Reason(), p)
				}
			})
		})
	}
}

// mutexVariantResults are the results of every property on v, run once
// for TestMutants and TestCorrectVariants.
func mutexVariantResults(t *testing.T, v mutants.Variant) map[locktest.Property]locktest.Result {
	t.Helper()
	return variantResults(t, "mutex", v.Name, v.New, locktest.Properties())
}

// checkEach runs each of props on the lock newLock builds, on a key of
// t's, and hands each result to see.
func checkEach(t *testing.T, newLock locktest.Factory, props []locktest.Property, see func(locktest.Property, locktest.Result)) {
	t.Helper()
	cfg := locktest.Config{Addr: redistest.Shared(t).Addr, New: newLock, Key: redistest.Key(t)}
	for _, p := range props {
		see(p, locktest.Check(context.Background(), cfg, p))
	}
}

// TestUnexpiredReasons: when nobody else can take a lock whose TTL has
// passed, the reason says what K shows, never more. A lock without expiry
// (no-expiry) is said to never expire; one whose waiters keep pushing its
// expiry back (multi-setnx-pexpire, whose failed attempts PEXPIRE the
// holder's key) still expires, and is not said to never expire.
// (holder-overrun goes on to poll slowly, and breaks multi-setnx-pexpire:
// TestWaiterRenewsHolder.)
func TestUnexpiredReasons(t *testing.T) {
	for _, tt := range []struct {
		mutant string
		props  []locktest.Property
		want   string
	}{
		{"no-expiry", []locktest.Property{locktest.SafeRelease, locktest.HolderOverrun, locktest.FencedOverrun, locktest.RenewedOverrun},
			"K has no expiry, so the lock never expires"},
		{"multi-setnx-pexpire", []locktest.Property{locktest.SafeRelease, locktest.FencedOverrun, locktest.RenewedOverrun},
			"its expiry was set longer than asked, or pushed back since"},
	} {
		t.Run(tt.mutant, func(t *testing.T) {
			checkEach(t, mutant(t, tt.mutant).New, tt.props, func(p locktest.Property, res locktest.Result) {
				require.NoError(t, res.Err, "%s", p)
				assert.Equal(t, locktest.NotApplicable, res.Verdict, "%s: %s", p, res.Reason())
				assert.Contains(t, res.Reason(), tt.want, "%s", p)
				assert.Regexp(t, `^nobody else acquired the lock while A (was paused|overran)`, res.Reason(), "%s", p)
			})
		})
	}
}

// TestWaiterRenewsHolder: a lock whose failed attempts renew the holder's
// key (multi-setnx-pexpire) keeps out a waiter that polls often, and
// holder-overrun then polls with the holder's TTL, less often than it:
// the key expires while A still works and B gets in.
func TestWaiterRenewsHolder(t *testing.T) {
	checkEach(t, mutant(t, "multi-setnx-pexpire").New, []locktest.Property{locktest.HolderOverrun}, func(p locktest.Property, res locktest.Result) {
		require.NoError(t, res.Err)
		assert.Equal(t, locktest.Breaks, res.Verdict, res.Reason())
		assert.Contains(t, res.Reason(), "B's own failed attempts had kept A's key alive")
		assert.NotEmpty(t, res.Timeline)
	})
}
