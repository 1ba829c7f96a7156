// Package multiget is document 002's lock as published: SETNX of a uuid,
// then EXPIRE, and a release that reads the value with GET inside a
// WATCH/MULTI transaction, where the reply is only QUEUED, so that it never
// deletes anything.
//
// Source: document 002, section Implement (its parts 加锁实现, 锁超时的实现
// and 解锁: lock, lock with a timeout, release). watchdel is the same
// document as its author meant it.
//
// Algorithm:
//  1. SETNX key <uuid>; on 0 the lock is taken. The uuid is a
//     github.com/rs/xid token: a value unique to each acquisition, which is
//     all the document asks of its uuid() ("implement it yourself").
//  2. PEXPIRE key ttl. (The document uses EXPIRE in seconds; milliseconds
//     keep the same two-command flaw and allow short TTLs, as in
//     setnxexpire.)
//  3. When SETNX fails: TTL key, and if it is -2, PEXPIRE key ttl. The
//     document's repair for a lock left without expiry, with its bug: -2
//     means "no such key"; -1, "no expiry", was meant.
//  4. Work, then release as document 002's releaseLock does: WATCH key,
//     MULTI, GET key, EXEC, compare what GET returned with the uuid,
//     UNWATCH. Inside MULTI, Redis queues GET and answers QUEUED; the value
//     comes back only in EXEC's reply, which the document drops. QUEUED is
//     never the uuid, so the branch that would DEL is never taken.
//
// How it breaks: Release never frees the lock: it stays until its TTL runs
// out, and every waiter waits that long (release-frees). A client that dies
// between SETNX and EXPIRE leaves a lock that never expires, which the buggy
// repair does not save (crash-mid-acquire).
//
// Release cannot tell whether the lock was its own: its comparison always
// fails. It returns nil whenever its commands succeed, having deleted
// nothing. (The document's releaseLock returns false every time.)
package multiget

import (
	"context"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// Strategy is document 002's lock with its published release.
type Strategy struct{ v *recipe.Valued }

// New returns the strategy on pool p.
func New(p strategy.Pool) (*Strategy, error) {
	v, err := recipe.NewValued("multiget", p, (*recipe.Base).SetnxExpire, recipe.Token, release)
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

// release is document 002's releaseLock, command for command: WATCH, MULTI,
// GET, EXEC, then the comparison of GET's reply, QUEUED, with the uuid,
// which fails, and UNWATCH. It deletes nothing.
func release(s *recipe.Session, uuid string) error {
	if _, err := s.Do("WATCH"); err != nil {
		return err
	}
	if _, err := s.Bare("MULTI"); err != nil {
		return err
	}
	t, err := redis.String(s.Do("GET")) // queued: t is "QUEUED"
	if err != nil {
		return err
	}
	if _, err := s.Bare("EXEC"); err != nil { // the value, in a reply nobody reads
		return err
	}
	if t == uuid { // never: the document's DEL and its EXEC outside MULTI
		if _, err := s.Do("DEL"); err != nil {
			return err
		}
		_, err := s.Bare("EXEC")
		return err
	}
	_, err = s.Bare("UNWATCH")
	return err
}
