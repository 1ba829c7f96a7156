package locktest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/locktest/internal/buggy"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

func check(t *testing.T, f locktest.Factory, p locktest.Property, timeout time.Duration) locktest.Result {
	t.Helper()
	cfg := locktest.Config{Pool: redistest.Pool(t), New: f, Key: redistest.Key(t), Timeout: timeout}
	return locktest.Check(context.Background(), cfg, p)
}

// commands returns the commands of a timeline, one string each.
func commands(tl []locktest.Event) string {
	var b strings.Builder
	for _, e := range tl {
		if e.Kind == locktest.EvCommand {
			b.WriteString(e.Client + " " + strings.Join(e.Command, " ") + "\n")
		}
	}
	return b.String()
}

// TestSeededBugs proves the suite has teeth: each strategy with a seeded
// bug is caught, with a counterexample that shows the bug's effect.
func TestSeededBugs(t *testing.T) {
	tests := []struct {
		name   string
		new    locktest.Factory
		prop   locktest.Property
		reason string // what the verdict must say happened
		shows  string // a command the counterexample must contain
	}{
		{
			name: "release compares token lengths",
			new: func(p strategy.Pool, _ strategy.Clock) (strategy.Strategy, error) {
				return buggy.NewLengthCompare(p), nil
			},
			prop:   locktest.DoubleRelease,
			reason: "second release freed B's lock",
			shows:  "A EVALSHA",
		},
		{
			name: "release compares token lengths, late",
			new: func(p strategy.Pool, _ strategy.Clock) (strategy.Strategy, error) {
				return buggy.NewLengthCompare(p), nil
			},
			prop:   locktest.SafeRelease,
			reason: "late release freed B's lock",
			shows:  "A EVALSHA",
		},
		{
			name: "acquire on a stale read",
			new: func(p strategy.Pool, _ strategy.Clock) (strategy.Strategy, error) {
				return buggy.NewStaleRead(p), nil
			},
			prop:   locktest.StaleTakeoverRace,
			reason: "both took it over",
			shows:  "B SET K",
		},
		{
			name: "milliseconds passed as EX seconds",
			new: func(p strategy.Pool, _ strategy.Clock) (strategy.Strategy, error) {
				return buggy.NewUnitMix(p), nil
			},
			prop:   locktest.CrashRecovery,
			reason: "could not acquire it",
			shows:  "EX 60",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := check(t, tt.new, tt.prop, 0)
			require.NoError(t, res.Err)
			require.Equal(t, locktest.Breaks, res.Verdict, "%s: %s", tt.prop, res.Reason)
			assert.Contains(t, res.Reason, tt.reason)
			assert.Contains(t, commands(res.Timeline), tt.shows, "counterexample:\n%s", locktest.FormatTimeline(res.Timeline))
		})
	}
}

// panicky and hanging are strategies that misbehave.
type panicky struct{ inRelease bool }

func (p panicky) TryAcquire(context.Context, string, time.Duration) (strategy.Lock, error) {
	if p.inRelease {
		return panickyLock{}, nil
	}
	panic("boom in TryAcquire")
}

type panickyLock struct{}

func (panickyLock) Key() string                   { return "k" }
func (panickyLock) Release(context.Context) error { panic("boom in Release") }

type hanging struct{}

func (hanging) TryAcquire(context.Context, string, time.Duration) (strategy.Lock, error) {
	select {} // ignores its context too
}

type silent struct{}

func (silent) TryAcquire(context.Context, string, time.Duration) (strategy.Lock, error) {
	return nil, nil
}

