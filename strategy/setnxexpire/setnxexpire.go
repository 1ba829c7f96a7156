// Package setnxexpire is the two-command recipe: SETNX to lock, then EXPIRE
// so that a crashed holder's lock goes away, DEL to unlock.
//
// Sources: document 003 (方案1, and the interview answer it opens with) and
// document 002 (lock with a timeout).
//
// Algorithm:
//  1. SETNX key 1; on 0 the lock is taken.
//  2. PEXPIRE key ttl. (The documents use EXPIRE in seconds; milliseconds keep
//     the same two-command flaw and allow short TTLs.)
//  3. When SETNX fails: TTL key, and if it is -2, PEXPIRE key ttl — document
//     002's repair for a lock left without expiry. It is copied with its bug:
//     -2 means "no such key", so the repair never fires; -1, "no expiry", was
//     meant.
//  4. Work, then DEL key.
//
// How it breaks: a client that dies between SETNX and EXPIRE leaves a lock
// that never expires (crash-mid-acquire), and the buggy repair does not save
// it. The DEL release frees whoever holds the lock by then: after the TTL
// passed (safe-release) or when sent twice (double-release).
package setnxexpire

import (
	"context"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// Strategy is the SETNX + EXPIRE lock.
type Strategy struct{ b recipe.Base }

// New returns the strategy on pool p.
func New(p strategy.Pool) (*Strategy, error) {
	b, err := recipe.NewBase("setnxexpire", p)
	if err != nil {
		return nil, err
	}
	return &Strategy{b: b}, nil
}

// TryAcquire sends SETNX and, when it wins, PEXPIRE.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	sess, err := s.b.Begin(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	ms := ttl.Milliseconds()
	won, err := redis.Bool(sess.Do("SETNX", 1))
	if err != nil {
		return nil, err
	}
	if !won {
		left, err := redis.Int64(sess.Do("TTL"))
		if err != nil {
			return nil, err
		}
		if left == -2 { // document 002's check; -1 was meant
			if _, err := sess.Do("PEXPIRE", ms); err != nil {
				return nil, err
			}
		}
		return nil, sess.NotAcquired()
	}
	if _, err := sess.Do("PEXPIRE", ms); err != nil {
		return nil, err
	}
	return &recipe.DelLock{B: &s.b, K: key}, nil
}
