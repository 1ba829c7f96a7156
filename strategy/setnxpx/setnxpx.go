// Package setnxpx locks with one atomic command, SET key 1 NX PX ttl, and
// unlocks with DEL.
//
// Sources: document 003 (the SET with NX and a timeout it ends on) and
// document 004 (方式五).
//
// Algorithm:
//  1. SET key 1 NX PX ttl: OK means the lock is ours, nil that it is taken.
//     (Document 004 uses EX, seconds; PX is the same command in milliseconds.)
//  2. Work, then DEL key.
//
// How it breaks: the lock value says nothing about its owner, so a holder
// whose TTL ran out, or who releases twice, deletes the next holder's lock
// (safe-release, double-release) — the flaw document 004 itself points out
// before moving on to 方式六.
package setnxpx

import (
	"context"
	"errors"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// Strategy is the SET NX PX + DEL lock.
type Strategy struct{ b recipe.Base }

// New returns the strategy on pool p.
func New(p strategy.Pool) (*Strategy, error) {
	b, err := recipe.NewBase("setnxpx", p)
	if err != nil {
		return nil, err
	}
	return &Strategy{b: b}, nil
}

// TryAcquire sends SET key 1 NX PX ttl once.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	sess, err := s.b.Begin(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	_, err = redis.String(sess.Do("SET", 1, "NX", "PX", ttl.Milliseconds()))
	if err == nil {
		return s.b.DelLock(key), nil
	}
	if errors.Is(err, redis.ErrNil) {
		return nil, sess.NotAcquired()
	}
	return nil, err
}
