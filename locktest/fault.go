package locktest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

// errCrashed is what a crashed client's commands return: they are never sent.
var errCrashed = errors.New("locktest: client crashed")

// client is one simulated process: its own strategy instance, built by the
// factory on a pool and a clock that the suite controls.
type client struct {
	name string
	r    *run
	s    strategy.Strategy
	skew time.Duration

	mu         sync.Mutex
	crashAfter int // crash once this many commands have returned; 0: never
	sent       int
	crashed    bool
	gate       func(ctx context.Context, cmd string) error // before each command; may block
	paused     chan struct{}                               // while non-nil, commands wait for it to close

	pauseAt  int           // pause once this many commands have returned; 0: never
	pauseWhy string        // what the pause note says
	reached  chan struct{} // becomes arrive when the pause at pauseAt begins
	arrive   chan struct{} // closed when the paused client reaches its next command
	failNext bool          // the next command fails without being sent
	inMulti  bool          // between MULTI and EXEC/DISCARD: commands are only queued
	lastCmd  string
}

// faultPool hands a client's strategy connections that report to the client.
type faultPool struct{ c *client }

func (p faultPool) GetContext(ctx context.Context) (redis.Conn, error) {
	c := p.c
	if c.isCrashed() {
		return nil, errCrashed
	}
	conn, err := c.r.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	return &faultConn{c: c, conn: conn}, nil
}

// faultClock is a client's clock: the real time plus the client's skew.
// Every reading is recorded.
type faultClock struct{ c *client }

func (k faultClock) Now() time.Time {
	now := time.Now().Add(k.c.skew)
	r := k.c.r
	r.clockReads.Add(1)
	text := fmt.Sprintf("now = %s", r.stamp(now.UnixMilli()))
	if k.c.skew != 0 {
		text += fmt.Sprintf(" (clock %+v ahead)", k.c.skew)
	}
	r.rec.add(Event{Client: k.c.name, Kind: EvClock, Text: text})
	return now
}

func (c *client) isCrashed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.crashed
}

// crash kills the client, once: it sends nothing more.
func (c *client) crash(why string) {
	if !c.kill() {
		c.r.rec.add(Event{Client: c.name, Kind: EvCrash, Text: why})
	}
}

// kill marks the client crashed and says whether it was already: none of
// its connections sends another command. They are not closed from here: a
// connection may be in use by another goroutine of the client, and redigo's
// connections are not safe for a concurrent Close. The connection whose
// command triggers a crash is closed by its own goroutine (see DoContext).
func (c *client) kill() (already bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	already, c.crashed = c.crashed, true
	return already
}

// pause makes the client's commands wait until resume; pause models a
// process whose connection stalls with its work unfinished. Only its
// commands are held: its goroutines and timers (a lease deadline) keep
// running, so this is a stalled connection, not a whole-process pause.
func (c *client) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == nil {
		c.paused = make(chan struct{})
	}
}

func (c *client) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused != nil {
		close(c.paused)
		c.paused = nil
	}
}

