// Package getset is the timestamp lock with a GETSET takeover: the key holds
// the time the lock expires, by the client's clock, and a stale lock is taken
// over atomically with GETSET; the takeover is won when the old value GETSET
// returns has passed.
//
// Sources: document 001's code (锁竞争 and 锁释放, and the functions
// getPidLock and releasePidLock of 伪代码示例), and the algorithm that
// document 000 describes in prose after its DEL walk-through (the P4/P5
// steps, and the check before DEL). Document 000's own PHP code, which adds
// a Redis EXPIRE and guards its release with TTL, is package getsetexpire.
// Documents 003 (方案2) and 004 (改进方式四) win the takeover on another
// test, the old value equal to the one GET read: package getsetcompare.
//
// Algorithm, in Unix milliseconds as in document 001:
//  1. SETNX key <now+ttl+1ms>: 1 means the lock is ours. (1 ms is document
//     001's acquire buffer, buffer_time = 0.001 s.)
//  2. Otherwise GET key; if the stored time has not passed, the lock is
//     taken. A missing key reads as 0, as PHP's comparison reads null, and
//     has passed.
//  3. Otherwise GETSET key <now+ttl+1ms>; the lock is ours only if the old
//     value it returns had passed too (another client's GETSET may have come
//     first).
//  4. Release: GET key and DEL it only while the stored time is more than
//     0.003 ms in the future, document 001's buffer as its code compares it
//     (its comment gives 0.003 in seconds, 3 ms, which was meant; see
//     WithReleaseBuffer).
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
type Option func(*stamped)

// stamped is the timestamp lock the strategy is made of.
type stamped = recipe.Stamped

// WithClock sets the clock timestamps are read from (default: the system's).
func WithClock(c strategy.Clock) Option { return Option(recipe.WithClock(c)) }

// WithAcquireBuffer sets the time added to every expiry time the lock
// writes (default 1 ms, document 001's buffer_time = 0.001 s at acquire).
func WithAcquireBuffer(d time.Duration) Option { return Option(recipe.WithAcquireBuffer(d)) }

// WithReleaseBuffer sets how far in the future the stored time must be for
// Release to DEL the key. The default, 0.003 ms, is document 001's
// buffer_time = 0.003 as its code compares it, with a difference of
// milliseconds: at millisecond resolution, the release deletes a time at
// least 1 ms ahead. Its comment gives the buffer in seconds: 3 ms, which
// WithReleaseBuffer(3*time.Millisecond) restores.
func WithReleaseBuffer(d time.Duration) Option { return Option(recipe.WithReleaseBuffer(d)) }

// New returns the strategy on pool p.
func New(p strategy.Pool, opts ...Option) (*Strategy, error) {
	st, err := recipe.NewStamped("getset", p, recipe.StampRecipe{
		Stale:         recipe.StalePassed,
		Takeover:      takeover,
		AcquireBuffer: time.Millisecond,
		Release:       recipe.ReleaseIfAhead,
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

// takeover is step 3: GETSET, and win only if the old value had passed.
func takeover(s *recipe.Session, _, now, stamp int64) (bool, error) {
	old, err := s.Stamp("GETSET", stamp)
	if err != nil {
		return false, err
	}
	return old < now, nil
}
