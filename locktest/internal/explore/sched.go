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

// scheduler lets one command of the clients go at a time, in the order of
// its schedule: the waiting client of highest priority (PCT), or one at
// random (a walk). Real time goes on meanwhile: a client at work or
// asleep is not waited for longer than a quantum.
type scheduler struct {
	sched Schedule
	walk  *rand.Rand

	mu       sync.Mutex
	prio     []int           // PCT: each client's priority, higher first
	waiting  []chan struct{} // a client's grant while it waits at its gate; nil: not waiting
	inflight int             // the client whose command went last, until it comes back; -1: none
	since    time.Time       // when it went
	steps    int
	lowest   int
	wake     chan struct{}
	stopped  bool
	done     chan struct{}
}

// schedule gates every command of clients (but those that set up a
// connection) under s until stop.
func schedule(s Schedule, clients []*harness.Client) *scheduler {
	n := len(clients)
	sc := &scheduler{sched: s, waiting: make([]chan struct{}, n), inflight: -1,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	sc.prio = make([]int, n)
	for i := range n {
		if i < len(s.Priorities) {
			sc.prio[i] = n + s.Priorities[i]
		}
	}
	if s.Kind == Walk {
		sc.walk = rand.New(rand.NewPCG(uint64(s.Seed), 0))
	}
	for i, c := range clients {
		c.SetGate(func(ctx context.Context, _ string) error { return sc.gate(ctx, i) })
	}
	go sc.loop()
	return sc
}

// gate holds client i before a command until its turn.
func (sc *scheduler) gate(ctx context.Context, i int) error {
	grant := make(chan struct{})
	sc.mu.Lock()
	if sc.stopped {
		sc.mu.Unlock()
		return nil
	}
	sc.waiting[i] = grant
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
		if sc.waiting[i] == grant {
			sc.waiting[i] = nil
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
		if sc.inflight < 0 {
			if i := sc.pick(); i >= 0 {
				close(sc.waiting[i])
				sc.waiting[i] = nil
				sc.inflight, sc.since = i, time.Now()
				sc.steps++
				if sc.sched.Kind == PCT && slices.Contains(sc.sched.Changes, sc.steps) {
					sc.lowest--
					sc.prio[i] = sc.lowest
				}
			}
		}
		sc.mu.Unlock()
	}
}

// pick chooses among the waiting clients; -1 when none waits.
func (sc *scheduler) pick() int {
	var ready []int
	for i, w := range sc.waiting {
		if w != nil {
			ready = append(ready, i)
		}
	}
	switch {
	case len(ready) == 0:
		return -1
	case sc.sched.Kind == Walk:
		return ready[sc.walk.IntN(len(ready))]
	}
	best := ready[0]
	for _, i := range ready[1:] {
		if sc.prio[i] > sc.prio[best] {
			best = i
		}
	}
	return best
}

// stop lets every command go from now on.
func (sc *scheduler) stop() {
	sc.mu.Lock()
	if sc.stopped {
		sc.mu.Unlock()
		return
	}
	sc.stopped = true
	for i, w := range sc.waiting {
		if w != nil {
			close(w)
			sc.waiting[i] = nil
		}
	}
	sc.mu.Unlock()
	close(sc.done)
}