// before runs ahead of every command: a crashed client sends nothing, a
// paused one waits, and a scheduled one waits for its turn.
func (c *client) before(ctx context.Context, cmd string) error {
	c.mu.Lock()
	crashed, paused, gate := c.crashed, c.paused, c.gate
	arrive, why := c.arrive, c.pauseWhy
	if paused != nil && !crashed {
		c.arrive = nil
	}
	c.mu.Unlock()
	if crashed {
		return errCrashed
	}
	if paused != nil {
		// A pause at a boundary begins here, at the next command, once
		// whatever the client does between two commands (a clock read, a
		// compare) is done: the timeline is the same on every run.
		if arrive != nil {
			c.r.rec.add(Event{Client: c.name, Kind: EvPause, Text: why})
			close(arrive)
		}
		select {
		case <-paused:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.r.ctx.Done():
			return c.r.ctx.Err()
		}
	}
	if gate != nil {
		if err := gate(ctx, cmd); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.crashed {
		return errCrashed
	}
	if c.failNext {
		c.failNext = false
		return errInjected
	}
	return nil
}

// errInjected is the error of a command the suite made fail: it was never
// sent, as when a connection drops before a request leaves.
var errInjected = errors.New("locktest: injected failure: the command was not sent")

// after records a command and crashes the client when its count is reached.
func (c *client) after(cmd string, args []any, reply any, err error) (crashed bool) {
	e := Event{Client: c.name, Kind: EvCommand, Command: append([]string{cmd}, formatArgs(c.r, args)...)}
	if err != nil {
		e.Err = c.r.errText(err)
	} else {
		e.Reply = formatReply(c.r, reply)
	}
	c.r.rec.add(e)
	c.mu.Lock()
	c.sent++
	c.lastCmd = cmd
	switch strings.ToUpper(cmd) {
	case "MULTI":
		c.inMulti = err == nil
	case "EXEC", "DISCARD":
		c.inMulti = false
	}
	crash := c.crashAfter > 0 && c.sent >= c.crashAfter
	sent := c.sent
	if !crash && c.pauseAt > 0 && c.sent == c.pauseAt {
		c.pauseAt = 0
		if c.paused == nil {
			c.paused = make(chan struct{})
		}
		if c.inMulti {
			c.pauseWhy += " (inside MULTI: what it queued runs only at EXEC)"
		}
		c.arrive, c.reached = c.reached, nil
		c.mu.Unlock()
		return false
	}
	c.mu.Unlock()
	if crash {
		c.crash(fmt.Sprintf("dies right after its command #%d (%s) returns", sent, cmd))
	}
	return crash
}

// faultConn is a connection of a client. Only Do is watched and steered;
// Send/Flush/Receive (pipelines, pub/sub) are recorded and passed through.
type faultConn struct {
	c    *client
	conn redis.Conn
}

func (f *faultConn) Close() error { return f.conn.Close() }

func (f *faultConn) Err() error { return f.conn.Err() }

func (f *faultConn) Do(cmd string, args ...any) (any, error) {
	return f.DoContext(context.Background(), cmd, args...)
}

func (f *faultConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	if cmd == "" { // redigo's flush-and-receive-all form
		return redis.DoContext(f.conn, ctx, cmd, args...)
	}
	if err := f.c.before(ctx, cmd); err != nil {
		return nil, err
	}
	reply, err := redis.DoContext(f.conn, ctx, cmd, args...)
	if f.c.after(cmd, args, reply, err) {
		f.conn.Close() // this goroutine owns it: the crashed client's connection closes
	}
	return reply, err
}

func (f *faultConn) Send(cmd string, args ...any) error {
	if f.c.isCrashed() {
		return errCrashed
	}
	e := Event{Client: f.c.name, Kind: EvCommand, Command: append([]string{cmd}, formatArgs(f.c.r, args)...), Reply: "(sent)"}
	f.c.r.rec.add(e)
	return f.conn.Send(cmd, args...)
}

func (f *faultConn) Flush() error {
	if f.c.isCrashed() {
		return errCrashed
	}
	return f.conn.Flush()
}

func (f *faultConn) Receive() (any, error) { return f.conn.Receive() }

func (f *faultConn) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(f.conn, ctx)
}

func formatArgs(r *run, args []any) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = formatValue(r, a)
	}
	return out
}

func formatValue(r *run, v any) string {
	switch v := v.(type) {
	case nil:
		return "(nil)"
	case string:
		return r.value(v)
	case []byte:
		return r.value(string(v))
	case int64:
		return r.value(strconv.FormatInt(v, 10))
	case int:
		return r.value(strconv.Itoa(v))
	case redis.Error:
		return "error: " + string(v)
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = formatValue(r, x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	default:
		return fmt.Sprint(v)
	}
}

func formatReply(r *run, v any) string {
	if s, ok := v.(string); ok { // status replies such as OK
		return s
	}
	return formatValue(r, v)
}
