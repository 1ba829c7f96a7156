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
// op has ended without reaching it (it sent fewer commands this time). wait waits for op to end, after c is resumed, and
// passes on an abort raised inside op.
func (c *client) pausedAt(k, n int, op string, f func()) (reached bool, wait func()) {
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
	ended := make(chan any, 1)
	go func() {
		defer func() { ended <- recover() }()
		f()
	}()
	var v any
	done := false
	select {
	case <-reachedCh:
		reached = true
	case v = <-ended:
		done = true
	}
	wait = func() {
		if !done {
			v = <-ended
		}
		if v != nil {
			panic(v)
		}
	}
	if !reached {
		c.mu.Lock()
		c.pauseAt, c.reached, c.arrive = 0, nil, nil
		c.mu.Unlock()
		c.resume() // a pause before the first command, never reached
		wait()
		c.r.note("%s's %s ended before reaching that boundary", c.name, op)
	}
	return reached, wait
}
