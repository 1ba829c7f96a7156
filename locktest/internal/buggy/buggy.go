// Package buggy holds lock strategies with one seeded bug each, which none of
// locklab's six strategies has. They exist only to prove that the
// conformance suite has teeth: each must be caught.
package buggy

import (
	"context"
	"errors"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/rs/xid"
)

// base sends one command on a fresh connection.
type base struct{ pool strategy.Pool }

func (b base) do(ctx context.Context, cmd string, args ...any) (any, error) {
	c, err := b.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return redis.DoContext(c, ctx, cmd, args...)
}

// setNX sets a fresh token at key with SET NX and the given expiry
// arguments, and returns a lock that release deletes.
func (b base) setNX(ctx context.Context, key string, release *redis.Script, expiry ...any) (strategy.Lock, error) {
	token := xid.New().String()
	_, err := redis.String(b.do(ctx, "SET", append([]any{key, token, "NX"}, expiry...)...))
	if errors.Is(err, redis.ErrNil) {
		return nil, strategy.ErrNotAcquired
	}
	if err != nil {
		return nil, err
	}
	return &lock{b: b, key: key, token: token, release: release}, nil
}

// lock is released by a script that takes the key and the token and
// answers 1 when it deleted the key.
type lock struct {
	b       base
	key     string
	token   string
	release *redis.Script
}

func (l *lock) Key() string { return l.key }

func (l *lock) Release(ctx context.Context) error {
	c, err := l.b.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	n, err := redis.Int(l.release.DoContext(ctx, c, l.key, l.token))
	if err == nil && n == 0 {
		err = strategy.ErrNotHeld
	}
	return err
}

// safeRelease is luatoken's compare-and-delete: the release without a bug.
var safeRelease = redis.NewScript(1, `
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// LengthCompare is a token lock whose release script compares the length
// of the stored token with its own instead of the tokens themselves. Every
// xid is 20 characters long, so it frees other clients' locks.
type LengthCompare struct{ b base }

// NewLengthCompare returns the strategy.
func NewLengthCompare(p strategy.Pool) *LengthCompare { return &LengthCompare{base{p}} }

var lengthRelease = redis.NewScript(1, `
if #(redis.call("GET", KEYS[1]) or "") == #ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// TryAcquire sets a token with NX PX, as luatoken does.
func (s *LengthCompare) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.b.setNX(ctx, key, lengthRelease, "PX", ttl.Milliseconds())
}

// StaleRead acquires when a GET finds no key, then SETs without NX: the
// check and the set are two commands, and two clients can both pass the
// check.
type StaleRead struct{ b base }

// NewStaleRead returns the strategy.
func NewStaleRead(p strategy.Pool) *StaleRead { return &StaleRead{base{p}} }

// TryAcquire reads, then writes.
func (s *StaleRead) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	v, err := s.b.do(ctx, "GET", key)
	if err != nil {
		return nil, err
	}
	if v != nil {
		return nil, strategy.ErrNotAcquired
	}
	token := xid.New().String()
	if _, err := s.b.do(ctx, "SET", key, token, "PX", ttl.Milliseconds()); err != nil {
		return nil, err
	}
	return &lock{b: s.b, key: key, token: token, release: safeRelease}, nil
}

// UnitMix passes the TTL in milliseconds where EX expects seconds: the
// lock lives a thousand times longer than asked, and a crashed holder's
// lock outlives every waiter's patience.
type UnitMix struct{ b base }

// NewUnitMix returns the strategy.
func NewUnitMix(p strategy.Pool) *UnitMix { return &UnitMix{base{p}} }

// TryAcquire sets the token with NX EX <milliseconds>.
func (s *UnitMix) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.b.setNX(ctx, key, safeRelease, "EX", ttl.Milliseconds())
}
