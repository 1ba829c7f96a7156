// Package getsetcompare is the timestamp lock of documents 003 and 004: as
// in package getset, the key holds the time the lock expires, by the
// client's clock, and a stale lock is taken over with GETSET; but the
// takeover is won when the old value GETSET returns equals the value the GET
// before it read. The name says what the takeover does: GETSET, then
// compare. (Package getset wins when the old value has passed.)
//
// Sources: document 004, 改进方式四, its code with its plain DEL release;
// and document 003, 方案2, steps 1 to 5, which Document003 follows where it
// differs from 004: a time equal to now is still held, and the release of
// step 5 (WithElapsedRelease).
//
// Algorithm, in Unix milliseconds (both documents count in seconds, 004 with
// PHP's time(); milliseconds let the suite run TTLs of 60 ms):
//  1. SETNX key <now+ttl>: 1 means the lock is ours.
//  2. Otherwise GET key, t1. If t1 is after now, the lock is taken (004:
//     `if ($t1 > time())`, so a time equal to now is stale; 003 step 2 calls
//     the lock stale when t1 is less than now, 小于当前系统时间, so with
//     Document003 a time equal to now is held). A missing key reads as 0, as
//     PHP reads GET's false, and is stale.
//  3. Otherwise GETSET key <now+ttl>, t2: the lock is ours only if t2 equals
//     t1 (004: `if ($t2 != $t1) return`; 003 step 4: 判断currentExpireTime与
//     oldExpireTime是否相等). Otherwise another client's GETSET came first.
//  4. Release (004): DEL key, whoever holds it; when it deletes nothing, the
//     error matches strategy.ErrNotHeld (004 prints 释放锁失败).
//     With WithElapsedRelease or Document003 (003 step 5): the holder
//     compares the time it has held the lock, by its own clock, with the
//     TTL, and sends DEL only while it is shorter.
//
// Both documents admit that a loser's GETSET still writes, pushing the
// winner's expiry forward (003 问题2; 004: "P3 进程锁超时的时间被 P2
// 进程给修改了。不过没有关系").
//
// How it breaks: every client trusts its own clock, so one whose clock runs
// ahead sees a live lock as stale and takes it (clock-skew). The DEL release
// cannot tell whose lock it deletes: a late or repeated release frees the
// next holder's lock (safe-release, double-release). Document 003's check of
// the elapsed time refuses a release it knows is late, but the check and the
// DEL are two steps: a holder paused between them deletes the next holder's
// lock all the same (safe-release), and a second release within the TTL
// deletes whatever is there (double-release).
package getsetcompare

import (
	"context"
	"time"

	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// Strategy is the SETNX / GET / GETSET-and-compare timestamp lock.
type Strategy struct{ st *recipe.Stamped }

// Option configures the strategy.
type Option func(*stamped)

// stamped is the timestamp lock the strategy is made of.
type stamped = recipe.Stamped

// WithClock sets the clock timestamps are read from (default: the system's).
func WithClock(c strategy.Clock) Option { return Option(recipe.WithClock(c)) }

// WithElapsedRelease makes Release document 003's (方案2, step 5): DEL only
// while the lock has been held, by the holder's clock, for less than its
// TTL; otherwise leave the key to be taken over, and return an error
// matching strategy.ErrNotHeld. The default is document 004's plain DEL.
func WithElapsedRelease() Option { return Option(recipe.WithStampRelease(recipe.ReleaseInTime)) }

// Document003 makes the lock document 003's (方案2) where it differs from
// document 004's: a stored time is stale only once it is less than the
// client's now (step 2, 小于当前系统时间), so a time equal to now is a held
// lock; and Release is step 5's, as with WithElapsedRelease.
func Document003() Option {
	return func(s *stamped) {
		s.Stale = recipe.StalePassed
		s.Release = recipe.ReleaseInTime
	}
}

// New returns the strategy on pool p.
func New(p strategy.Pool, opts ...Option) (*Strategy, error) {
	st, err := recipe.NewStamped("getsetcompare", p, recipe.StampRecipe{
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

// takeover is step 3: GETSET, and win only if the old value is the one GET
// read (both 0 when the key was missing).
func takeover(s *recipe.Session, held, _, stamp int64) (bool, error) {
	old, err := s.Stamp("GETSET", stamp)
	return err == nil && old == held, err
}
