package explore

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/locklab/locklab/locktest/internal/harness"
)

// quantum is how long the scheduler waits for the client whose command
// went to come back with its next one before it lets another go: a
// client that has gone to work (or to sleep before its next attempt)
// does not hold the others up.
const quantum = 3 * time.Millisecond

// startWait bounds how long the first command waits for every client to
// reach its gate: a client sets up its connection first, which a loaded
// machine can make slow, and a client paused before its first command
// does not come sooner.
const startWait = 20 * quantum

// scheduler lets one command of the clients go at a time, in the order of
// its schedule: the waiting client of highest priority (PCT), one at
// random (a walk), or the one its choices name (an exhaustive search).
// Real time goes on meanwhile: a client at work or asleep is not waited
// for longer than a quantum.
type scheduler struct {
	sched Schedule
	walk  *rand.Rand

	mu       sync.Mutex
	prio     []int             // PCT: each client's priority, higher first
	waiting  [][]chan struct{} // the grants a client waits for at its gate, oldest first
	inflight int               // the client whose command went last, until it comes back; -1: none
	since    time.Time         // when it went
	steps    int
	lowest   int
	points   []point   // the choice points met, in order
	order    []int     // the client that went at each step
	rest     []int     // Ordered: the steps of the order not taken yet
	gone     []bool    // the clients that ended
	blocked  time.Time // Ordered: since when the client the order names is waited for; zero: it is not
	start    time.Time // when the run began
	wake     chan struct{}
	stopped  bool
	done     chan struct{}
}

// gateClients gates every command of clients (but those that set up a
// connection) under s until stop.
func gateClients(s Schedule, clients []*harness.Client) *scheduler {
	sc := newScheduler(s, len(clients))
	for i, c := range clients {
		c.SetGate(func(ctx context.Context, _ string) error { return sc.gate(ctx, i) })
	}
	return sc
}

// newScheduler starts the scheduler of n clients under s.
func newScheduler(s Schedule, n int) *scheduler {
	sc := &scheduler{sched: s, waiting: make([][]chan struct{}, n), inflight: -1,
		wake: make(chan struct{}, 1), done: make(chan struct{}), start: time.Now()}
	sc.prio = make([]int, n)
	sc.gone = make([]bool, n)
	if s.Kind == Ordered {
		sc.rest = slices.Clone(s.Order)
	}
	for i := range n {
		if i < len(s.Priorities) {
			sc.prio[i] = n + s.Priorities[i]
		}
	}
	if s.Kind == Walk {
		sc.walk = rand.New(rand.NewPCG(uint64(s.Seed), 0))
	}
	go sc.loop()
	return sc
}

// gate holds client i before a command until its turn. A client may send
// from more than one goroutine, each on a connection of its own (a lock
// that renews its hold while its holder refreshes it): its commands wait
// in line, and each turn of the client lets the oldest go.
func (sc *scheduler) gate(ctx context.Context, i int) error {
	grant := make(chan struct{})
	sc.mu.Lock()
	if sc.stopped {
		sc.mu.Unlock()
		return nil
	}
	sc.waiting[i] = append(sc.waiting[i], grant)
	if sc.inflight == i {
		sc.inflight = -1
	}
	sc.mu.Unlock()
	sc.poke()
	select {
	case <-grant:
		return nil
	case <-ctx.Done():
		sc.mu.Lock()
		if k := slices.Index(sc.waiting[i], grant); k >= 0 {
			sc.waiting[i] = slices.Delete(sc.waiting[i], k, k+1)
		}
		sc.mu.Unlock()
		return ctx.Err()
	}
}

func (sc *scheduler) poke() {
	select {
	case sc.wake <- struct{}{}:
	default:
	}
}

// loop grants the next command whenever none is in flight.
func (sc *scheduler) loop() {
	t := time.NewTicker(quantum)
	defer t.Stop()
	for {
		select {
		case <-sc.done:
			return
		case <-sc.wake:
		case <-t.C:
		}
		sc.mu.Lock()
		if sc.inflight >= 0 && time.Since(sc.since) >= quantum {
			sc.inflight = -1
		}
		if sc.inflight < 0 && sc.started() {
			if i := sc.pick(); i >= 0 {
				close(sc.waiting[i][0])
				sc.waiting[i] = sc.waiting[i][1:]
				sc.inflight, sc.since = i, time.Now()
				sc.steps++
				sc.order = append(sc.order, i)
				if sc.sched.Kind == PCT && slices.Contains(sc.sched.Changes, sc.steps) {
					sc.lowest--
					sc.prio[i] = sc.lowest
				}
			}
		}
		sc.mu.Unlock()
	}
}

// started says whether the first command may go: once every client
// waits at its gate, or startWait after the run began. The first step is
// then a choice among them all, as every later one is among those that
// wait, instead of going to whichever client reached its gate first.
func (sc *scheduler) started() bool {
	if sc.steps > 0 || time.Since(sc.start) >= startWait {
		return true
	}
	for _, w := range sc.waiting {
		if len(w) == 0 {
			return false
		}
	}
	return true
}

// pick chooses among the waiting clients; -1 when none waits. A choice
// among two or more is a choice point of the run, which it records.
func (sc *scheduler) pick() int {
	var ready []int
	for i, w := range sc.waiting {
		if len(w) > 0 {
			ready = append(ready, i)
		}
	}
	if len(ready) == 0 {
		return -1
	}
	rank := 0
	switch sc.sched.Kind {
	case Ordered:
		waiting := make([]bool, len(sc.waiting))
		for _, i := range ready {
			waiting[i] = true
		}
		if sc.blocked.IsZero() {
			sc.blocked = time.Now()
		}
		i, rest := orderedPick(sc.rest, waiting, sc.gone, time.Since(sc.blocked))
		sc.rest = rest
		if i < 0 {
			return -1
		}
		sc.blocked = time.Time{}
		rank = slices.Index(ready, i)
	case Walk:
		rank = sc.walk.IntN(len(ready))
	case Exhaustive:
		if k := len(sc.points); k < len(sc.sched.Choices) {
			rank = min(sc.sched.Choices[k], len(ready)-1)
		}
	default:
		for j, i := range ready {
			if sc.prio[i] > sc.prio[ready[rank]] {
				rank = j
			}
		}
	}
	if len(ready) > 1 {
		sc.points = append(sc.points, point{rank: rank, of: len(ready)})
	}
	return ready[rank]
}

// leave says client i ended: it sends no more commands.
func (sc *scheduler) leave(i int) {
	sc.mu.Lock()
	sc.gone[i] = true
	sc.mu.Unlock()
	sc.poke()
}

// stop lets every command go from now on.
func (sc *scheduler) stop() {
	sc.mu.Lock()
	if sc.stopped {
		sc.mu.Unlock()
		return
	}
	sc.stopped = true
	if sc.sched.trail != nil {
		sc.sched.trail.set(sc.points, sc.order)
	}
	for i, ws := range sc.waiting {
		for _, w := range ws {
			close(w)
		}
		sc.waiting[i] = nil
	}
	sc.mu.Unlock()
	close(sc.done)
}
