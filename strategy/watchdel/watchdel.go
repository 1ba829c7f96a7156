// Package watchdel is document 002's lock as its author meant it: SETNX of a
// uuid, then EXPIRE, and a release that WATCHes the key, compares its value
// with the uuid, and deletes it in a MULTI/EXEC transaction, which Redis
// aborts if the key changed since the WATCH.
//
// Source: document 002, section Implement (its parts 加锁实现, 锁超时的实现
// and 解锁). Its text says what the release is for: watch the key, check
// that its value is the uuid the lock wrote, and delete it only then. Its
// code reads the value inside MULTI, where GET answers only QUEUED (multiget
// copies that); here the GET comes before MULTI, and only the DEL is in the
// transaction.
//
// Algorithm:
//  1. SETNX key <uuid>; on 0 the lock is taken. The uuid is a
//     github.com/rs/xid token, unique to each acquisition.
//  2. PEXPIRE key ttl (milliseconds, as in setnxexpire; the document uses
//     EXPIRE, seconds).
//  3. When SETNX fails: TTL key, and if it is -2, PEXPIRE key ttl, the
//     document's repair with its bug (-1, "no expiry", was meant).
//  4. Work, then WATCH key; GET key; if it is not the uuid, UNWATCH and
//     stop: the lock is not ours. Otherwise MULTI, DEL key, EXEC. EXEC
//     answers nil when the key was changed (taken by someone else) after
//     the WATCH, and then nothing was deleted.
//
// The release is a correct compare-and-delete: WATCH makes the comparison
// and the DEL one step, as a Lua script does.
//
// How it breaks: the acquire is two commands. A client that dies between
// SETNX and EXPIRE leaves a lock that never expires, and the buggy repair
// does not save it (crash-mid-acquire). Like every TTL lock, a holder whose
// work outlasts the TTL shares the critical section with the next one
// (holder-overrun).
//
// Release returns an error matching strategy.ErrNotHeld when GET finds the
// key gone or holding another value, or when EXEC reports that the key
// changed after the WATCH.
package watchdel

import (
	"context"
	"errors"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// Strategy is document 002's lock with the release its text describes.
type Strategy struct{ v *recipe.Valued }

// New returns the strategy on pool p.
func New(p strategy.Pool) (*Strategy, error) {
	v, err := recipe.NewValued("watchdel", p, (*recipe.Base).SetnxExpire, recipe.Token, release)
	if err != nil {
		return nil, err
	}
	return &Strategy{v: v}, nil
}

// TryAcquire sends SETNX key <uuid> and, when it wins, PEXPIRE; when it
// loses, document 002's repair (recipe.Base.SetnxExpire).
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.v.TryAcquire(ctx, key, ttl)
}

// release sends WATCH key and GET key, and, when the value is the lock's
// uuid, MULTI, DEL key, EXEC; otherwise UNWATCH.
func release(s *recipe.Session, uuid string) error {
	if _, err := s.Do("WATCH"); err != nil {
		return err
	}
	ours, err := s.Holds(uuid)
	if err != nil {
		return err
	}
	if !ours {
		if _, err := s.Bare("UNWATCH"); err != nil {
			return err
		}
		return s.Fail("GET", strategy.ErrNotHeld)
	}
	if _, err := s.Bare("MULTI"); err != nil {
		return err
	}
	if _, err := s.Do("DEL"); err != nil { // queued
		return err
	}
	deleted, err := redis.Ints(s.Bare("EXEC"))
	if errors.Is(err, redis.ErrNil) { // aborted: the key changed after the WATCH
		return s.Fail("EXEC", strategy.ErrNotHeld)
	}
	if err != nil {
		return err
	}
	if len(deleted) != 1 || deleted[0] != 1 { // it expired after the WATCH
		return s.Fail("EXEC", strategy.ErrNotHeld)
	}
	return nil
}
