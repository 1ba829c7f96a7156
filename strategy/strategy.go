// Package strategy defines what every lock algorithm in locklab shares: the
// Strategy and Lock interfaces, the errors, the connection Pool, the Clock, and
// the retry loop that turns one acquire attempt into a wait.
//
// Each algorithm lives in its own sub-package, named after it:
//
//	strategy/setnxdel       SETNX, release DEL (no expiry)
//	strategy/setnxexpire    SETNX then EXPIRE, release DEL
//	strategy/multiget       SETNX uuid then EXPIRE, release GET inside WATCH/MULTI: never deletes
//	strategy/getset         SETNX of a timestamp, stale lock taken over with GETSET if the old time has passed
//	strategy/getsetexpire   as getset, then EXPIRE once won; release PTTL, then DEL unless it answered 0
//	strategy/getsetcompare  SETNX of a timestamp, stale lock taken over with GETSET if the old time is the one GET read
//	strategy/delsetnx       SETNX of a timestamp, stale lock taken over with DEL + SETNX
//	strategy/delsetnxcheck  the same, giving up when the DEL deletes nothing; release DEL
//	strategy/setnxpx        SET NX PX, release DEL
//	strategy/fixedpassword  SET abc123 NX PX, release by Lua compare-and-delete of the one password
//	strategy/tokengetdel    SET token NX PX, release GET, compare, DEL
//	strategy/watchdel       SETNX uuid then EXPIRE, release WATCH, GET, compare, MULTI/DEL/EXEC
//	strategy/luatoken       SET token NX PX, release by Lua compare-and-delete
//	strategy/redlock        Redlock: SET token NX PX on a majority of N independent masters
//
// Read-write locks and semaphores (see Shared, Counting and Weighted):
// the project's own, correct ones,
//
//	strategy/rwlua             read-write lock: a sorted set of holder tokens scored by server-time expiry, writers first
//	strategy/semlua            semaphore of N permits: a sorted set of holder tokens scored by server-time expiry
//
// and faithful copies of the designs people run, flaws included:
//
//	strategy/hashrwlock        Redisson's RReadWriteLock: a hash of mode and holders, a timeout key per read hold
//	strategy/refcountrwlock    a global SET NX PX key and a reader count without expiry (e-chip/redis-rwlock)
//	strategy/zsetsemaphore     a sorted set of holders scored by each client's clock (redis-semaphore)
//	strategy/countersemaphore  Redisson's RSemaphore: a counter of free permits, no lease
//
// Only luatoken, rwlua and semlua are safe to use on one Redis; the others
// are faithful copies of popular recipes, kept so that their failures can
// be shown (see package locktest). Redlock spans several independent masters; the suite checks it
// on five, with their failures (a restart, a clock jump, a minority down),
// in two columns of the catalog, redlock and redlock-delayed-restart (see
// docs/replication.md).
//
// A strategy makes one attempt per TryAcquire call; Acquire waits for a lock
// by calling TryAcquire under a Retry policy until the context is done:
//
//	lock, err := strategy.Acquire(ctx, s, "orders:42", 10*time.Second, strategy.Backoff(10*time.Millisecond, time.Second))
//	if err != nil {
//		return err // errors.Is(err, strategy.ErrNotAcquired)
//	}
//	defer lock.Release(context.Background())
package strategy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Pool hands out Redis connections. *redis.Pool from redigo satisfies it; the
// conformance suite wraps it to watch and steer every command a client sends.
type Pool interface {
	GetContext(ctx context.Context) (redis.Conn, error)
}

// Strategy is one locking algorithm bound to a Pool.
type Strategy interface {
	// TryAcquire makes one attempt to lock key for ttl. It returns
	// ErrNotAcquired (possibly wrapped) when someone else holds the lock.
	TryAcquire(ctx context.Context, key string, ttl time.Duration) (Lock, error)
}

// Lock is a lock obtained by a Strategy.
type Lock interface {
	// Key returns the locked key.
	Key() string
	// Release gives the lock up. Strategies that can tell return ErrNotHeld
	// when the lock was already gone or held by someone else.
	Release(ctx context.Context) error
}

// Errors returned by strategies and by Acquire. Strategies wrap them with
// detail; test them with errors.Is.
var (
	// ErrNotAcquired is returned when the lock is held by someone else: the
	// attempt, or the wait, ended without the lock.
	ErrNotAcquired = errors.New("locklab: lock not acquired")

	// ErrNotHeld is returned when a call on a held lock found it gone or
	// owned by someone else (its TTL passed, or it was released twice).
	ErrNotHeld = errors.New("locklab: lock not held")

	// ErrInvalidKey is returned when the key is empty.
	ErrInvalidKey = errors.New("locklab: invalid key")

	// ErrInvalidTTL is returned when the TTL is zero, negative, or too small
	// for the command to express (PX counts whole milliseconds).
	ErrInvalidTTL = errors.New("locklab: invalid ttl")

	// ErrNilPool is returned when a strategy is created without a
	// connection pool.
	ErrNilPool = errors.New("locklab: nil pool")

	// ErrBadValue is returned when the key holds a value the strategy did
	// not write, such as a timestamp lock key that does not hold a timestamp.
	ErrBadValue = errors.New("locklab: unexpected value at lock key")
)

// Validate checks the arguments every TryAcquire takes: a non-empty key and a
// TTL of at least one millisecond, the smallest that PX and a millisecond
// timestamp can express.
func Validate(key string, ttl time.Duration) error {
	if key == "" {
		return fmt.Errorf("%w: key is empty", ErrInvalidKey)
	}
	if ttl < time.Millisecond {
		return fmt.Errorf("%w: %v is below 1ms, the smallest TTL Redis can express", ErrInvalidTTL, ttl)
	}
	return nil
}

// CheckPool returns ErrNilPool when p is nil, including a typed nil *redis.Pool.
func CheckPool(name string, p Pool) error {
	if p == nil {
		return fmt.Errorf("%s: %w", name, ErrNilPool)
	}
	if rp, ok := p.(*redis.Pool); ok && rp == nil {
		return fmt.Errorf("%s: %w", name, ErrNilPool)
	}
	return nil
}

// Clock reads the client's time. The timestamp strategies (getset,
// getsetexpire, getsetcompare, delsetnx, delsetnxcheck) read it for the
// expiry times they store and compare, zsetsemaphore for the scores of its
// holders, and redlock to time its acquire and the validity left; the
// others never read it. The conformance suite
// injects skewed clocks through it.
type Clock interface {
	Now() time.Time
}

// SystemClock is the Clock of the local machine.
var SystemClock Clock = systemClock{}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// ClockFunc adapts a function to the Clock interface.
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }
