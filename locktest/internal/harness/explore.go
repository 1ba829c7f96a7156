package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// The scheduler runs clients one command at a time, in an order it chooses,
// so that an interleaving of their attempts is forced rather than hoped for.
// explore tries every interleaving, depth first, in a fixed order: the same
// counterexample is found on every run.

// maxSchedules bounds the exploration of one scenario.
const maxSchedules = 2000

// stepTimeout is how long a client may run between two commands: long
// enough for a loaded machine (a CI lane beside another), within the
// watchdog's bound on a check.
const stepTimeout = 15 * time.Second

type schedEvent struct {
	simClient int
	cmd       string        // the command it wants to send; "" when done
	left      chan struct{} // closed when that command leaves the gate before its turn
}

// Choice is one step of a schedule: who ran, among who could.
type Choice struct {
	chosen   int
	runnable []int
}

// Schedule runs clients' attempts under the order given by prefix, then by
// the lowest-numbered runnable client. It returns the choices made.
func Schedule(r *Run, clients []*Client, attempt func(i int), prefix []int) []Choice {
	s := startScheduler(r, clients, attempt)
	for range clients {
		s.record(s.next())
	}
	var trace []Choice
	for {
		runnable := s.runnable()
		if len(runnable) == 0 {
			break
		}
		chosen := runnable[0]
		if len(trace) < len(prefix) {
			chosen = prefix[len(trace)]
			if s.done[chosen] {
				if !r.lenientReplay {
					panic(diverged{fmt.Errorf("scheduler: the replay diverged: %s finished where it sent a command before", clients[chosen].Name)})
				}
				// The last replay of a schedule that kept diverging goes
				// on from here as the scheduler would on its own.
				chosen = runnable[0]
			}
		}
		trace = append(trace, Choice{chosen: chosen, runnable: runnable})
		s.grant(chosen)
		s.record(s.next())
	}
	select {
	case v := <-s.aborts:
		panic(v)
	default:
	}
	return trace
}

// scheduler holds each client before every command it sends until its
// turn comes (see schedule).
type scheduler struct {
	r       *Run
	clients []*Client
	// events has a client's next command, or its end ("").
	events chan schedEvent
	// grants lets client i send the command it is held at.
	grants []chan struct{}
	// aborts has what the attempt of a client panicked with.
	aborts chan any
	// done marks the clients whose attempt is over.
	done []bool
	// left is, by client, closed when the command it is held at leaves
	// the gate before its turn: its connection closed (a library that
	// cancels a command it no longer needs).
	left []chan struct{}
}

// newScheduler is the scheduler of n clients of r, none of them gated
// yet.
func newScheduler(r *Run, n int) *scheduler {
	s := &scheduler{r: r, events: make(chan schedEvent), grants: make([]chan struct{}, n),
		aborts: make(chan any, n), done: make([]bool, n), left: make([]chan struct{}, n)}
	for i := range n {
		s.grants[i] = make(chan struct{})
	}
	return s
}

// gate holds a command of client i until its turn: it tells the
// scheduler, then waits for its grant, or for ctx (the connection) to end.
func (s *scheduler) gate(i int) func(ctx context.Context, cmd string) error {
	return func(ctx context.Context, cmd string) error {
		left := make(chan struct{})
		select {
		case s.events <- schedEvent{simClient: i, cmd: cmd, left: left}:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case <-s.grants[i]:
			return nil
		case <-ctx.Done():
			close(left)
			return ctx.Err()
		}
	}
}

// startScheduler gates every command of clients and starts each one's
// attempt on a goroutine of its own.
func startScheduler(r *Run, clients []*Client, attempt func(i int)) *scheduler {
	s := newScheduler(r, len(clients))
	s.clients = clients
	for i, c := range clients {
		// A library's own goroutines may send a command while the gate is
		// set: publish it under the client's lock, as before reads it.
		c.SetGate(s.gate(i))
	}
	for i := range clients {
		go func() {
			defer func() {
				if v := recover(); v != nil {
					s.aborts <- v
				}
				// The attempt is over: what the client sends from now on
				// (a renewal) is not scheduled.
				clients[i].SetGate(nil)
				select {
				case s.events <- schedEvent{simClient: i}:
				case <-r.Ctx.Done():
				}
			}()
			attempt(i)
		}()
	}
	return s
}

