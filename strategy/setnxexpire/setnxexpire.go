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

// TryAcquire sends SETNX key 1 and, when it wins, PEXPIRE; when it loses,
// document 002's repair (recipe.Base.SetnxExpire).
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if err := s.b.SetnxExpire(ctx, key, 1, ttl); err != nil {
		return nil, err
	}
	return s.b.DelLock(key), nil
}
