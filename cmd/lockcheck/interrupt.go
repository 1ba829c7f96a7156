package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/gomodule/redigo/redis"
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

// onSignals returns a context that the first of interruptSignals cancels,
// with a signalled cause. A second signal ends the program at once, with
// the status of the first, saying what may be left behind.
func onSignals(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, interruptSignals...)
	go func() {
		first, _ := (<-sigs).(syscall.Signal)
		cancel(signalled{first})
		again, _ := (<-sigs).(syscall.Signal)
		fmt.Fprintf(stderr, "lockcheck: %s during the cleanup: exiting at once; keys of the run may remain "+
			"(lockcheck -cleanup removes them), and so may a Redis container it started (it expires by itself)\n",
			signalName(again))
		os.Exit(signalled{first}.status())
	}()
	return ctx, func() { signal.Stop(sigs); cancel(nil) }
}

// interruptStatus is the exit status of a run whose context ended: 128 plus
// the signal's number, or exitMismatch when no signal ended it.
func interruptStatus(ctx context.Context) int {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		return s.status()
	}
	return exitMismatch
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

// errShut is what the connections of a shut gate return: the command was
// not sent.
var errShut = errors.New("lockcheck: the run was interrupted: command not sent")

// gate is the run's connection pool, which can be shut: from then on no
// connection it gave out sends another command. The suite may leave a
// goroutine of an interrupted check running for a while after Check has
// returned (the scenario itself, or a command its context cut short); the
// gate makes sure that none of them writes a key once the cleanup starts.
type gate struct {
	pool *redis.Pool

	mu   sync.Mutex
	shut bool
	busy sync.WaitGroup // commands under way
}

func newGate(pool *redis.Pool) *gate { return &gate{pool: pool} }

// enter admits a command, unless the gate is shut; leave ends it.
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

// GetContext implements strategy.Pool.
func (g *gate) GetContext(ctx context.Context) (redis.Conn, error) {
	g.mu.Lock()
	shut := g.shut
	g.mu.Unlock()
	if shut {
		return nil, errShut
	}
	c, err := g.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	return &gatedConn{g: g, c: c}, nil
}

// close shuts the gate and waits up to limit for the commands under way to
// return; false when some had not by then.
func (g *gate) close(limit time.Duration) bool {
	g.mu.Lock()
	g.shut = true
	g.mu.Unlock()
	idle := make(chan struct{})
	go func() {
		g.busy.Wait()
		close(idle)
	}()
	select {
	case <-idle:
		return true
	case <-time.After(limit):
		return false
	}
}

// gatedConn is a connection of the gate. Everything that may send a
// command goes through the gate; reading replies (Receive) does not, as it
// writes nothing and may block for long on a subscription.
type gatedConn struct {
	g *gate
	c redis.Conn
}

var (
	_ redis.ConnWithContext = (*gatedConn)(nil)
	_ redis.ConnWithTimeout = (*gatedConn)(nil)
)

func (c *gatedConn) Close() error { return c.c.Close() }
func (c *gatedConn) Err() error   { return c.c.Err() }

func (c *gatedConn) Do(cmd string, args ...any) (any, error) {
	if !c.g.enter() {
		return nil, errShut
	}
	defer c.g.leave()
	return c.c.Do(cmd, args...)
}

func (c *gatedConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	if !c.g.enter() {
		return nil, errShut
	}
	defer c.g.leave()
	return redis.DoContext(c.c, ctx, cmd, args...)
}

func (c *gatedConn) DoWithTimeout(timeout time.Duration, cmd string, args ...any) (any, error) {
	if !c.g.enter() {
		return nil, errShut
	}
	defer c.g.leave()
	return redis.DoWithTimeout(c.c, timeout, cmd, args...)
}

func (c *gatedConn) Send(cmd string, args ...any) error {
	if !c.g.enter() {
		return errShut
	}
	defer c.g.leave()
	return c.c.Send(cmd, args...)
}

func (c *gatedConn) Flush() error {
	if !c.g.enter() {
		return errShut
	}
	defer c.g.leave()
	return c.c.Flush()
}

func (c *gatedConn) Receive() (any, error) { return c.c.Receive() }

func (c *gatedConn) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(c.c, ctx)
}

func (c *gatedConn) ReceiveWithTimeout(timeout time.Duration) (any, error) {
	return redis.ReceiveWithTimeout(c.c, timeout)
}
