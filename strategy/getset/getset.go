// Package getset is the timestamp lock with a GETSET takeover: the key holds
// the time the lock expires, by the client's clock, and a stale lock is taken
// over atomically with GETSET.
//
// Sources: documents 000 and 001, document 003 (方案2) and document 004
// (改进方式四). Timestamps are Unix milliseconds, as in document 001.
//
// Algorithm:
//  1. SETNX key <now+ttl>: 1 means the lock is ours.
//  2. Otherwise GET key; if the stored time has not passed, the lock is taken.
//  3. Otherwise GETSET key <now+ttl>; the lock is ours only if the old value
//     it returns had passed too (another client's GETSET may have come first).
//  4. Release (document 001): GET key and DEL it only while the stored time is
//     more than a small buffer (3 ms) in the future.
//
// The documents admit one flaw themselves (003, 004): a loser's GETSET still
// writes, pushing the winner's expiry forward.
//
// How it breaks: every client trusts its own clock, so one whose clock runs
// ahead sees a live lock as stale and takes it (clock-skew). The release
// cannot tell whose timestamp it read, so a late or repeated release deletes
// the next holder's lock (safe-release, double-release).
package getset

import (
	"context"
	"time"

	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// Strategy is the SETNX / GET / GETSET timestamp lock.
type Strategy struct{ st *recipe.Stamped }

// Option configures the strategy.
type Option = recipe.StampOption

// WithClock sets the clock timestamps are read from (default: the system's).
func WithClock(c strategy.Clock) Option { return recipe.WithClock(c) }

// WithReleaseBuffer sets how far in the future the stored time must be for
// Release to DEL the key (default 3 ms, document 001's buffer_time).
func WithReleaseBuffer(d time.Duration) Option { return recipe.WithReleaseBuffer(d) }

// New returns the strategy on pool p.
func New(p strategy.Pool, opts ...Option) (*Strategy, error) {
	st, err := recipe.NewStamped("getset", p, takeover, opts)
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

// takeover is step 3: GETSET, and win only if the old value had passed.
func takeover(s *recipe.Session, now, stamp int64) (bool, error) {
	old, err := s.Stamp("GETSET", stamp)
	if err != nil {
		return false, err
	}
	return old < now, nil
}
