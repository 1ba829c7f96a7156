package recipe

import (
	"context"
	"errors"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/rs/xid"
)

// Valued is a lock whose key holds a value the lock remembers, and whose
// release looks at that value before it deletes (or tries to): the recipe
// that fixedpassword, tokengetdel, multiget and watchdel share. They differ
// only in the acquire (SetNXPX or SetnxExpire), the value each lock writes,
// and the release.
type Valued struct {
	Base
	// Acquire writes value at key for ttl, or fails with ErrNotAcquired:
	// (*Base).SetNXPX or (*Base).SetnxExpire.
	Acquire func(b *Base, ctx context.Context, key string, value any, ttl time.Duration) error
	// Value returns the value of a new lock: Token, or a constant.
	Value func() string
	// Release gives up the lock that wrote value, on a session on its key.
	Release func(s *Session, value string) error
}

// NewValued builds a Valued strategy.
func NewValued(name string, p strategy.Pool,
	acquire func(*Base, context.Context, string, any, time.Duration) error,
	value func() string, release func(*Session, string) error) (*Valued, error) {
	b, err := NewBase(name, p)
	if err != nil {
		return nil, err
	}
	return &Valued{Base: b, Acquire: acquire, Value: value, Release: release}, nil
}

// TryAcquire makes one attempt with a new value.
func (v *Valued) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	value := v.Value()
	if err := v.Acquire(&v.Base, ctx, key, value, ttl); err != nil {
		return nil, err
	}
	return &valuedLock{v: v, key: key, value: value}, nil
}

// Token returns a value unique to one acquisition: an xid, as luatoken's.
func Token() string { return xid.New().String() }

type valuedLock struct {
	v          *Valued
	key, value string
}

func (l *valuedLock) Key() string { return l.key }

func (l *valuedLock) Release(ctx context.Context) error {
	s, err := l.v.Open(ctx, l.key)
	if err != nil {
		return err
	}
	defer s.Close()
	return l.v.Release(s, l.value)
}

// Holds sends GET key and reports whether the key holds value; a missing
// key does not.
func (s *Session) Holds(value string) (bool, error) {
	v, err := redis.String(s.Do("GET"))
	if errors.Is(err, redis.ErrNil) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return v == value, nil
}

// Bare sends a command that takes no key, such as MULTI, EXEC or UNWATCH.
// Errors come back as *strategy.OpError.
func (s *Session) Bare(cmd string) (any, error) {
	reply, err := Do(s.ctx, s.conn, cmd)
	if err != nil {
		return nil, s.Fail(cmd, err)
	}
	return reply, nil
}

// EvalText sends src, a script's text, with EVAL on every call, the
// session's key as KEYS[1] and args as ARGV: what a document that calls
// eval does. Errors come back as *strategy.OpError.
func (s *Session) EvalText(src string, args ...any) (any, error) {
	reply, err := Do(s.ctx, s.conn, "EVAL", append([]any{src, 1, s.key}, args...)...)
	if err != nil {
		return nil, s.Fail("EVAL", err)
	}
	return reply, nil
}

// Eval runs script with the session's key as KEYS[1] and args as ARGV.
// Errors come back as *strategy.OpError.
func (s *Session) Eval(script *redis.Script, args ...any) (any, error) {
	reply, err := Eval(s.ctx, s.conn, script, append([]any{s.key}, args...)...)
	if err != nil {
		return nil, s.Fail("EVAL", err)
	}
	return reply, nil
}