// next waits for a client to reach its next command or its end.
func (s *scheduler) next() schedEvent {
	select {
	case e := <-s.events:
		return e
	case <-time.After(stepTimeout):
		s.r.Fail(mFailStuck.New(stepTimeout))
	case <-s.r.Ctx.Done():
		s.r.Fail(sim.MsgFailWatchdog.New(s.r.Ctx.Err().Error()))
	}
	panic("unreachable")
}

// record notes a client's end.
func (s *scheduler) record(e schedEvent) {
	if e.cmd == "" {
		s.done[e.simClient] = true
		return
	}
	s.left[e.simClient] = e.left
}

// runnable returns the clients whose attempt is not over.
func (s *scheduler) runnable() []int {
	var out []int
	for i := range s.clients {
		if !s.done[i] {
			out = append(out, i)
		}
	}
	return out
}

// grant lets client i send the command it is held at. A command that
// left the gate before its turn (its connection closed) takes none: the
// client goes on without it, to its next command or its end, which the
// scheduler waits for next.
func (s *scheduler) grant(i int) {
	select {
	case s.grants[i] <- struct{}{}:
	case <-s.left[i]:
	case <-time.After(stepTimeout):
		s.r.Fail(mFailTurn.New(s.clients[i].Name, stepTimeout))
	case <-s.r.Ctx.Done():
		s.r.Fail(sim.MsgFailWatchdog.New(s.r.Ctx.Err().Error()))
	}
}

