package bench

import (
	"fmt"
	"math"
	"strconv"
)

// Target thresholds set for luatoken.
const (
	MaxFloorRatio    = 1.15 // uncontended p50 at most this many times 2×PING
	MaxHandoffPings  = 4.0  // woken-on-release hand-off p50 in PINGs
	MinHandoffGain   = 5.0  // woken-on-release hand-off p50 against each peer's
	targetAllocsPeer = Redislock
	// The adapters: uncontended p50 at most this many times their commands
	// sent by hand through the same client. (Pairs per second against the
	// peers are compared on the same client only: see sameClientTargets.)
	MaxHandRatio = 1.05
)

// Target names, as in Report.Targets.
const (
	TargetFloor          = "luatoken uncontended p50 / (2 × PING p50)"
	TargetHandoff        = "woken-on-release hand-off p50 / PING p50"
	TargetHandoffVsPeer  = "%s (default retry) hand-off p50 / woken-on-release hand-off p50"
	TargetAllocs         = "luatoken allocations per acquire + release vs redislock"
	TargetAdapterHand    = "%s uncontended p50 / its commands by hand through %s"
	TargetAdapterAllocs  = "%s allocations per acquire + release vs the peers"
	notMeasured          = "not measured in this run"
	targetsNotifyMissing = "luatoken+notify is not in this build"
)

