// Package redigoconn implements redigo's redis.Conn over a Redis client
// library other than redigo, so that the locklab strategies, written
// against strategy.Pool, can run on that library's client. The adapters in
// adapters/ (go-redis, rueidis) each provide a Backend: how their client
// runs one command, several in a pipeline, commands on a connection of their
// own, and Pub/Sub. Conn does the rest as redigo's connections do:
//
//   - Do runs a command on the client's shared connections (pooled, or
//     pipelined automatically with the commands of other goroutines).
//   - WATCH and MULTI pin a connection of the client's own, on which the
//     commands after them run, until Close, which sends DISCARD and UNWATCH
//     when a transaction or a WATCH was left open, as redigo's pool does.
//   - Send queues commands and Flush sends them in one pipeline; Receive
//     returns their replies in order, and Do("") all of them.
//   - SUBSCRIBE, PSUBSCRIBE, UNSUBSCRIBE, PUNSUBSCRIBE (and PING after them)
//     sent with Send make the connection a Pub/Sub connection: Receive then
//     returns the confirmations, messages and PONGs in redigo's shapes.
//
// Replies come in redigo's types: a status as a string, a bulk string as a
// []byte, an integer as an int64, nil, an array as []any, and an error reply
// as a redis.Error, which is also returned as the error, so that redigo's
// Script falls back from EVALSHA to EVAL on NOSCRIPT. Since other clients do
// not tell a status from a bulk string, the command decides (see Kind).
package redigoconn

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Result is one reply of a pipeline: the reply, or the error (a redis.Error
// for an error reply).
type Result struct {
	Reply any
	Err   error
}

// Backend runs commands through one client library. Replies are in redigo's
// types (see the package documentation); an error reply is returned as a
// redis.Error error with a nil reply, a nil reply as nil, nil. A backend
// must not keep a *Cmd after the call returns.
type Backend interface {
	// Do runs cmd on the client's shared connections.
	Do(ctx context.Context, cmd *Cmd) (any, error)
	// DoMulti runs cmds in one pipeline, in order.
	DoMulti(ctx context.Context, cmds []*Cmd) []Result
	// Pin returns a connection no one else uses until it is closed, for the
	// commands that leave state on a connection. key is the first key of
	// the command that asked for it ("" when it has none), for clients that
	// must choose a node.
	Pin(ctx context.Context, key string) (Pinned, error)
	// PubSub opens a Pub/Sub connection and sends first on it: a
	// SUBSCRIBE, PSUBSCRIBE, UNSUBSCRIBE or PUNSUBSCRIBE.
	PubSub(ctx context.Context, first *Cmd) (PubSub, error)
}

// Pinned is a connection of the client's own.
type Pinned interface {
	Do(ctx context.Context, cmd *Cmd) (any, error)
	DoMulti(ctx context.Context, cmds []*Cmd) []Result
	// Close gives the connection back to the client.
	Close() error
}

// PubSub is a subscribed connection.
type PubSub interface {
	// Send writes SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE or PING.
	// It must not wait for the confirmation to be read by Receive.
	Send(ctx context.Context, cmd *Cmd) error
	// Receive returns the next confirmation, message or PONG, in redigo's
	// shape: []any{[]byte(kind), []byte(channel), int64(count)},
	// []any{[]byte("message"), []byte(channel), []byte(payload)},
	// []any{[]byte("pmessage"), []byte(pattern), []byte(channel), []byte(payload)},
	// []any{[]byte("pong"), []byte(payload)}. It waits until ctx is done.
	Receive(ctx context.Context) (any, error)
	// Close closes the connection; a Receive in progress returns an error.
	Close() error
}

var (
	errClosed     = errors.New("redigoconn: connection closed")
	errSubscribed = errors.New("redigoconn: Do on a subscribed connection; use Send and Receive")
	errMixed      = errors.New("redigoconn: Pub/Sub commands on a connection with pipelined commands pending")
	errNoReply    = errors.New("redigoconn: Receive with no reply pending")
)

// Conn is a redis.Conn (with redis.ConnWithContext and
// redis.ConnWithTimeout) over a Backend. Like redigo's, it allows one
// goroutine calling Send and Flush while another calls Receive; Do may not
// run concurrently with any other method.
type Conn struct {
	b     Backend
	pin   Pinned
	watch bool   // a WATCH was sent and no EXEC, DISCARD or UNWATCH since
	multi bool   // a MULTI was sent and no EXEC or DISCARD since
	want  bool   // the unsent commands need the pinned connection
	queue []Kind // the kinds of the commands queued since MULTI

	mu      sync.Mutex // guards what Send and Flush share with Receive
	ps      PubSub
	unsent  []*Cmd   // sent with Send, not flushed yet
	replies []Result // flushed, not received yet
	broken  error    // the pinned or Pub/Sub connection failed
	closed  bool

	// The command of Do, and room for its arguments, so that Do allocates
	// nothing of its own for up to seven arguments.
	one Cmd
	buf [8]any
}

var (
	_ redis.ConnWithContext = (*Conn)(nil)
	_ redis.ConnWithTimeout = (*Conn)(nil)
)

// New returns a connection over b.
func New(b Backend) *Conn { return &Conn{b: b} }

// Err returns the error that made the connection unusable, if any.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	return c.broken
}

