package locktest

import (
	"fmt"

	"github.com/locklab/locklab/strategy"
)

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
	acquire   int
	release   int
	refresh   int
	refresher bool // whether the lock implements strategy.Refresher
}

// countOps acquires a lock, refreshes it where it can, and releases it,
// counting the commands of each; a first round on a key of its own loads
// what a strategy loads once per server (a script: EVALSHA, NOSCRIPT,
// EVAL), so that it is not counted.
func countOps(newRun func(string) *run) opCounts {
	var n opCounts
	for _, suffix := range []string{"/warm-up", "/count"} {
		r := newRun(suffix)
		p := r.newClient("P", 0)
		l := p.tryAcquire(r.tm.Long)
		n.acquire = p.commandsSent()
		if l == nil {
			r.fail("P could not acquire a free lock")
		}
		if rf, ok := l.(strategy.Refresher); ok {
			n.refresher = true
			from := p.commandsSent()
			p.refresh(rf, r.tm.Long)
			n.refresh = p.commandsSent() - from
		}
		from := p.commandsSent()
		p.release(l)
		n.release = p.commandsSent() - from
		r.shutdown()
	}
	return n
}

func (c *client) commandsSent() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent
}

// boundaryText names boundary k of an operation of n commands.
func boundaryText(k, n int, op string) string {
	if k == 0 {
		return fmt.Sprintf("before the first command of its %s", op)
	}
	return fmt.Sprintf("after command %d of %d of its %s", k, n, op)
}

// pausedAt runs op on its own goroutine with c paused at boundary k of it
// (see boundaryText). It returns once c has reached the boundary, that is
// once it tries to send the command after it, with reached true; or once
// op has ended without reaching it (it sent fewer commands this time).
// wait waits for op to end, after c is resumed, and passes on an abort
// raised inside op.
func (c *client) pausedAt(k, n int, op string, f func()) (reached bool, wait func()) {
	p := c.pauseInside(k, n, op, f)
	return p.reached, p.wait
}

// pausedOp is an operation of a client, running on a goroutine of its own,
// inside which the client is paused at a boundary.
type pausedOp struct {
	c       *client
	k, n    int
	op      string
	reached bool     // the client is paused at boundary k
	ended   chan any // op's recovered panic, once it has ended
	done    bool     // op has ended, and v is what it raised
	v       any
}

// pauseInside is pausedAt, returning the operation, which can then be
// taken on boundary by boundary (next).
func (c *client) pauseInside(k, n int, op string, f func()) *pausedOp {
	why := "paused " + boundaryText(k, n, op)
	reachedCh := make(chan struct{})
	c.mu.Lock()
	c.pauseWhy = why
	if k == 0 {
		c.paused, c.arrive = make(chan struct{}), reachedCh
	} else {
		c.pauseAt, c.reached = c.sent+k, reachedCh
	}
	c.mu.Unlock()
	p := &pausedOp{c: c, k: k, n: n, op: op, ended: make(chan any, 1)}
	go func() {
		defer func() { p.ended <- recover() }()
		f()
	}()
	select {
	case <-reachedCh:
		p.reached = true
	case p.v = <-p.ended:
		p.done = true
	}
	if !p.reached {
		p.unpause()
		p.wait()
		c.r.note("%s's %s ended before reaching that boundary", c.name, op)
	}
	return p
}

// next lets the paused client send one more command of its operation and
// pause again at the boundary after it. It reports whether the client is
// paused there; false once the operation has ended instead.
func (p *pausedOp) next() bool {
	if p.done {
		return false
	}
	c := p.c
	p.k++
	reachedCh := make(chan struct{})
	c.mu.Lock()
	c.pauseWhy = "paused " + boundaryText(p.k, p.n, p.op)
	c.pauseAt, c.reached = c.sent+1, reachedCh
	c.mu.Unlock()
	c.resume()
	select {
	case <-reachedCh:
		return true
	case p.v = <-p.ended:
		p.done = true
		p.unpause()
		return false
	}
}

// unpause drops a pause the client never reached.
func (p *pausedOp) unpause() {
	c := p.c
	c.mu.Lock()
	c.pauseAt, c.reached, c.arrive = 0, nil, nil
	c.mu.Unlock()
	c.resume()
}

// wait waits for the operation to end, once the client is resumed, and
// passes on an abort raised inside it.
func (p *pausedOp) wait() {
	if !p.done {
		p.v = <-p.ended
		p.done = true
	}
	if p.v != nil {
		panic(p.v)
	}
}
