// Package leasecheck checks the histories of the conformance suite's
// runs with porcupine, a linearizability checker written outside
// locklab, against a lease-lock model of its own (model.go): an
// independent check of the suite's judge. It reads a run's history two
// ways: the timeline a Result keeps (a break's, history.Event), and the
// lock calls a recording factory saw (record.go), which it keeps for
// every run, holds included.
//
// It is part of the bench module so that the core module never
// downloads porcupine.
package leasecheck

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// History is one run's operations on one key.
type History struct {
	Key string // the run's key
	Ops []Op
	// Tol is how far past its TTL a lease may still stand: the lock's
	// rounding of times (Redis counts expiries in milliseconds, a
	// timestamp lock compares whole milliseconds).
	Tol time.Duration
	// Timeline says that Ops come from the suite's own timeline (a
	// Result's), which has the critical section; else from the
	// recording factory.
	Timeline bool
}

// Verdict is porcupine's decision on one history.
type Verdict struct {
	Legal bool
	// Broken says what made it illegal: TwoHolders, FreeRefused or
	// TwoInside.
	Broken string
	// Unknown: porcupine ran out of time before deciding.
	Unknown bool
	Ops     int
	Elapsed time.Duration
}

// What makes a history illegal.
const (
	TwoHolders  = "two holders"             // a grant while another lease certainly stood, or a refresh of a lease that was gone
	FreeRefused = "refused a free lock"     // a refusal when no lease could stand
	TwoInside   = "two in critical section" // an enter while another client was inside
)

// String is "legal", "illegal (why)" or "unknown".
func (v Verdict) String() string {
	switch {
	case v.Unknown:
		return "unknown"
	case v.Legal:
		return "legal"
	}
	return fmt.Sprintf("illegal (%s)", v.Broken)
}

// Check decides h with porcupine, within timeout for each of its
// searches (0: no limit). The critical section and the lock are
// separate objects, checked apart (linearizability is local), the lock
// first (see lock).
func Check(h History, timeout time.Duration) Verdict {
	start := time.Now()
	var grants, lock, section []porcupine.Operation
	clients := map[string]int{}
	granted := map[string]time.Duration{} // the return of each hold's last grant
	for _, op := range h.Ops {
		switch {
		case op.Kind == Acquire && op.Outcome != Refused:
			granted[op.holder()] = op.Return
		case op.Kind == Release || op.Kind == Refresh:
			// A hold's release follows its grant; in a history whose
			// times tie (the closed intervals of porcupine overlap), it
			// could be put first, as a release of someone else's.
			if at, ok := granted[op.holder()]; ok && op.Call <= at && at < Never {
				op.Call = at + 1
			}
		}
		id, ok := clients[op.Client]
		if !ok {
			id = len(clients)
			clients[op.Client] = id
		}
		o := porcupine.Operation{ClientId: id, Input: input{op: op, tol: h.Tol}, Call: int64(op.Call), Return: int64(op.Return)}
		switch {
		case op.Kind == Enter || op.Kind == Leave:
			section = append(section, o)
		case op.Kind == Acquire && op.Outcome == Refused:
			lock = append(lock, o)
		default:
			grants, lock = append(grants, o), append(lock, o)
		}
	}
	v := Verdict{Legal: true, Ops: len(h.Ops)}
	if v.lock(grants, lock, h, timeout) {
		v.decide(section, Strict, TwoInside, timeout)
	}
	v.Elapsed = time.Since(start)
	return v
}

// decide checks ops under mode: false, and v illegal for broken, when
// porcupine finds no linearization.
func (v *Verdict) decide(ops []porcupine.Operation, mode Mode, broken string, timeout time.Duration) bool {
	if len(ops) == 0 {
		return true
	}
	switch porcupine.CheckOperationsTimeout(model(mode), ops, timeout) {
	case porcupine.Illegal:
		v.Legal, v.Broken = false, broken
		return false
	case porcupine.Unknown:
		v.Unknown = true
	}
	return true
}