// Targets checks the goals against a report. A target whose figures are
// missing is listed as not met, with a note saying why.
func Targets(rep *Report) []Target {
	var ts []Target
	lt := rep.Row(Locklab)
	get := func(r *Row, v func(*Row) *float64) (float64, bool) {
		if r == nil || v(r) == nil {
			return 0, false
		}
		return *v(r), true
	}
	add := func(name, want string, limit, got float64, ok bool, met func(float64) bool, note string) {
		t := Target{Name: name, Want: want, Limit: limit, Note: note}
		if ok && !math.IsInf(got, 0) && !math.IsNaN(got) {
			t.Got = got
			t.Met = met(got)
		} else if t.Note == "" {
			t.Note = notMeasured
		}
		ts = append(ts, t)
	}
	// spread gives the target just added its spread, if it was measured.
	spread := func(sp *Spread) {
		if t := &ts[len(ts)-1]; t.Note != notMeasured && sp != nil && len(sp.Rounds) > 0 {
			t.Spread = sp
		}
	}

	fr, ok := get(lt, func(r *Row) *float64 { return r.FloorRatio })
	floorNote := ""
	if p50, okP := get(lt, func(r *Row) *float64 { return r.UncontendedP50us }); okP && ok {
		if fl := rep.Floor(ClientRedigo); fl != nil {
			floorNote = fmt.Sprintf("%.1fµs vs 2 × %.1fµs", p50, fl.PingP50us)
			if fl.SetDelP50us > 0 {
				floorNote += fmt.Sprintf("; %.2f× SET NX PX · DEL (%.1fµs)", p50/fl.SetDelP50us, fl.SetDelP50us)
			}
		}
	}
	add(TargetFloor, fmt.Sprintf("≤ %.2f", MaxFloorRatio), MaxFloorRatio, fr, ok,
		func(g float64) bool { return g <= MaxFloorRatio }, floorNote)
	if lt != nil {
		spread(lt.FloorRatioSpread)
	}

	notify := rep.Row(RowName(NotifyName, WaitNotify))
	hp, okN := get(notify, func(r *Row) *float64 { return r.HandoffP50us })
	note := ""
	if rep.Row(NotifyName) == nil {
		note = targetsNotifyMissing
	}
	ping := rep.PingP50us
	nc := rep.contendedOf(NotifyName, WaitNotify, rep.Settings.Contenders)
	handText := func(c *ContendedRow, v float64) string {
		if c != nil {
			return c.HandoffP50us.Text("%.0f") + "µs"
		}
		return fmt.Sprintf("%.1fµs", v)
	}
	add(TargetHandoff, fmt.Sprintf("≤ %.0f", MaxHandoffPings), MaxHandoffPings, hp/ping, okN && ping > 0,
		func(g float64) bool { return g <= MaxHandoffPings },
		noteOr(note, fmt.Sprintf("%s vs PING %.1fµs", handText(nc, hp), ping)))
	if nc != nil && ping > 0 {
		pings := make([]float64, len(nc.HandoffP50us.Rounds))
		for i := range pings {
			pings[i] = ping
		}
		spread(ptr(ratioSpread(nc.HandoffP50us.Rounds, pings)))
	}
	for _, peer := range []struct{ name, wait string }{{Redsync, WaitRedsync}, {Redislock, WaitRedislock}} {
		pp, okP := get(rep.Row(RowName(peer.name, peer.wait)), func(r *Row) *float64 { return r.HandoffP50us })
		pc := rep.contendedOf(peer.name, peer.wait, rep.Settings.Contenders)
		// With spreads, a gain counts only where the rounds do not overlap.
		apart := pc == nil || nc == nil || !pc.HandoffP50us.Overlaps(nc.HandoffP50us)
		detail := fmt.Sprintf("%s vs %s", handText(pc, pp), handText(nc, hp))
		if !apart {
			detail += ": no difference measured"
		}
		add(fmt.Sprintf(TargetHandoffVsPeer, peer.name), fmt.Sprintf("≥ %.0f×", MinHandoffGain), MinHandoffGain, pp/hp, okN && okP && hp > 0,
			func(g float64) bool { return g >= MinHandoffGain && apart },
			noteOr(note, detail))
		if pc != nil && nc != nil {
			spread(ptr(ratioSpread(pc.HandoffP50us.Rounds, nc.HandoffP50us.Rounds)))
		}
	}

	la, okL := get(lt, func(r *Row) *float64 { return r.AllocsPerOp })
	ra, okR := get(rep.Row(targetAllocsPeer), func(r *Row) *float64 { return r.AllocsPerOp })
	add(TargetAllocs, fmt.Sprintf("≤ %.1f", ra), ra, la, okL && okR,
		func(g float64) bool { return g <= ra },
		fmt.Sprintf("%.1f vs %.1f allocations", la, ra))
	ts[len(ts)-1].Count = true

	// The adapters.
	for _, name := range Adapters {
		row := rep.Row(name)
		client := Find(Subjects(), name).Client
		hr, ok := get(row, func(r *Row) *float64 { return r.HandRatio })
		note := ""
		if p50, okP := get(row, func(r *Row) *float64 { return r.UncontendedP50us }); okP && ok {
			if fl := rep.Floor(client); fl != nil && fl.SetEvalP50us != nil {
				note = fmt.Sprintf("%.1fµs vs %.1fµs", p50, *fl.SetEvalP50us)
				if fx := fl.SetEvalFixedP50us; fx != nil {
					note += fmt.Sprintf("; %.2f× the same with one fixed token (%.1fµs)", p50 / *fx, *fx)
				}
			}
		}
		add(fmt.Sprintf(TargetAdapterHand, name, client), fmt.Sprintf("≤ %.2f", MaxHandRatio), MaxHandRatio, hr, ok,
			func(g float64) bool { return g <= MaxHandRatio }, note)
		if row != nil {
			spread(row.HandRatioSpread)
		}
	}
	peerAllocs, okP := 0.0, true
	for i, peer := range []string{Redsync, Redislock} {
		v, ok := get(rep.Row(peer), func(r *Row) *float64 { return r.AllocsPerOp })
		okP = okP && ok
		if i == 0 || v < peerAllocs {
			peerAllocs = v
		}
	}
	for _, name := range Adapters {
		a, ok := get(rep.Row(name), func(r *Row) *float64 { return r.AllocsPerOp })
		add(fmt.Sprintf(TargetAdapterAllocs, name), fmt.Sprintf("≤ %.1f", peerAllocs), peerAllocs, a, ok && okP,
			func(g float64) bool { return g <= peerAllocs },
			fmt.Sprintf("%.1f vs the fewer of the peers' %.1f", a, peerAllocs))
		ts[len(ts)-1].Count = true
	}
	return append(ts, sameClientTargets(rep)...)
}

func noteOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// GotText prints what the run got with two decimals, or more when two would
// make it look equal to the limit it was measured against.
func (t *Target) GotText() string {
	for prec := 2; ; prec++ {
		got := strconv.FormatFloat(t.Got, 'f', prec, 64)
		if t.Got == t.Limit || got != strconv.FormatFloat(t.Limit, 'f', prec, 64) || prec == 6 {
			return got
		}
	}
}

// Mark is ✓ for a met target and ✗ otherwise.
func Mark(met bool) string {
	if met {
		return "✓"
	}
	return "✗"
}

// target returns the target called name, or nil.
func (r *Report) target(name string) *Target {
	for i := range r.Targets {
		if r.Targets[i].Name == name {
			return &r.Targets[i]
		}
	}
	return nil
}

// SpreadText prints the range of the target's figure over its rounds, or
// says that it is a count, the same every time.
func (t *Target) SpreadText() string {
	switch {
	case t.Count:
		return "a count"
	case t.Spread == nil:
		return "–"
	}
	return fmt.Sprintf("%.2f–%.2f", t.Spread.Min, t.Spread.Max)
}
