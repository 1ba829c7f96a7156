package bench

import (
	"testing"
	"time"
)

func TestSpreadOf(t *testing.T) {
	for _, tc := range []struct {
		in            []float64
		med, min, max float64
	}{
		{[]float64{3, 1, 2}, 2, 1, 3},
		{[]float64{4, 1, 3, 2}, 2.5, 1, 4},
		{[]float64{5}, 5, 5, 5},
	} {
		sp := spreadOf(tc.in)
		if sp.Median != tc.med || sp.Min != tc.min || sp.Max != tc.max {
			t.Errorf("spreadOf(%v) = %v (%v–%v), want %v (%v–%v)", tc.in, sp.Median, sp.Min, sp.Max, tc.med, tc.min, tc.max)
		}
	}
	if sp := spreadOf(nil); sp.Text("%.0f") != "–" {
		t.Errorf("an empty spread prints %q", sp.Text("%.0f"))
	}
}

// A ratio is given only where the rounds do not overlap.
func TestSpreadRatio(t *testing.T) {
	a, b, c := spreadOf([]float64{10, 11, 12}), spreadOf([]float64{1, 2, 3}), spreadOf([]float64{2.5, 11, 20})
	if got := spreadRatio(a, b); got != "5.50×" {
		t.Errorf("apart: %q, want 5.50×", got)
	}
	if got := spreadRatio(a, c); got != "no difference measured" {
		t.Errorf("overlapping: %q", got)
	}
	if got := spreadRatio(a, Spread{}); got != "–" {
		t.Errorf("against nothing: %q", got)
	}
	r := ratioSpread([]float64{2, 6, 9}, []float64{1, 2, 3})
	if r.Min != 2 || r.Max != 3 || r.Median != 3 {
		t.Errorf("ratioSpread: %+v", r)
	}
}

func TestRetryEvery(t *testing.T) {
	for _, d := range DefaultSweepDelays {
		got, ok := retryEvery(RetryEvery(d))
		if !ok || got != d {
			t.Errorf("retryEvery(RetryEvery(%v)) = %v, %v", d, got, ok)
		}
	}
	for _, w := range []string{WaitRedsync, WaitRedislock, "", everyPrefix + "soon", everyPrefix + "0s"} {
		if _, ok := retryEvery(w); ok {
			t.Errorf("retryEvery(%q) read a delay", w)
		}
	}
}

// contendedRow sums rounds up: per-round rates, per-round quantiles.
func TestContendedRow(t *testing.T) {
	s := &Subject{Name: Redsync, Client: ClientRedigo}
	ms := time.Millisecond
	rounds := []contendedResult{
		{cs: 10, commands: 40, calls: 70, lat: Durations{ms, 2 * ms, 3 * ms}},
		{cs: 20, commands: 60, calls: 100, lat: Durations{4 * ms}, gaveUp: 1},
	}
	row := contendedRow(s, RetryEvery(5*ms), 8, time.Second, rounds)
	if row.RetryDelayMs != 5 || row.Waiters != 8 || row.Handoffs != 4 || row.GaveUp != 1 {
		t.Errorf("row: %+v", row)
	}
	if row.CSPerS.Min != 10 || row.CSPerS.Max != 20 {
		t.Errorf("critical sections/s: %+v", row.CSPerS)
	}
	if row.CommandsPerCS.Min != 3 || row.CommandsPerCS.Max != 4 {
		t.Errorf("commands per CS: %+v", row.CommandsPerCS)
	}
	if row.HandoffP50us.Min != 2000 || row.HandoffP50us.Max != 4000 {
		t.Errorf("hand-off p50: %+v", row.HandoffP50us)
	}
}

// The hand-off targets count as met only where the spreads are apart.
func TestHandoffTargetNeedsSpreadsApart(t *testing.T) {
	mk := func(subject, wait string, p50s ...float64) ContendedRow {
		return ContendedRow{Subject: subject, Wait: wait, Waiters: 8, HandoffP50us: spreadOf(p50s)}
	}
	for _, tc := range []struct {
		name string
		peer []float64
		met  bool
	}{
		{"apart", []float64{900, 1000, 1100}, true},
		{"overlapping", []float64{90, 1000, 1100}, false},
	} {
		rep := &Report{Settings: Settings{Contenders: 8}, PingP50us: 50}
		rep.Contended = []ContendedRow{mk(NotifyName, WaitNotify, 80, 100, 120), mk(Redsync, WaitRedsync, tc.peer...)}
		for _, c := range rep.Contended {
			rep.Rows = append(rep.Rows, Row{Name: c.Name(), Subject: c.Subject, Wait: c.Wait, HandoffP50us: f(c.HandoffP50us.Median)})
		}
		rep.Rows = append(rep.Rows, Row{Name: NotifyName, Subject: NotifyName})
		tg := Targets(rep)
		var got *Target
		for i := range tg {
			if tg[i].Name == "redsync (default retry) hand-off p50 / woken-on-release hand-off p50" {
				got = &tg[i]
			}
		}
		if got == nil {
			t.Fatalf("%s: no target", tc.name)
		}
		if got.Met != tc.met || got.Spread == nil {
			t.Errorf("%s: met %v (spread %v), want %v; %s", tc.name, got.Met, got.Spread, tc.met, got.Note)
		}
	}
}
