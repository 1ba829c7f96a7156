package explore

import (
	"slices"
	"sync"
	"time"

	"github.com/locklab/locklab/locktest/internal/harness"
)

// Tries is how often a candidate of the shrinking is run: it is kept when
// the violation comes back in Keep of them, so that a candidate that
// failed once by luck is not.
const (
	Tries = 5
	Keep  = 2
)

// Shrink makes p smaller while fails still finds the violation in it:
// fewer clients, fewer operations, fewer faults, shorter work and a
// schedule without change points, one step at a time, each step kept
// only when fails says so in Keep of Tries runs, made at once. It returns
// the smallest plan found, the history of one of its own runs that failed
// (none when p could not be shrunk at all), and how many runs it took.
func Shrink(p Plan, fails func(Plan) (harness.Outcome, bool)) (Plan, harness.Outcome, int) {
	runs := 0
	var kept harness.Outcome
	// keeps runs q Tries times at once and says whether it failed in
	// Keep of them, with the history of one of its own failing runs.
	keeps := func(q Plan) (harness.Outcome, bool) {
		var mu sync.Mutex
		var failed int
		var last harness.Outcome
		var wg sync.WaitGroup
		for range Tries {
			wg.Go(func() {
				if o, ok := fails(q); ok {
					mu.Lock()
					failed, last = failed+1, o
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		runs += Tries
		return last, failed >= Keep
	}
	for {
		smaller := false
		for _, q := range candidates(p) {
			if o, ok := keeps(q); ok {
				p, kept, smaller = q, o, true
				break
			}
		}
		if !smaller {
			return p, kept, runs
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
	return q
}
