// Package setnxdel is the simplest Redis lock recipe: SETNX to lock, DEL to
// unlock, and no expiry at all.
//
// Sources: document 004 (方式一 and 方式二) and the "简易锁" of document 003.
//
// Algorithm:
//  1. SETNX key 1: a reply of 1 means the lock is ours, 0 means it is taken.
//  2. Work.
//  3. DEL key.
//
// The ttl passed to TryAcquire is checked like every strategy's but otherwise
// ignored: the key never expires.
//
// How it breaks: a holder that crashes before its DEL leaves the key forever
// and every other client waits forever (crash-recovery); a DEL sent twice
// deletes whoever's lock is there by then (double-release). Document 004's
// 方式二 "fixes" a failed DEL with EXPIRE key 0, which fails in the same way
// the DEL did.
package setnxdel

import (
	"context"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// Strategy is the SETNX + DEL lock.
type Strategy struct{ b recipe.Base }

// New returns the strategy on pool p.
func New(p strategy.Pool) (*Strategy, error) {
	b, err := recipe.NewBase("setnxdel", p)
	if err != nil {
		return nil, err
	}
	return &Strategy{b: b}, nil
}

// TryAcquire sends SETNX key 1 once. ttl must be valid but is not used.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	sess, err := s.b.Begin(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	won, err := redis.Bool(sess.Do("SETNX", 1))
	if err != nil {
		return nil, err
	}
	if !won {
		return nil, sess.NotAcquired()
	}
	return s.b.DelLock(key), nil
}
