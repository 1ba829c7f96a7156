package matrixrun

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/locklab/locklab/locktest"
)

// interruptSignals are the signals that stop a run cleanly: Ctrl-C, and
// what timeout, CI cancellations and docker stop send.
var interruptSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// signalled is the cause of a run's context cancelled by a signal.
type signalled struct{ sig syscall.Signal }

func (s signalled) Error() string { return "interrupted by " + signalName(s.sig) }

// status is the conventional exit status of a program stopped by the
// signal: 128 plus its number.
func (s signalled) status() int { return 128 + int(s.sig) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// Signals returns a context that the first of SIGINT, SIGTERM and SIGHUP
// cancels, with the signal as its cause, and a function that stops
// listening. A second signal ends program p at once, with the status of
// the first, saying on its Stderr what may be left behind.
func (p Program) Signals() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, interruptSignals...)
	go func() {
		first, _ := (<-sigs).(syscall.Signal)
		cancel(signalled{first})
		again, _ := (<-sigs).(syscall.Signal)
		p.log("%s during the cleanup: exiting at once; keys of the run may remain "+
			"(%s -cleanup removes them), and so may a Redis container it started (it expires by itself)",
			signalName(again), p.keys())
		os.Exit(signalled{first}.status())
	}()
	return ctx, func() { signal.Stop(sigs); cancel(nil) }
}

// interruptStatus is the exit status of a run whose context ended: 128 plus
// the signal's number, or ExitMismatch when no signal ended it.
func interruptStatus(ctx context.Context) int {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		return s.status()
	}
	return ExitMismatch
}

// interruptCause says what ended ctx, for a message: "interrupted by
// SIGINT", or "interrupted (context canceled)".
func interruptCause(ctx context.Context) string {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		return s.Error()
	}
	return fmt.Sprintf("interrupted (%v)", context.Cause(ctx))
}

// unfinished reports whether a check's result is no verdict because the
// run was stopped: the suite says so with ErrInterrupted, and any other
// error that comes once the run's context has ended is its consequence too.
func unfinished(ctx context.Context, res locktest.Result) bool {
	return errors.Is(res.Err, locktest.ErrInterrupted) || (res.Err != nil && ctx.Err() != nil)
}

// errShut is what the connections of a shut gate return: nothing more is
// written to the server.
type errShut struct{ name string }

func (e errShut) Error() string { return e.name + ": the run was interrupted: command not sent" }

// gate dials every connection of the checks to the server, the suite's own
// and those of its clients' proxies, and can be shut: from then on no
// connection it made writes another byte, and it makes no new one. The
// suite may leave a goroutine of an interrupted check running for a while
// after Check has returned (the scenario itself, or a command its context
// cut short); the gate makes sure that none of them writes a key once the
// cleanup starts.
type gate struct {
	addr string
	name string // the program's, for errShut

	mu    sync.Mutex
	shut  bool
	conns map[*gatedConn]struct{}
	busy  sync.WaitGroup // writes under way
}

func newGate(addr, name string) *gate {
	return &gate{addr: addr, name: name, conns: map[*gatedConn]struct{}{}}
}

// dial opens a connection to the server, unless the gate is shut.
func (g *gate) dial(ctx context.Context) (net.Conn, error) {
	if !g.enter() {
		return nil, errShut{g.name}
	}
	defer g.leave()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", g.addr)
	if err != nil {
		return nil, err
	}
	c := &gatedConn{Conn: nc, g: g}
	g.mu.Lock()
	g.conns[c] = struct{}{}
	g.mu.Unlock()
	return c, nil
}

// enter admits a write, unless the gate is shut; leave ends it.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut {
		return false
	}
	g.busy.Add(1)
	return true
}

func (g *gate) leave() { g.busy.Done() }

// close shuts the gate, waits up to limit for the writes under way to
// return (false when some had not by then), and closes every connection.
func (g *gate) close(limit time.Duration) bool {
	g.mu.Lock()
	g.shut = true
	g.mu.Unlock()
	idle := make(chan struct{})
	go func() {
		g.busy.Wait()
		close(idle)
	}()
	ok := true
	select {
	case <-idle:
	case <-time.After(limit):
		ok = false
	}
	g.mu.Lock()
	conns := g.conns
	g.conns = map[*gatedConn]struct{}{}
	g.mu.Unlock()
	for c := range conns {
		c.Conn.Close()
	}
	return ok
}

// gatedConn is a connection of the gate: its writes pass the gate.
type gatedConn struct {
	net.Conn
	g *gate
}

func (c *gatedConn) Write(b []byte) (int, error) {
	if !c.g.enter() {
		return 0, errShut{c.g.name}
	}
	defer c.g.leave()
	return c.Conn.Write(b)
}

func (c *gatedConn) Close() error {
	c.g.mu.Lock()
	delete(c.g.conns, c)
	c.g.mu.Unlock()
	return c.Conn.Close()
}
