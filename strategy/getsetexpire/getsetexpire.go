// Package getsetexpire is document 000's own PHP code: the timestamp lock
// with a GETSET takeover, as in package getset, to which the code adds a
// Redis EXPIRE once the lock is won, and a release guarded by TTL. The name
// says what it adds to getset: the EXPIRE.
//
// Source: document 000, its code under 【代码实现】. (Package getset follows
// the algorithm that the same document gives in prose before it, under
// 【使用SETNX实现分布式锁】, and document 001's code; package delsetnx the
// prose's P1/P2/P3 walk-through.)
//
// Algorithm, in Unix milliseconds where the document counts whole seconds
// (time(), $lockExpire = 10): the suite runs TTLs of 60 ms, which whole
// seconds cannot express; see the table on docs/getsetexpire.md.
//  1. SETNX key <now+ttl> ($redis->setnx($lockKey, $lockValue)): 1 means
//     the lock is ours.
//  2. Otherwise GET key; if the stored time is not before now, the lock is
//     taken ($redis->get($lockKey) < time()). A missing key reads as 0, as
//     PHP compares GET's false with a time: false < time() is true, so a
//     key released since the SETNX goes on to the GETSET.
//  3. Otherwise GETSET key <now+ttl>; the lock is ours only if the old
//     value it returns is before now too ($redis->getSet($lockKey,
//     $lockValue) < time()). A key gone by then returns false in PHP,
//     which is less than any time: the attempt wins, and rightly, since
//     GETSET is atomic and only the first writer on a free key reads no
//     value.
//  4. Once won, by either path: PEXPIRE key <ttl> (给锁设置生存时间,
//     $redis->expire($lockKey, $lockExpire)), a command of its own.
//  5. Release: PTTL key, and DEL key unless it answered 0 (if
//     ($redis->ttl($lockKey)) $redis->del($lockKey)). PHP reads -2 (no key)
//     and -1 (no expiry) as true, like any time left; only 0 is false: the
//     key's last millisecond, its last half second in the document, where
//     TTL rounds to whole seconds. When the DEL deletes nothing, the error
//     matches strategy.ErrNotHeld.
//
// What the EXPIRE changes: a holder that crashes holding the lock leaves a
// key that Redis deletes when its TTL passes, at the time the stored time
// passes too, so a waiter's SETNX takes it without a takeover. A holder that
// dies between its SETNX (or GETSET) and its EXPIRE leaves a key without a
// TTL; its stored time still goes stale and is taken over with GETSET, as in
// getset. And GETSET, like SET, discards a key's TTL: a waiter that loses the
// takeover race after the winner's EXPIRE leaves the winner's lock with no
// Redis expiry, and only the stored time, the loser's, to end it.
//
// How it breaks: every client trusts its own clock, so one whose clock runs
// ahead sees a live lock as stale and takes it (clock-skew). The release's
// check answers whether the key has some time left, not whose key it is: a
// late or repeated release deletes the next holder's lock (safe-release,
// double-release).
package getsetexpire

import (
	"context"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// Strategy is the SETNX / GET / GETSET timestamp lock with an EXPIRE after
// the win.
type Strategy struct{ st *recipe.Stamped }

// Option configures the strategy.
type Option func(*stamped)

// stamped is the timestamp lock the strategy is made of.
type stamped = recipe.Stamped

// WithClock sets the clock timestamps are read from (default: the system's).
func WithClock(c strategy.Clock) Option { return Option(recipe.WithClock(c)) }

// New returns the strategy on pool p.
func New(p strategy.Pool, opts ...Option) (*Strategy, error) {
	st, err := recipe.NewStamped("getsetexpire", p, recipe.StampRecipe{
		Stale:    recipe.StalePassed,
		Takeover: takeover,
		Release:  release,
	}, opts)
	if err != nil {
		return nil, err
	}
	return &Strategy{st: st}, nil
}

// TryAcquire makes one attempt: steps 1 to 3, the attempt every timestamp
// lock here shares, and once it is won, step 4, the EXPIRE, in a command of
// its own. When the EXPIRE fails, the lock has been taken all the same and
// is left without a Redis expiry, as when the document's client throws; its
// stored time ends it.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	lock, err := s.st.TryAcquire(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	sess, err := s.st.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	if _, err := sess.Do("PEXPIRE", ttl.Milliseconds()); err != nil {
		return nil, err
	}
	return lock, nil
}

// takeover is step 3: GETSET, and win only if the old value is before now.
// No key reads as 0, before any time, as PHP compares GETSET's false.
func takeover(s *recipe.Session, _, now, stamp int64) (bool, error) {
	old, err := s.Stamp("GETSET", stamp)
	if err != nil {
		return false, err
	}
	return old < now, nil
}

// release is step 5: PTTL, and DEL unless the key is in its last
// millisecond. -2 (no key) and -1 (no expiry) are true in PHP, as any time
// left is: they DEL.
func release(s *recipe.Session, _ *recipe.StampLock) error {
	left, err := redis.Int64(s.Do("PTTL"))
	if err != nil {
		return err
	}
	if left == 0 { // false in PHP: left to expire
		return nil
	}
	return s.Del()
}
