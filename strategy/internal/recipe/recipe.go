// Package recipe holds what the lock recipes share, so that each strategy
// package keeps only its own algorithm: a session that runs an attempt's
// commands on one connection, the two acquires several recipes copy (SET NX
// PX, and SETNX then EXPIRE), the plain DEL release, and the parts of the
// releases that compare a value before deleting.
package recipe

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

// Base is embedded by every strategy: its name (for errors) and its pool.
type Base struct {
	Name string
	Pool strategy.Pool
}

// NewBase checks the pool.
func NewBase(name string, p strategy.Pool) (Base, error) {
	if err := strategy.CheckPool(name, p); err != nil {
		return Base{}, err
	}
	return Base{Name: name, Pool: p}, nil
}

// Session runs the commands of one attempt on one connection.
type Session struct {
	b    *Base
	ctx  context.Context
	conn redis.Conn
	key  string
}

// Begin validates the arguments of TryAcquire and takes a connection.
func (b *Base) Begin(ctx context.Context, key string, ttl time.Duration) (*Session, error) {
	if err := strategy.Validate(key, ttl); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name, err)
	}
	return b.Open(ctx, key)
}

// Open takes a connection for commands on key, bounded by ctx.
func (b *Base) Open(ctx context.Context, key string) (*Session, error) {
	conn, err := b.Pool.GetContext(ctx)
	if err != nil {
		return nil, &strategy.OpError{Strategy: b.Name, Op: "connect", Key: key, Err: err}
	}
	return &Session{b: b, ctx: ctx, conn: conn, key: key}, nil
}

// Do sends one command; its first argument is the session's key.
// Errors come back as *strategy.OpError.
func (s *Session) Do(cmd string, args ...any) (any, error) {
	reply, err := Do(s.ctx, s.conn, cmd, append([]any{s.key}, args...)...)
	if err != nil {
		return nil, s.Fail(cmd, err)
	}
	return reply, nil
}

// Fail wraps err as an *strategy.OpError for step op.
func (s *Session) Fail(op string, err error) error {
	return &strategy.OpError{Strategy: s.b.Name, Op: op, Key: s.key, Err: err}
}

// NotAcquired is the error of an attempt that found the lock taken.
func (s *Session) NotAcquired() error {
	return fmt.Errorf("%s: %q: %w", s.b.Name, s.key, strategy.ErrNotAcquired)
}

// Ctx returns the attempt's context.
func (s *Session) Ctx() context.Context { return s.ctx }

// Close returns the connection to the pool.
func (s *Session) Close() { s.conn.Close() }

// DelLock is a lock released by a plain DEL, whoever holds the key by then:
// the release of setnxdel, setnxexpire and setnxpx.
type DelLock struct {
	b   *Base
	key string
}

// DelLock returns the lock on key that a strategy on b has taken.
func (b *Base) DelLock(key string) *DelLock { return &DelLock{b: b, key: key} }

// Key returns the locked key.
func (l *DelLock) Key() string { return l.key }

// Release deletes the key, whoever holds it: it cannot tell whose lock it
// deletes. It returns ErrNotHeld when there was no key to delete.
func (l *DelLock) Release(ctx context.Context) error {
	s, err := l.b.Open(ctx, l.key)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Del()
}

// Del sends DEL key, whoever holds the key: it cannot tell whose lock it
// deletes. It returns an error matching strategy.ErrNotHeld when there was
// no key to delete. It is the whole of DelLock's release (setnxdel,
// setnxexpire, setnxpx) and the last step of tokengetdel's.
func (s *Session) Del() error {
	n, err := redis.Int(s.Do("DEL"))
	if err != nil {
		return err
	}
	if n == 0 {
		return s.Fail("DEL", strategy.ErrNotHeld)
	}
	return nil
}

// Do sends one command on c, bounded by ctx when ctx can end and c supports
// it. A context that can never end costs no goroutine, and neither does
// one that can be cancelled but has no deadline (see cancelConn); redigo
// runs each command under a context with a deadline on a goroutine of its
// own.
func Do(ctx context.Context, c redis.Conn, cmd string, args ...any) (any, error) {
	if ctx.Done() != nil {
		if cc, ok := c.(redis.ConnWithContext); ok {
			if cn, ok := cancelOnly(ctx, cc); ok {
				return cn.Do(cmd, args...)
			}
			return cc.DoContext(ctx, cmd, args...)
		}
	}
	return c.Do(cmd, args...)
}

// Eval runs a script with EVALSHA, and with EVAL when the server does not
// have it cached, bounded by ctx as Do is.
func Eval(ctx context.Context, c redis.Conn, s *redis.Script, keysAndArgs ...any) (any, error) {
	if ctx.Done() != nil {
		if cc, ok := c.(redis.ConnWithContext); ok {
			if cn, ok := cancelOnly(ctx, cc); ok {
				return s.Do(cn, keysAndArgs...)
			}
			return s.DoContext(ctx, c, keysAndArgs...)
		}
	}
	return s.Do(c, keysAndArgs...)
}