// TestBadStrategies: a broken factory or strategy is a failure of the
// property with a clear message, and the suite never hangs.
func TestBadStrategies(t *testing.T) {
	tests := []struct {
		name    string
		new     locktest.Factory
		prop    locktest.Property
		timeout time.Duration
		want    string
	}{
		{"nil factory", nil, locktest.Exclusion, 0, "nil Factory"},
		{"factory returns nil", func(strategy.Pool, strategy.Clock) (strategy.Strategy, error) { return nil, nil }, locktest.Exclusion, 0, "nil Strategy"},
		{"factory fails", func(strategy.Pool, strategy.Clock) (strategy.Strategy, error) { return nil, errors.New("no config") }, locktest.DoubleRelease, 0, "factory: no config"},
		{"factory panics", func(strategy.Pool, strategy.Clock) (strategy.Strategy, error) { panic("boom in factory") }, locktest.DoubleRelease, 0, "boom in factory"},
		{"TryAcquire panics", func(strategy.Pool, strategy.Clock) (strategy.Strategy, error) { return panicky{}, nil }, locktest.Exclusion, 0, "panicked: boom in TryAcquire"},
		{"Release panics", func(strategy.Pool, strategy.Clock) (strategy.Strategy, error) { return panicky{inRelease: true}, nil }, locktest.DoubleRelease, 0, "Release panicked: boom in Release"},
		{"TryAcquire returns nothing", func(strategy.Pool, strategy.Clock) (strategy.Strategy, error) { return silent{}, nil }, locktest.CrashRecovery, 0, "neither a lock nor an error"},
		{"TryAcquire hangs", func(strategy.Pool, strategy.Clock) (strategy.Strategy, error) { return hanging{}, nil }, locktest.SafeRelease, time.Second, "watchdog"},
		{"TryAcquire hangs in a stale-lock scenario", func(strategy.Pool, strategy.Clock) (strategy.Strategy, error) { return hanging{}, nil }, locktest.StaleTakeoverRace, time.Second, "watchdog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res := check(t, tt.new, tt.prop, tt.timeout)
			require.Error(t, res.Err, "verdict %s: %s", res.Verdict, res.Reason)
			assert.Contains(t, res.Err.Error(), tt.want)
			assert.Less(t, time.Since(start), 10*time.Second)
			assert.Contains(t, locktest.Mismatch(res, locktest.Holds), "no verdict")
		})
	}
}

// TestMismatch: the strictness rules, both ways.
func TestMismatch(t *testing.T) {
	holds := locktest.Result{Property: locktest.SafeRelease, Verdict: locktest.Holds, Reason: "left in place"}
	breaks := locktest.Result{Property: locktest.SafeRelease, Verdict: locktest.Breaks, Reason: "freed",
		Timeline: []locktest.Event{{Client: "A", Kind: locktest.EvCommand, Command: []string{"DEL", "K"}, Reply: "1"}}}
	na := locktest.Result{Property: locktest.SafeRelease, Verdict: locktest.NotApplicable, Reason: "no expiry"}

	assert.Empty(t, locktest.Mismatch(holds, locktest.Holds))
	assert.Empty(t, locktest.Mismatch(breaks, locktest.Breaks))
	assert.Empty(t, locktest.Mismatch(na, locktest.NotApplicable))
	assert.Contains(t, locktest.Mismatch(holds, locktest.Breaks), "expected to break, but left in place")
	m := locktest.Mismatch(breaks, locktest.Holds)
	assert.Contains(t, m, "verdict = breaks, wanted holds")
	assert.Contains(t, m, "A DEL K -> 1", "an undeclared break shows its counterexample")
	assert.Contains(t, locktest.Mismatch(na, locktest.Holds), "verdict = n/a, wanted holds")
	assert.Contains(t, locktest.Mismatch(holds, locktest.NotApplicable), "verdict = holds, wanted n/a")
}

func TestExpect(t *testing.T) {
	e := locktest.Expect{Breaks: []locktest.Property{locktest.ClockSkew}, NotApplicable: []locktest.Property{locktest.CrashMidAcquire}}
	assert.Equal(t, locktest.Breaks, e.Verdict(locktest.ClockSkew))
	assert.Equal(t, locktest.NotApplicable, e.Verdict(locktest.CrashMidAcquire))
	assert.Equal(t, locktest.Holds, e.Verdict(locktest.Exclusion))
}

func TestParseProperty(t *testing.T) {
	for _, p := range locktest.Properties() {
		got, err := locktest.ParseProperty(string(p))
		require.NoError(t, err)
		assert.Equal(t, p, got)
	}
	_, err := locktest.ParseProperty("mutual-exclusion")
	assert.ErrorContains(t, err, `unknown property "mutual-exclusion"`)
}
