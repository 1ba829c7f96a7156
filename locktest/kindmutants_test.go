package locktest_test

import (
	"slices"
	"testing"
	"time"

	"github.com/locklab/locklab/internal/kindmutants"
	"github.com/locklab/locklab/locktest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKindMutants proves the teeth of the properties of read-write locks
// and semaphores: on each mutant of kindmutants, every property of its
// kind that it declares as a killer breaks, with a timeline, where its
// base holds (or cannot stage it: a clock the base never reads), and
// every other one gives the verdict its base gives.
func TestKindMutants(t *testing.T) {
	t.Parallel()
	for _, m := range kindmutants.Mutants() {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			require.NotEmpty(t, m.Killers, "%s: no property declared to kill it", m.Name)
			base, ok := kindmutants.LookupVariant(m.Base)
			require.True(t, ok, "%s: no variant %q", m.Name, m.Base)
			props := locktest.KindProperties(m.Kind())
			for _, p := range m.Killers {
				require.Contains(t, props, p, "%s: a killer of another kind", m.Name)
			}
			want := map[locktest.Property]locktest.Verdict{}
			eachResult(kindVariantResults(t, base), props, func(p locktest.Property, res locktest.Result) {
				require.NoError(t, res.Err, "%s on %s", p, m.Base)
				want[p] = res.Verdict
			})
			checkEach(t, m.New, props, func(p locktest.Property, res locktest.Result) {
				switch {
				case res.Err != nil:
					t.Errorf("%s: no verdict: %v\n%s", p, res.Err, locktest.FormatTimeline(res.Timeline))
				case !slices.Contains(m.Killers, p) && locktest.Structural(p) && staged(want[p]) == staged(res.Verdict):
					// n/a on one, holds on the other: the slip adds or
					// removes a boundary to stage it at, and breaks nothing.
				case !slices.Contains(m.Killers, p):
					assert.Equal(t, want[p], res.Verdict, "%s, not a declared killer, differs from %s: %s", p, m.Base, res.Reason())
				case want[p] != locktest.Holds && !(want[p] == locktest.NotApplicable && locktest.Structural(p)):
					t.Errorf("%s: %s on the base %s, so it kills nothing", p, want[p], m.Base)
				case res.Verdict != locktest.Breaks:
					t.Errorf("%s survives %s: verdict = %s: %s", m.Name, p, res.Verdict, res.Reason())
				case len(res.Timeline) == 0:
					t.Errorf("%s breaks without a timeline: %s", p, res.Reason())
				default:
					t.Logf("%s: killed in %v: %s", p, res.Elapsed.Round(time.Millisecond), res.Reason())
				}
			})
		})
	}
}

// staged folds the verdicts of a structural property that break
// nothing: n/a (no boundary to stage it at) and holds.
func staged(v locktest.Verdict) locktest.Verdict {
	if v == locktest.NotApplicable {
		return locktest.Holds
	}
	return v
}

// TestKindVariants: a correct lock of a kind holds every property of its
// kind but reader-overrun, which it breaks as every lock without a lease
// does (one whose holds renew themselves, Renews, is not judged there,
// as TestCorrectVariants does not judge holder-overrun); it may be n/a
// only where the scenario cannot be staged on it.
func TestKindVariants(t *testing.T) {
	t.Parallel()
	for _, v := range kindmutants.Variants() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			eachResult(kindVariantResults(t, v), locktest.KindProperties(v.Kind), func(p locktest.Property, res locktest.Result) {
				if res.Err == nil && res.Verdict == locktest.NotApplicable && locktest.Structural(p) {
					t.Logf("%s: n/a: %s", p, res.Reason())
					return
				}
				t.Logf("%s: %s: %s", p, res.Verdict, res.Reason())
				if p == locktest.ReaderOverrun && v.Renews {
					// Its renewals keep A's read lock only while each comes
					// in time, which a loaded machine does not promise; with
					// no lease to tell A, a late one lets W in.
					t.Logf("%s: %s, not judged: %s", p, res.Verdict, res.Reason())
					return
				}
				if p == locktest.ReaderOverrun {
					// Without a lease, like every TTL lock on
					// holder-overrun.
					locktest.Report(t, res, locktest.Breaks)
					return
				}
				locktest.Report(t, res, locktest.Holds)
			})
		})
	}
}

// kindVariantResults are the results of every property of v's kind on v,
// run once for TestKindMutants and TestKindVariants.
func kindVariantResults(t *testing.T, v kindmutants.Variant) map[locktest.Property]locktest.Result {
	t.Helper()
	return variantResults(t, "kinds", v.Name, v.New, locktest.KindProperties(v.Kind))
}
