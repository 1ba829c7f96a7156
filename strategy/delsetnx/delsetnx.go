// Package delsetnx is the timestamp lock whose stale lock is taken over with
// DEL then SETNX: the broken first attempt that documents 000 and 004 show
// before they turn to GETSET.
//
// Sources: document 000 (the P2/P3 walk-through) and document 004 (方式三).
//
// Algorithm:
//  1. SETNX key <now+ttl>: 1 means the lock is ours.
//  2. Otherwise GET key; if the stored time has not passed, the lock is taken.
//  3. Otherwise DEL key, then SETNX key <now+ttl> again: 1 means ours.
//  4. Release as in package getset: GET, and DEL only while the stored time
//     is more than a small buffer (3 ms) in the future.
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
type Option = recipe.StampOption

// WithClock sets the clock timestamps are read from (default: the system's).
func WithClock(c strategy.Clock) Option { return recipe.WithClock(c) }

// WithReleaseBuffer sets how far in the future the stored time must be for
// Release to DEL the key (default 3 ms).
func WithReleaseBuffer(d time.Duration) Option { return recipe.WithReleaseBuffer(d) }

// New returns the strategy on pool p.
func New(p strategy.Pool, opts ...Option) (*Strategy, error) {
	st, err := recipe.NewStamped("delsetnx", p, takeover, opts)
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
func takeover(s *recipe.Session, _, stamp int64) (bool, error) {
	if _, err := s.Do("DEL"); err != nil {
		return false, err
	}
	return redis.Bool(s.Do("SETNX", stamp))
}
