package explore

import (
	"slices"
	"sync"
	"time"

	"github.com/locklab/locklab/locktest/internal/harness"
)

// Tries is how often a plan of the shrinking is run, at once. A
// candidate is kept when the violation comes back in Keep of them at
// least, so that a candidate that failed once by luck is not, and in
// about as many as it came back in the plans kept before it (keeps), so
// that shrinking does not trade how often a counterexample reproduces
// for its size.
const (
	Tries = 5
	Keep  = 2
)

// Kept is a plan the shrinking kept: the plan it began with, then each
// smaller one, with how many of its Tries runs broke and the history of
// one of them.
type Kept struct {
	Plan    Plan
	Broke   int
	Outcome harness.Outcome // zero when none of its runs broke
}

// keeps says whether a candidate that broke in broke of Tries runs may
// replace the plan kept last, when the most the plans kept so far broke
// in is best: in Keep at least, and in best less one at least, a run's
// luck either way. Measured on the explorer's catalog, a Keep-only rule
// kept a candidate that broke in 2 of 5 after plans that broke in 5 of
// 5, and the shrunk plan then broke in none of its replays.
func keeps(broke, best int) bool { return broke >= max(Keep, best-1) }

// Shrink makes a plan smaller while fails still finds the violation in
// it: fewer clients, fewer operations, fewer faults, shorter work and a
// schedule without change points, one step at a time. It begins from the
// plan of starts (one plan, scheduled in other ways) that broke in the
// most of Tries runs, made at once, the first on a tie; then each step is
// kept when keeps says so of its own Tries runs. It returns the plans
// kept, the one it began from first and the smallest last, and how many
// runs it took.
func Shrink(starts []Plan, fails func(Plan) (harness.Outcome, bool)) ([]Kept, int) {
	first, runs := tryStarts(starts, fails)
	chain, more := ShrinkFrom(first, fails)
	return chain, runs + more
}

// try runs q Tries times at once, and says how many broke.
func try(q Plan, fails func(Plan) (harness.Outcome, bool)) Kept {
	var mu sync.Mutex
	k := Kept{Plan: q}
	var wg sync.WaitGroup
	for range Tries {
		wg.Go(func() {
			if o, ok := fails(q); ok {
				mu.Lock()
				k.Broke, k.Outcome = k.Broke+1, o
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return k
}

// tryStarts tries each of starts, and gives the one that broke most
// often (the first on a tie) and the runs it took.
func tryStarts(starts []Plan, fails func(Plan) (harness.Outcome, bool)) (Kept, int) {
	var first Kept
	for i, p := range starts {
		if k := try(p, fails); i == 0 || k.Broke > first.Broke {
			first = k
		}
	}
	return first, len(starts) * Tries
}

// ShrinkFrom shrinks the plan first, already tried (tryStarts), as
// Shrink does.
func ShrinkFrom(first Kept, fails func(Plan) (harness.Outcome, bool)) ([]Kept, int) {
	runs := 0
	chain := []Kept{first}
	p, best := first.Plan, first.Broke
	for {
		smaller := false
		for _, q := range candidates(p) {
			k := try(q, fails)
			runs += Tries
			if keeps(k.Broke, best) {
				chain = append(chain, k)
				p, best, smaller = q, max(best, k.Broke), true
				break
			}
		}
		if !smaller {
			return chain, runs
		}
	}
}

// candidates are the plans one step smaller than p, the biggest steps
// first.
func candidates(p Plan) []Plan {
	var out []Plan
	// Without a client.
	if len(p.Clients) > 1 {
		for i := range p.Clients {
			q := p.clone()
			q.Clients = slices.Delete(q.Clients, i, i+1)
			if len(q.Sched.Priorities) > i {
				q.Sched.Priorities = slices.Delete(q.Sched.Priorities, i, i+1)
			}
			q.Sched.Order = withoutClient(q.Sched.Order, i)
			out = append(out, q)
		}
	}
	// Without a session (an acquire and what follows it), then without
	// one operation.
	for i, c := range p.Clients {
		for j, op := range c.Ops {
			if op.Kind != Acquire && op.Kind != Try {
				continue
			}
			end := j + 1
			for end < len(c.Ops) && c.Ops[end].Kind != Acquire && c.Ops[end].Kind != Try {
				end++
			}
			if j == 0 && end == len(c.Ops) {
				continue // the client's only session: dropping the client says it
			}
			q := p.clone()
			q.Clients[i].Ops = slices.Delete(q.Clients[i].Ops, j, end)
			out = append(out, q)
		}
	}
	for i, c := range p.Clients {
		for j, op := range c.Ops {
			if op.Kind == Acquire || op.Kind == Try {
				continue
			}
			q := p.clone()
			q.Clients[i].Ops = slices.Delete(q.Clients[i].Ops, j, j+1)
			out = append(out, q)
		}
	}
	// Without a fault, a skew.
	for i, c := range p.Clients {
		if c.Skew != 0 {
			q := p.clone()
			q.Clients[i].Skew = 0
			out = append(out, q)
		}
		for j, op := range c.Ops {
			if op.Fault.Kind != NoFault {
				q := p.clone()
				q.Clients[i].Ops[j].Fault = Fault{}
				out = append(out, q)
			}
		}
	}
	// A plainer schedule.
	if len(p.Sched.Changes) > 0 {
		q := p.clone()
		q.Sched.Changes = nil
		out = append(out, q)
	}
	// Shorter work, a shorter pause.
	for i, c := range p.Clients {
		for j, op := range c.Ops {
			if op.Kind == Work && op.For > time.Millisecond {
				q := p.clone()
				q.Clients[i].Ops[j].For = op.For / 2
				out = append(out, q)
			}
		}
	}
	return out
}

// clone copies p deep enough for a candidate to change.
func (p Plan) clone() Plan {
	q := p
	q.Clients = make([]Script, len(p.Clients))
	for i, c := range p.Clients {
		c.Ops = slices.Clone(c.Ops)
		q.Clients[i] = c
	}
	q.Sched.Priorities = slices.Clone(p.Sched.Priorities)
	q.Sched.Changes = slices.Clone(p.Sched.Changes)
	q.Sched.Choices = slices.Clone(p.Sched.Choices)
	q.Sched.Order = slices.Clone(p.Sched.Order)
	return q
}