// nextPrefix returns the schedule after trace in depth-first order, or false
// when every schedule has been tried.
func nextPrefix(trace []Choice) ([]int, bool) {
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

// Boundaries of an operation. Wherever a scenario pauses or crashes a client
// during an operation (a release, a refresh), it tries every boundary
// between the operation's commands in turn: before the first one (boundary
// 0), after the first, after the second, and so on. A check-then-act split
// over two commands meets its race at the boundary between them.
//
// A boundary is one between commands the client sends. Commands queued
// inside MULTI run on the server only at EXEC, and a script runs as one
// command: the timeline says so, and no boundary is pretended inside them.

// opCounts says how many commands a successful release and refresh send.
type opCounts struct {
	Acquire   int
	Release   int
	Refresh   int
	Refresher bool // whether the lock implements strategy.Refresher
}

// CountOps acquires a lock, refreshes it where it can, and releases it,
// counting the commands of each; a first round on a key of its own loads
// what a strategy loads once per server (a script: EVALSHA, NOSCRIPT,
// EVAL), so that it is not counted.
func CountOps(newRun func(string) *Run) opCounts {
	var n opCounts
	for _, suffix := range []string{"/warm-up", "/count"} {
		r := newRun(suffix)
		p := r.NewClient("P", 0)
		l := p.TryAcquire(r.Tm.Long)
		n.Acquire = p.CommandsSent()
		if l == nil {
			r.Fail(MsgFailNotFree.New("P"))
		}
		if rf, ok := l.(strategy.Refresher); ok {
			n.Refresher = true
			from := p.CommandsSent()
			p.Refresh(rf, r.Tm.Long)
			n.Refresh = p.CommandsSent() - from
		}
		from := p.CommandsSent()
		p.Release(l)
		n.Release = p.CommandsSent() - from
		r.Shutdown()
	}
	return n
}

// pausedOp is an operation of a client, running on a goroutine of its own,
// inside which the client is paused at a boundary.
type pausedOp struct {
	c       *Client
	k, n    int
	op      string
	Reached bool     // the client is paused at boundary k
	ended   chan any // op's recovered panic, once it has ended
	Done    bool     // op has ended, and v is what it raised
	v       any
}

// PauseInside runs op on its own goroutine with c paused at boundary k of
// it (see boundary). It returns once c has reached the boundary, that
// is once it tries to send the command after it, with reached true; or
// once op has ended without reaching it (it sent fewer commands this
// time). The operation can then be taken on boundary by boundary (next)
// or resumed and waited for (wait).
func (c *Client) PauseInside(k, n int, op string, f func()) *pausedOp {
	reachedCh := c.PauseAtBoundary(k, Boundary(k, n, op))
	p := &pausedOp{c: c, k: k, n: n, op: op, ended: make(chan any, 1)}
	go func() {
		defer func() { p.ended <- recover() }()
		f()
	}()
	select {
	case <-reachedCh:
		p.Reached = true
	case p.v = <-p.ended:
		p.Done = true
	}
	if !p.Reached {
		p.unpause()
		p.Wait()
		c.R.Note(mBoundaryNotReached.New(c.Name, op))
	}
	return p
}

// next lets the paused client send one more command of its operation and
// pause again at the boundary after it. It reports whether the client is
// paused there; false once the operation has ended instead.
func (p *pausedOp) next() bool {
	if p.Done {
		return false
	}
	c := p.c
	p.k++
	reachedCh := c.PauseAtBoundary(1, Boundary(p.k, p.n, p.op))
	c.Resume()
	select {
	case <-reachedCh:
		return true
	case p.v = <-p.ended:
		p.Done = true
		p.unpause()
		return false
	}
}

// unpause drops a pause the client never reached.
func (p *pausedOp) unpause() {
	c := p.c
	c.DropPause()
	c.Resume()
}

// Wait waits for the operation to end, once the client is resumed, and
// passes on an abort raised inside it.
func (p *pausedOp) Wait() {
	if !p.Done {
		p.v = <-p.ended
		p.Done = true
	}
	if p.v != nil {
		panic(p.v)
	}
}

// Interleavings plays a schedule of the clients' commands on a fresh run
// (its key suffixed with name and the schedule's number) for each
// interleaving, depth first, until play reports a break or every
// interleaving has been tried; it then reports how many it tried. play
// returns the choices the scheduler made and, for a break, its result.
func Interleavings(newRun func(string) *Run, name string, play func(r *Run, n int, prefix []int) ([]Choice, *Outcome)) (*Outcome, int) {
	var prefix []int
	for n := 1; n <= maxSchedules; n++ {
		var r *Run
		var trace []Choice
		var res *Outcome
		// A lock that sends commands from several goroutines at once
		// (rueidislock releases each of its keys on one of its own) may
		// order them otherwise on a replay: the schedule is played again,
		// on a fresh run, a few times, and the last time it goes on from
		// where it diverged as the scheduler would on its own, so that
		// the exploration goes on (best effort: such a lock's
		// interleavings cannot all be replayed exactly).
		for try := 1; ; try++ {
			suffix := fmt.Sprintf("/%s-%d", name, n)
			if try > 1 {
				suffix += fmt.Sprintf("-replay-%d", try)
			}
			r = newRun(suffix)
			r.lenientReplay = try == maxReplays
			var err error
			trace, res, err = playOnce(r, n, prefix, play)
			if err == nil {
				break
			}
			r.Shutdown()
		}
		if res != nil {
			return res, n
		}
		var more bool
		if prefix, more = nextPrefix(trace); !more {
			return nil, n
		}
		r.Shutdown()
	}
	r := newRun("/limit")
	r.Fail(mFailTooMany.New(maxSchedules))
	return nil, 0
}

// maxReplays is how many times a schedule whose replay diverged is
// played before the suite gives up.
const maxReplays = 5

// diverged is the panic of a schedule whose replay went another way.
type diverged struct{ err error }

// playOnce plays one schedule, and returns a divergence as an error.
func playOnce(r *Run, n int, prefix []int, play func(r *Run, n int, prefix []int) ([]Choice, *Outcome)) (trace []Choice, res *Outcome, err error) {
	defer func() {
		if v := recover(); v != nil {
			d, ok := v.(diverged)
			if !ok {
				panic(v)
			}
			err = d.err
		}
	}()
	trace, res = play(r, n, prefix)
	return trace, res, nil
}

// Race tries every interleaving of two clients' attempts on the key, from
// stale when it is given and from a free key otherwise; at most one may win.
func Race(newRun func(string) *Run, stale *staleLock, broken, where msg.Msg) Outcome {
	var last *Run
	res, n := Interleavings(newRun, "schedule", func(r *Run, n int, prefix []int) ([]Choice, *Outcome) {
		last = r
		if stale != nil {
			stale.Restore(r)
		}
		clients := []*Client{r.NewClient("A", 0), r.NewClient("B", 0)}
		won := make([]bool, len(clients))
		// A long TTL: the question is only how two attempts meet, and a
		// winner's lock must not expire while a slow machine takes its
		// time between the scheduled steps.
		trace := Schedule(r, clients, func(i int) {
			if l := clients[i].TryAcquire(r.Tm.Long); l != nil {
				won[i] = true
				r.Det.Enter(clients[i].Name)
			}
		}, prefix)

		if won[0] && won[1] {
			res := r.BreaksRule(history.OneHolder, MsgInterleaving.New(broken, n, MustOverlap(r)))
			return trace, &res
		}
		return trace, nil
	})
	if res != nil {
		return *res
	}
	return last.Holds(mRaceHolds.New(n, where))
}

func MustOverlap(r *Run) msg.Msg {
	o, _ := r.Det.FirstOverlap()
	return o
}
