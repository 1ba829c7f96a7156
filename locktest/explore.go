package locktest

import (
	"context"
	"fmt"
	"time"
)

// The scheduler runs clients one command at a time, in an order it chooses,
// so that an interleaving of their attempts is forced rather than hoped for.
// explore tries every interleaving, depth first, in a fixed order: the same
// counterexample is found on every run.

// maxSchedules bounds the exploration of one scenario.
const maxSchedules = 2000

// stepTimeout is how long a client may run between two commands.
const stepTimeout = 5 * time.Second

type schedEvent struct {
	client int
	cmd    string // the command it wants to send; "" when done
}

// choice is one step of a schedule: who ran, among who could.
type choice struct {
	chosen   int
	runnable []int
}

// schedule runs clients' attempts under the order given by prefix, then by
// the lowest-numbered runnable client. It returns the choices made.
func (r *run) schedule(clients []*client, attempt func(i int), prefix []int) []choice {
	events := make(chan schedEvent)
	grants := make([]chan struct{}, len(clients))
	for i, c := range clients {
		grants[i] = make(chan struct{})
		c.gate = func(ctx context.Context, cmd string) error {
			select {
			case events <- schedEvent{client: i, cmd: cmd}:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case <-grants[i]:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	aborts := make(chan any, len(clients))
	for i := range clients {
		go func() {
			defer func() {
				if v := recover(); v != nil {
					aborts <- v
				}
				// The attempt is over: what the client sends from now on
				// (a renewal) is not scheduled.
				clients[i].mu.Lock()
				clients[i].gate = nil
				clients[i].mu.Unlock()
				select {
				case events <- schedEvent{client: i}:
				case <-r.ctx.Done():
				}
			}()
			attempt(i)
		}()
	}
	next := func() schedEvent {
		select {
		case e := <-events:
			return e
		case <-time.After(stepTimeout):
			r.fail("scheduler: no client moved for %v: a strategy hung between commands", stepTimeout)
		case <-r.ctx.Done():
			r.fail("scheduler: %v", r.ctx.Err())
		}
		panic("unreachable")
	}
	pending := make([]string, len(clients))
	done := make([]bool, len(clients))
	record := func(e schedEvent) {
		if e.cmd == "" {
			done[e.client] = true
		} else {
			pending[e.client] = e.cmd
		}
	}
	for range clients {
		record(next())
	}
	var trace []choice
	for {
		var runnable []int
		for i := range clients {
			if !done[i] {
				runnable = append(runnable, i)
			}
		}
		if len(runnable) == 0 {
			break
		}
		chosen := runnable[0]
		if len(trace) < len(prefix) {
			chosen = prefix[len(trace)]
			if done[chosen] {
				r.fail("scheduler: the replay diverged: %s finished where it sent a command before", clients[chosen].name)
			}
		}
		trace = append(trace, choice{chosen: chosen, runnable: runnable})
		select {
		case grants[chosen] <- struct{}{}:
		case <-time.After(stepTimeout):
			r.fail("scheduler: %s did not take its turn for %v", clients[chosen].name, stepTimeout)
		case <-r.ctx.Done():
			r.fail("scheduler: %v", r.ctx.Err())
		}
		record(next())
	}
	select {
	case v := <-aborts:
		panic(v)
	default:
	}
	return trace
}

// nextPrefix returns the schedule after trace in depth-first order, or false
// when every schedule has been tried.
func nextPrefix(trace []choice) ([]int, bool) {
	for j := len(trace) - 1; j >= 0; j-- {
		for _, alt := range trace[j].runnable {
			if alt > trace[j].chosen {
				prefix := make([]int, j+1)
				for i := range j {
					prefix[i] = trace[i].chosen
				}
				prefix[j] = alt
				return prefix, true
			}
		}
	}
	return nil, false
}

// staleTakeoverRace: A and B both find the lock a crashed holder left, and
// every interleaving of their two attempts is tried; at most one may win.
func staleTakeoverRace(newRun func(string) *run) Result {
	stale := makeStale(newRun)
	if !stale.exists {
		r := newRun("/none")
		return r.notApplicable("Redis itself deleted the crashed holder's key when its TTL passed: there is no stale lock to take over, only a free key (exclusion races two acquires on one)")
	}
	if probe(newRun, stale)[1].commands == 0 {
		r := newRun("/none")
		r.restore(stale)
		after := r.tm.Short + r.tm.staleAfter()
		return r.notApplicable("no stale lock to take over: %v after its holder crashed, nobody could take it over: %s", after, r.unexpired(r.tm.Short, after))
	}
	return race(newRun, &stale, "both waiters found the same stale lock and both took it over", "on a stale lock")
}

// interleavings plays a schedule of the clients' commands on a fresh run
// (its key suffixed with name and the schedule's number) for each
// interleaving, depth first, until play reports a break or every
// interleaving has been tried; it then reports how many it tried. play
// returns the choices the scheduler made and, for a break, its result.
func interleavings(newRun func(string) *run, name string, play func(r *run, n int, prefix []int) ([]choice, *Result)) (*Result, int) {
	var prefix []int
	for n := 1; n <= maxSchedules; n++ {
		r := newRun(fmt.Sprintf("/%s-%d", name, n))
		trace, res := play(r, n, prefix)
		if res != nil {
			return res, n
		}
		var more bool
		if prefix, more = nextPrefix(trace); !more {
			return nil, n
		}
		r.shutdown()
	}
	r := newRun("/limit")
	r.fail("more than %d interleavings: the attempts are too long to explore", maxSchedules)
	return nil, 0
}

// race tries every interleaving of two clients' attempts on the key, from
// stale when it is given and from a free key otherwise; at most one may win.
func race(newRun func(string) *run, stale *staleLock, broken, where string) Result {
	var last *run
	res, n := interleavings(newRun, "schedule", func(r *run, n int, prefix []int) ([]choice, *Result) {
		last = r
		if stale != nil {
			r.restore(*stale)
		}
		clients := []*client{r.newClient("A", 0), r.newClient("B", 0)}
		won := make([]bool, len(clients))
		// A long TTL: the question is only how two attempts meet, and a
		// winner's lock must not expire while a slow machine takes its
		// time between the scheduled steps.
		trace := r.schedule(clients, func(i int) {
			if l := clients[i].tryAcquire(r.tm.Long); l != nil {
				won[i] = true
				r.det.enter(clients[i].name)
			}
		}, prefix)
		if won[0] && won[1] {
			res := r.breaks("%s (interleaving %d of their commands): %s", broken, n, mustOverlap(r))
			return trace, &res
		}
		return trace, nil
	})
	if res != nil {
		return *res
	}
	return last.holds("in each of the %d interleavings of two clients' attempts %s, at most one won", n, where)
}

// handover: A holds the lock, releases it and at once tries to acquire it
// again, while B makes one attempt; every interleaving of their commands
// is tried, and at most one of them may end up holding the lock. The TTL
// is long: nothing expires, the question is only how a release meets an
// attempt under way. It returns the break, or nil and the number of
// interleavings tried.
func handover(newRun func(string) *run) (*Result, int) {
	return interleavings(newRun, "handover", func(r *run, n int, prefix []int) ([]choice, *Result) {
		a, b := r.newClient("A", 0), r.newClient("B", 0)
		la := a.tryAcquire(r.tm.Long)
		if la == nil {
			r.fail("A could not acquire a free lock")
		}
		// A leaves the critical section before the schedule starts, so
		// that its note never races with B's first clock read.
		r.det.enter("A")
		r.det.leave("A")
		clients := []*client{a, b}
		won := []bool{false, false}
		trace := r.schedule(clients, func(i int) {
			c := clients[i]
			if c == a {
				c.releaseErr(la)
			}
			if l := c.tryAcquire(r.tm.Long); l != nil {
				won[i] = true
				r.det.enter(c.name)
			}
		}, prefix)
		if won[0] && won[1] {
			res := r.breaks("A released its lock and at once acquired it again while B made one attempt, and both got it (interleaving %d of their commands): %s", n, mustOverlap(r))
			return trace, &res
		}
		return trace, nil
	})
}

func mustOverlap(r *run) string {
	o, _ := r.det.firstOverlap()
	return o
}