// lock decides the lock's operations, all of them (refusals included)
// or only the grants, releases and refreshes, and says whether it found
// them legal. Porcupine first linearizes the grants under the safety
// model, where refusals would change nothing (a second holder is found
// here). When the linearization it finds leaves room for every refusal,
// the strict model is satisfied too; when a refusal meets no lease that
// could stand at any time between its call and its return, no
// linearization has room for it. Only otherwise does porcupine search
// with the refusals, whose every subset pending around a wrong guess is
// a state of its own: with 32 clients, a search it may not finish.
func (v *Verdict) lock(grants, all []porcupine.Operation, h History, timeout time.Duration) bool {
	res, info := porcupine.CheckOperationsVerbose(model(Safety), grants, timeout)
	switch res {
	case porcupine.Illegal:
		v.Legal, v.Broken = false, TwoHolders
		return false
	case porcupine.Unknown:
		v.Unknown = true
	case porcupine.Ok:
		if explained(grants, info, all) {
			return true
		}
	}
	if !refusalsFit(windows(h), all) {
		v.Legal, v.Broken = false, FreeRefused
		return false
	}
	return v.decide(all, Strict, FreeRefused, timeout)
}

// windows are the times each lease of h could stand, in any
// linearization: from its grant's call (or an acquire's of unknown
// outcome) until its hi, or the return of the release that freed it,
// pushed on by the refreshes that may have extended it; in the order of
// their starts.
func windows(h History) []span {
	var out []span
	open := map[string]int{}
	ops := slices.Clone(h.Ops)
	slices.SortStableFunc(ops, func(a, b Op) int { return cmp.Compare(a.Call, b.Call) })
	for _, op := range ops {
		i, held := open[op.holder()]
		switch {
		case op.Kind == Acquire && op.Outcome != Refused:
			out = append(out, span{op.Call, end(op.Return, op.TTL, h.Tol, op.Renews)})
			open[op.holder()] = len(out) - 1
		case op.Kind == Release && held && op.Outcome != Unknown:
			out[i].until = min(out[i].until, op.Return)
			delete(open, op.holder())
		case op.Kind == Refresh && held && op.Outcome != Refused:
			out[i].until = max(out[i].until, end(op.Return, op.TTL, h.Tol, op.Renews))
		}
	}
	return out
}

// explained says whether every refusal among ops falls, at a moment
// between its call and its return, within a hold of the linearization
// of grants that info holds, its times those the model gives: then the
// refusals can be put into it at those moments, and the whole is a
// linearization of the strict model. False says nothing: another
// linearization might have room for them.
func explained(grants []porcupine.Operation, info porcupine.LinearizationInfo, ops []porcupine.Operation) bool {
	lins := info.PartialLinearizations()
	if len(lins) != 1 {
		return false
	}
	var order []int
	for _, l := range lins[0] {
		if len(l) == len(grants) {
			order = l
			break
		}
	}
	if order == nil {
		return false
	}
	// Replay the order, each possible state with the holds it closed
	// and the latest each may have ended: a release takes effect at the
	// earliest in the model, but may have at any time until its return,
	// as long as the next grant came after it.
	type path struct {
		s      state
		holds  []span
		latest []time.Duration
	}
	paths := []path{{}}
	for _, i := range order {
		in := grants[i].Input.(input)
		var next []path
		for _, p := range paths {
			for _, n := range step(p.s, in, Safety) {
				ns := n.(state)
				holds, latest := p.holds, p.latest
				if p.s.holder != "" && (ns.holder != p.s.holder || ns.since != p.s.since) {
					end := min(p.s.hi, ns.now)
					late := end
					if in.op.Kind == Release {
						late = min(p.s.hi, in.op.Return)
					}
					holds, latest = append(slices.Clip(holds), span{p.s.since, end}), append(slices.Clip(latest), late)
				}
				next = append(next, path{ns, holds, latest})
			}
		}
		paths = next
	}
	for _, p := range paths {
		holds := slices.Clone(p.holds)
		if p.s.holder != "" {
			holds = append(holds, span{p.s.since, p.s.hi})
		}
		for k, late := range p.latest {
			until := late
			if k+1 < len(holds) {
				until = min(until, holds[k+1].from)
			}
			holds[k].until = max(holds[k].until, until)
		}
		if refusalsFit(holds, ops) {
			return true
		}
	}
	return false
}

// refusalsFit says whether each refusal among ops meets one of holds
// between its call and its return; holds are in the order of their
// starts.
func refusalsFit(holds []span, ops []porcupine.Operation) bool {
	for _, o := range ops {
		op := o.Input.(input).op
		if op.Kind != Acquire || op.Outcome != Refused {
			continue
		}
		// The holds that begin before the return.
		n, _ := slices.BinarySearchFunc(holds, op.Return, func(h span, ret time.Duration) int { return cmp.Compare(h.from, ret+1) })
		if !slices.ContainsFunc(holds[:n], func(h span) bool {
			at := max(h.from, op.Call)
			return at < h.until && at <= op.Return
		}) {
			return false
		}
	}
	return true
}
