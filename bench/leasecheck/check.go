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
	"fmt"
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
	TwoHolders  = "two holders"             // a grant while another lease certainly stood
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
// checks (0: no limit). The critical section and the lock are separate
// objects, checked apart (linearizability is local), the lock first; a
// lock history that the strict model rejects is checked again under the
// safety model to tell a double grant from a refusal of a free lock.
func Check(h History, timeout time.Duration) Verdict {
	start := time.Now()
	var lock, section []porcupine.Operation
	clients := map[string]int{}
	for _, op := range h.Ops {
		id, ok := clients[op.Client]
		if !ok {
			id = len(clients)
			clients[op.Client] = id
		}
		o := porcupine.Operation{ClientId: id, Input: input{op: op, tol: h.Tol}, Call: int64(op.Call), Return: int64(op.Return)}
		if op.Kind == Enter || op.Kind == Leave {
			section = append(section, o)
		} else {
			lock = append(lock, o)
		}
	}
	v := Verdict{Legal: true, Ops: len(h.Ops)}
	decide := func(ops []porcupine.Operation, mode Mode, broken string) bool {
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
	switch {
	case !decide(lock, Strict, FreeRefused):
		decide(lock, Safety, TwoHolders)
	default:
		decide(section, Strict, TwoInside)
	}
	v.Elapsed = time.Since(start)
	return v
}