func (c *Conn) state() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	return c.broken
}

// Do runs a command without a deadline of its own (the client's timeouts
// apply).
func (c *Conn) Do(name string, args ...any) (any, error) {
	return c.DoContext(context.Background(), name, args...)
}

// DoWithTimeout runs a command bounded by timeout (none when it is 0).
func (c *Conn) DoWithTimeout(timeout time.Duration, name string, args ...any) (any, error) {
	if timeout <= 0 {
		return c.DoContext(context.Background(), name, args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return c.DoContext(ctx, name, args...)
}

// ContextNative reports that DoContext hands ctx to the Backend as it is,
// starting no goroutine for it, unlike redigo's connections: a caller
// need not work around that cost.
func (c *Conn) ContextNative() bool { return true }

// DoContext runs a command bounded by ctx. With commands sent and not
// received yet, it sends them along and returns the last reply and the
// first error reply, as redigo does; Do("") returns all their replies.
func (c *Conn) DoContext(ctx context.Context, name string, args ...any) (any, error) {
	if err := c.state(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	subscribed, outstanding := c.ps != nil, len(c.unsent)+len(c.replies) > 0
	c.mu.Unlock()
	if subscribed {
		return nil, errSubscribed
	}
	if name == "" || outstanding {
		return c.doPending(ctx, name, args)
	}
	cmd := &c.one
	upper := c.fill(cmd, c.buf[:0], name, args)
	c.track(upper, cmd)
	var reply any
	var err error
	if c.pin != nil || c.needPin(upper) {
		if err = c.pinFor(ctx, cmd); err == nil {
			reply, err = c.pin.Do(ctx, cmd)
			c.checkPinned(err)
		}
	} else {
		reply, err = c.b.Do(ctx, cmd)
	}
	cmd.Args, cmd.Queued = nil, nil
	clear(c.buf[:])
	if re, ok := err.(redis.Error); ok {
		return re, re
	}
	return reply, err
}

// doPending flushes what was sent and returns, for name "", every reply
// not received yet, or else the reply of one more command after them.
func (c *Conn) doPending(ctx context.Context, name string, args []any) (any, error) {
	if name != "" {
		if err := c.send(name, args); err != nil {
			return nil, err
		}
	}
	if err := c.flush(ctx); err != nil {
		return nil, err
	}
	c.mu.Lock()
	rs := c.replies
	c.replies = nil
	c.mu.Unlock()
	if name == "" {
		out := make([]any, len(rs))
		for i, r := range rs {
			if r.Err != nil {
				if _, ok := r.Err.(redis.Error); !ok {
					return nil, r.Err
				}
				out[i] = r.Err
				continue
			}
			out[i] = r.Reply
		}
		return out, nil
	}
	var first error
	for _, r := range rs {
		if r.Err == nil {
			continue
		}
		if _, ok := r.Err.(redis.Error); !ok {
			return nil, r.Err
		}
		if first == nil {
			first = r.Err
		}
	}
	last := rs[len(rs)-1]
	if last.Err != nil {
		return last.Err, first
	}
	return last.Reply, first
}

// fill makes cmd the command name with args, in buf, and returns the name
// in upper case.
func (c *Conn) fill(cmd *Cmd, buf []any, name string, args []any) string {
	buf = append(buf, boxName(name))
	for _, a := range args {
		buf = append(buf, Arg(a))
	}
	upper := strings.ToUpper(name)
	cmd.Args, cmd.Kind, cmd.Queued = buf, kindOf(upper, args), nil
	return upper
}

// track follows the transaction state the command leaves on its
// connection, and types the replies of the commands queued in it.
func (c *Conn) track(upper string, cmd *Cmd) {
	switch upper {
	case "WATCH":
		c.watch = true
	case "UNWATCH":
		c.watch = false
	case "MULTI":
		c.multi, c.queue = true, nil
	case "EXEC", "DISCARD":
		if c.multi && upper == "EXEC" {
			cmd.Kind, cmd.Queued = Exec, c.queue
		}
		c.multi, c.watch, c.queue = false, false, nil
	default:
		if c.multi {
			c.queue = append(c.queue, cmd.Kind)
			cmd.Kind = Status // QUEUED
		}
	}
}

// needPin reports whether a command must run on the pinned connection.
func (c *Conn) needPin(upper string) bool {
	return stateful(upper) || c.watch || c.multi
}

// pinFor pins a connection for cmd, unless one is pinned already.
func (c *Conn) pinFor(ctx context.Context, cmd *Cmd) error {
	if c.pin != nil {
		return nil
	}
	key := ""
	if len(cmd.Args) > 1 && cmd.Name() != "MULTI" {
		key = ArgString(cmd.Args[1])
	}
	p, err := c.b.Pin(ctx, key)
	if err != nil {
		return err
	}
	c.pin = p
	return nil
}

// checkPinned marks the connection broken when the pinned connection
// failed: its transaction state is unknown from then on.
func (c *Conn) checkPinned(err error) {
	if err == nil {
		return
	}
	if _, ok := err.(redis.Error); ok {
		return
	}
	c.mu.Lock()
	if c.broken == nil {
		c.broken = err
	}
	c.mu.Unlock()
}

// Send queues a command, or writes a Pub/Sub command at once.
func (c *Conn) Send(name string, args ...any) error {
	if err := c.state(); err != nil {
		return err
	}
	return c.send(name, args)
}

func (c *Conn) send(name string, args []any) error {
	upper := strings.ToUpper(name)
	c.mu.Lock()
	ps := c.ps
	mixed := len(c.unsent)+len(c.replies) > 0
	c.mu.Unlock()
	if pubSub(upper) || (ps != nil && upper == "PING") {
		if mixed {
			return errMixed
		}
		return c.sendPubSub(ps, name, args)
	}
	if ps != nil {
		return errSubscribed
	}
	cmd := &Cmd{}
	upper = c.fill(cmd, make([]any, 0, len(args)+1), name, args)
	c.track(upper, cmd)
	if c.needPin(upper) {
		c.want = true
	}
	c.mu.Lock()
	c.unsent = append(c.unsent, cmd)
	c.mu.Unlock()
	return nil
}

func (c *Conn) sendPubSub(ps PubSub, name string, args []any) error {
	bg := context.Background()
	cmd := &Cmd{}
	c.fill(cmd, make([]any, 0, len(args)+1), name, args)
	if ps == nil {
		ps, err := c.b.PubSub(bg, cmd)
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.ps = ps
		c.mu.Unlock()
		return nil
	}
	if err := ps.Send(bg, cmd); err != nil {
		// The connection is broken: make the Receive in progress, or the
		// next one, fail, as a write error on a redigo connection does.
		c.mu.Lock()
		if c.broken == nil {
			c.broken = err
		}
		c.mu.Unlock()
		_ = ps.Close()
		return err
	}
	return nil
}

// Flush sends the queued commands in one pipeline. Commands for a
// subscribed connection were written by Send already.
func (c *Conn) Flush() error {
	if err := c.state(); err != nil {
		return err
	}
	return c.flush(context.Background())
}

func (c *Conn) flush(ctx context.Context) error {
	c.mu.Lock()
	cmds := c.unsent
	c.unsent = nil
	c.mu.Unlock()
	if len(cmds) == 0 {
		return nil
	}
	var rs []Result
	if c.pin != nil || c.want {
		c.want = false
		var err error
		if c.pin == nil {
			err = c.pinFor(ctx, firstKeyed(cmds))
		}
		if err != nil {
			rs = make([]Result, len(cmds))
			for i := range rs {
				rs[i].Err = err
			}
		} else {
			rs = c.pin.DoMulti(ctx, cmds)
			for _, r := range rs {
				c.checkPinned(r.Err)
			}
		}
	} else {
		rs = c.b.DoMulti(ctx, cmds)
	}
	c.mu.Lock()
	c.replies = append(c.replies, rs...)
	c.mu.Unlock()
	for _, r := range rs {
		if _, ok := r.Err.(redis.Error); r.Err != nil && !ok {
			return r.Err
		}
	}
	return nil
}

// firstKeyed returns the first command that names a key, for Pin.
func firstKeyed(cmds []*Cmd) *Cmd {
	for _, cmd := range cmds {
		if len(cmd.Args) > 1 && strings.ToUpper(cmd.Name()) != "MULTI" {
			return cmd
		}
	}
	return cmds[0]
}

// Receive returns the next reply: of a command sent with Send (flushing
// what is unsent), or of the subscribed connection, waiting as long as it
// takes.
func (c *Conn) Receive() (any, error) {
	return c.ReceiveContext(context.Background())
}

// ReceiveWithTimeout is Receive bounded by timeout (none when it is 0).
func (c *Conn) ReceiveWithTimeout(timeout time.Duration) (any, error) {
	if timeout <= 0 {
		return c.ReceiveContext(context.Background())
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return c.ReceiveContext(ctx)
}

// ReceiveContext is Receive bounded by ctx. On a subscribed connection an
// error, a timeout included, leaves the connection unusable, as in redigo.
func (c *Conn) ReceiveContext(ctx context.Context) (any, error) {
	if err := c.state(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	ps := c.ps
	c.mu.Unlock()
	if ps != nil {
		v, err := ps.Receive(ctx)
		if err != nil {
			c.mu.Lock()
			if c.broken == nil {
				c.broken = err
			}
			err = c.broken
			c.mu.Unlock()
			return nil, err
		}
		return v, nil
	}
	if err := c.flush(ctx); err != nil {
		c.mu.Lock()
		empty := len(c.replies) == 0
		c.mu.Unlock()
		if empty {
			return nil, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.replies) == 0 {
		return nil, errNoReply
	}
	r := c.replies[0]
	c.replies = c.replies[1:]
	if r.Err != nil {
		return nil, r.Err
	}
	return r.Reply, nil
}

// Close gives back what the connection holds: the pinned connection, after
// DISCARD and UNWATCH when a transaction or a WATCH is open, and the
// subscribed connection. Commands sent and not flushed are dropped.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	ps, broken := c.ps, c.broken
	c.unsent, c.replies = nil, nil
	c.mu.Unlock()
	var err error
	if ps != nil {
		err = ps.Close()
	}
	if c.pin != nil {
		if broken == nil && (c.multi || c.watch) {
			bg := context.Background()
			if c.multi {
				c.one = Cmd{Args: []any{"DISCARD"}, Kind: Status}
				_, _ = c.pin.Do(bg, &c.one)
			} else {
				c.one = Cmd{Args: []any{"UNWATCH"}, Kind: Status}
				_, _ = c.pin.Do(bg, &c.one)
			}
			c.one = Cmd{}
		}
		err = errors.Join(err, c.pin.Close())
		c.pin = nil
	}
	return err
}
