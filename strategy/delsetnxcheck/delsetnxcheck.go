// Package delsetnxcheck is document 004's 方式三 as its code writes it: the
// timestamp lock whose stale lock is taken over with DEL then SETNX, like
// package delsetnx, but which gives up when its DEL deletes nothing, and
// releases with a plain DEL. The name says what it adds to delsetnx: the
// check of DEL's count.
//
// Source: document 004, 方式三, its code from 锁超时时间 to 释放锁.
//
// A package rather than an option of delsetnx: document 004's code differs
// from document 000's prose, which delsetnx follows, in the takeover itself
// (the check of DEL's count), in the test of a stale time (a time equal to
// now is stale) and in the release (a plain DEL). Where two documents share
// the takeover and differ around it, one package has an option, as
// getsetcompare's Document003.
//
// Algorithm, in Unix milliseconds (the document counts in seconds, with
// PHP's time() and $timeout = 10; milliseconds let the suite run TTLs of
// 60 ms, and keep the lease from being up to a whole unit, a second, short
// of its TTL, as time() + $timeout is when taken late in a second):
//  1. SETNX key <now+ttl>: 1 means the lock is ours.
//  2. Otherwise GET key, t. If t is after now, the lock is taken
//     (`if ($t > time())`, so a time equal to now is stale). A missing key
//     reads as 0, as PHP reads GET's false, and is stale.
//  3. Otherwise DEL key; if it deleted nothing, give up
//     (`if (0 === $redis->delete($key))`, 释放超时锁失败): someone else
//     deleted the stale lock first.
//  4. SETNX key <now+ttl> again: 1 means ours; 0, give up (再次加锁失败).
//  5. Release: DEL key, whoever holds it; when it deletes nothing, the
//     error matches strategy.ErrNotHeld (the document prints 释放锁失败).
//
// How it breaks, with no fault at all: a holder that releases between a
// waiter's SETNX and its GET leaves the waiter reading no time, which
// `$t > time()` finds stale; when a SETNX of the holder or of a third
// client takes the free lock before the waiter's DEL, that DEL deletes the
// fresh lock, counts 1, and the waiter's SETNX wins too (exclusion: the
// suite finds it among the interleavings of a holder's release and new
// attempt with one waiter's attempt). Package delsetnx gives up on a key
// gone before its GET and is not open to this.
//
// On a stale lock, the check of DEL's count stops a waiter only when the
// other waiter's DEL came first and its SETNX has not yet run. When that
// SETNX has run, the DEL deletes the fresh lock (its count is 1) and both
// hold the lock (stale-takeover-race): the race the document itself
// describes under 存在问题 (P2 and P3). Like every timestamp lock it trusts
// client clocks (clock-skew), and its DEL release cannot tell whose lock it
// deletes (safe-release, double-release).
package delsetnxcheck

import (
	"context"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// Strategy is the SETNX / GET / DEL-if-deleted + SETNX timestamp lock.
type Strategy struct{ st *recipe.Stamped }

// Option configures the strategy.
type Option func(*stamped)

// stamped is the timestamp lock the strategy is made of.
type stamped = recipe.Stamped

// WithClock sets the clock timestamps are read from (default: the system's).
func WithClock(c strategy.Clock) Option { return Option(recipe.WithClock(c)) }

// New returns the strategy on pool p.
func New(p strategy.Pool, opts ...Option) (*Strategy, error) {
	st, err := recipe.NewStamped("delsetnxcheck", p, recipe.StampRecipe{
		Stale:    recipe.StaleReached,
		Takeover: takeover,
		Release:  recipe.ReleaseDel,
	}, opts)
	if err != nil {
		return nil, err
	}
	return &Strategy{st: st}, nil
}

// TryAcquire makes one attempt: SETNX, then GET and the takeover when the
// stored time is not ahead of now.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.st.TryAcquire(ctx, key, ttl)
}

// takeover is steps 3 and 4: DEL the stale lock, give up if DEL deleted
// nothing, then SETNX again.
func takeover(s *recipe.Session, _, _, stamp int64) (bool, error) {
	n, err := redis.Int(s.Do("DEL"))
	if err != nil || n == 0 {
		return false, err
	}
	return redis.Bool(s.Do("SETNX", stamp))
}
