// Package delsetnx is the timestamp lock whose stale lock is taken over with
// DEL then SETNX: the broken first attempt that document 000 walks through
// before it turns to GETSET.
//
// Sources: document 000, its prose (the P1/P2/P3 walk-through of 解决死锁,
// and the check before DEL it asks of every release). Document 004 writes
// the same takeover in code (方式三) but gives up when its DEL deletes
// nothing and releases with a plain DEL: package delsetnxcheck.
//
// Algorithm:
//  1. SETNX key <now+ttl>: 1 means the lock is ours.
//  2. Otherwise GET key; if the stored time has not passed, the lock is taken.
//     A key GET finds gone was released since the SETNX: the attempt fails,
//     and the next one's SETNX takes the key. (Document 000 does not say:
//     it compares a time, and there is none.)
//  3. Otherwise DEL key, whatever it deletes, then SETNX key <now+ttl> again:
//     1 means ours.
//  4. Release as in package getset: GET, and DEL only while the stored time
//     is still ahead (document 001's buffer, 0.003 ms as its code compares
//     it): document 000 asks every release to check that the lock has not
//     expired before it deletes.
//
// How it breaks: two waiters that read the same stale time both DEL and both
// SETNX; the second DEL deletes the first one's fresh lock and both hold it
// (stale-takeover-race), exactly as document 000 describes. Like getset, it
// trusts client clocks (clock-skew) and cannot tell whose lock it releases
// (safe-release, double-release).
package delsetnx

import (
	"context"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// Strategy is the SETNX / GET / DEL + SETNX timestamp lock.
type Strategy struct{ st *recipe.Stamped }

// Option configures the strategy.
type Option func(*stamped)

// stamped is the timestamp lock the strategy is made of.
type stamped = recipe.Stamped

// WithClock sets the clock timestamps are read from (default: the system's).
func WithClock(c strategy.Clock) Option { return Option(recipe.WithClock(c)) }

// WithReleaseBuffer sets how far in the future the stored time must be for
// Release to DEL the key (default 0.003 ms, as package getset).
func WithReleaseBuffer(d time.Duration) Option { return Option(recipe.WithReleaseBuffer(d)) }

// New returns the strategy on pool p.
func New(p strategy.Pool, opts ...Option) (*Strategy, error) {
	st, err := recipe.NewStamped("delsetnx", p, recipe.StampRecipe{
		Stale:    recipe.StalePassed,
		KeepGone: true,
		Takeover: takeover,
		Release:  recipe.ReleaseIfAhead,
	}, opts)
	if err != nil {
		return nil, err
	}
	return &Strategy{st: st}, nil
}

// TryAcquire makes one attempt: SETNX, then GET and the takeover when the
// stored time has passed.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.st.TryAcquire(ctx, key, ttl)
}

// takeover is step 3: DEL the stale lock, then SETNX again.
func takeover(s *recipe.Session, _, _, stamp int64) (bool, error) {
	if _, err := s.Do("DEL"); err != nil {
		return false, err
	}
	return redis.Bool(s.Do("SETNX", stamp))
}