// contextNative says whether c runs DoContext without a goroutine for its
// context, as the adapters' connections say they do (ContextNative): then
// c takes ctx as it is.
func contextNative(c redis.Conn) bool {
	n, ok := c.(interface{ ContextNative() bool })
	return ok && n.ContextNative()
}

// cancelOnly returns c with every command interrupted when ctx is
// cancelled, when ctx has no deadline and c would start a goroutine for a
// context (the adapters' connections do not: they run DoContext as they
// are).
func cancelOnly(ctx context.Context, c redis.ConnWithContext) (cancelConn, bool) {
	if _, ok := ctx.Deadline(); ok {
		return cancelConn{}, false
	}
	if contextNative(c) {
		return cancelConn{}, false
	}
	return cancelConn{ConnWithContext: c, ctx: ctx}, true
}

// cancelConn runs each command with Do on the caller's goroutine and has it
// interrupted if ctx is cancelled meanwhile: context.AfterFunc starts a
// goroutine only once ctx is done, where redigo's DoContext starts one for
// every command. That goroutine fails the connection the way DoContext does
// on cancellation, through ReceiveContext under a context whose deadline
// has passed: redigo then closes the connection at once, reads nothing and
// starts no goroutine, and the write or read the command is blocked in
// returns. The connection is then broken, and the pool discards it.
// ReceiveContext, unlike DoContext, leaves the pooled connection's state
// (MULTI, WATCH, SUBSCRIBE) alone, which Do may be writing meanwhile; and
// Do itself goes through whatever wraps the connection, as it would
// without a context.
type cancelConn struct {
	redis.ConnWithContext
	ctx context.Context
}

// Do sends the command and waits for its reply. Once ctx is done it sends
// nothing; a command whose reply came back is reported as it came, even
// if ctx was cancelled as it did (the command took effect); one cut short
// returns ctx's error.
func (c cancelConn) Do(cmd string, args ...any) (any, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	interrupted := make(chan struct{})
	stop := context.AfterFunc(c.ctx, func() {
		defer close(interrupted)
		_, _ = c.ReceiveContext(expired)
	})
	reply, err := c.ConnWithContext.Do(cmd, args...)
	if !stop() {
		// The connection is failed or being failed: wait until the
		// interruption is over before the caller closes it.
		<-interrupted
		if err != nil {
			return nil, c.ctx.Err()
		}
	}
	return reply, err
}

// expired is a context whose deadline has passed: redigo's ReceiveContext
// fails the connection under it without reading.
var expired = func() context.Context {
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	cancel()
	return ctx
}()

// DoBounded is Do for the commands of a lock's acquire and release, which
// must not cost more than the commands themselves: a context with a
// deadline bounds the command by a read deadline on the caller's own
// goroutine (redis.DoWithTimeout), where redigo's DoContext would start a
// goroutine for it and wake the caller from it, a hand-off that costs a
// single-goroutine caller about as much as the command (see
// docs/performance.md). The difference: a context cancelled before its
// deadline no longer interrupts a command already sent; the command
// returns with its reply, or at the deadline. A context that can be
// cancelled but has no deadline, and connections that run DoContext
// without a goroutine (the adapters'), go through Do, which interrupts the
// command on cancellation without a goroutine per command.
func DoBounded(ctx context.Context, c redis.Conn, cmd string, args ...any) (any, error) {
	if dc, ok := bounded(ctx, c); ok {
		return dc.Do(cmd, args...)
	}
	return Do(ctx, c, cmd, args...)
}

// EvalBounded is Eval bounded as DoBounded is.
func EvalBounded(ctx context.Context, c redis.Conn, s *redis.Script, keysAndArgs ...any) (any, error) {
	if dc, ok := bounded(ctx, c); ok {
		return s.Do(dc, keysAndArgs...)
	}
	return Eval(ctx, c, s, keysAndArgs...)
}

// bounded returns c with every command bounded by ctx's deadline, when ctx
// has one and c is a connection that takes a read timeout but would start
// a goroutine for a context.
func bounded(ctx context.Context, c redis.Conn) (deadlineConn, bool) {
	dl, ok := ctx.Deadline()
	if !ok {
		return deadlineConn{}, false
	}
	if contextNative(c) {
		return deadlineConn{}, false
	}
	ct, ok := c.(redis.ConnWithTimeout)
	if !ok {
		return deadlineConn{}, false
	}
	return deadlineConn{ConnWithTimeout: ct, ctx: ctx, deadline: dl}, true
}

// deadlineConn runs Do with a read timeout of the time left to deadline,
// and fails without sending once ctx is done, as redigo's DoContext does.
type deadlineConn struct {
	redis.ConnWithTimeout
	ctx      context.Context
	deadline time.Time
}

func (d deadlineConn) Do(cmd string, args ...any) (any, error) {
	if err := d.ctx.Err(); err != nil {
		return nil, err
	}
	left := time.Until(d.deadline)
	if left <= 0 {
		return nil, context.DeadlineExceeded
	}
	return d.DoWithTimeout(left, cmd, args...)
}
