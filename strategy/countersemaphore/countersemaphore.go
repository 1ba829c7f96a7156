// Package countersemaphore is a semaphore kept as one counter of free
// permits, without leases: Redisson's RSemaphore.
//
// Source: the Lua scripts of Redisson's RSemaphore (trySetPermits,
// tryAcquire, release), read from the project's sources.
//
// Data model: K is a string, the number of permits still free.
//  1. trySetPermits: if K does not exist, SET K N. Every attempt sends it
//     first, as an application does before it takes a permit: it creates
//     the semaphore once and does nothing after.
//  2. tryAcquire(n): if GET K is at least n, DECRBY K n; otherwise the
//     permits are taken.
//  3. release(n): INCRBY K n, whoever calls it, as often as it is called.
//
// Nothing in Redis expires and nothing records who holds a permit, so the
// ttl that TryAcquire takes is validated, as every strategy's is, and then
// ignored.
//
// How it breaks: a holder that crashes never gives its permits back, and
// they are lost for good (permit-crash-recovery; Redisson issues 2045 and
// 4462): once N holders have crashed, nobody acquires again until someone
// resets K by hand. And a release is not tied to an acquire: a lock
// released twice adds a permit the semaphore never had, and N+1 holders
// get in (permit-release-exact).
package countersemaphore

import (
	"context"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// name is the strategy's name in errors.
const name = "countersemaphore"

// ErrInvalidPermits means a semaphore of fewer than one permit, or an
// acquire of fewer than one or of more than the semaphore has.
var ErrInvalidPermits = recipe.ErrInvalidPermits

var (
	// KEYS[1] the counter; ARGV[1] the number of permits. 1 when it set them.
	trySetPermits = redis.NewScript(1, `
if redis.call('get', KEYS[1]) == false then
	redis.call('set', KEYS[1], ARGV[1])
	return 1
end
return 0`)
	// KEYS[1] the counter; ARGV[1] the permits wanted. 1 when taken.
	tryAcquire = redis.NewScript(1, `
local free = redis.call('get', KEYS[1])
if free ~= false and tonumber(free) >= tonumber(ARGV[1]) then
	redis.call('decrby', KEYS[1], ARGV[1])
	return 1
end
return 0`)
)

// Strategy is the counter semaphore of N permits.
type Strategy struct {
	b       recipe.Base
	permits int
}

var _ strategy.Weighted = (*Strategy)(nil)

// New returns the semaphore of permits permits on pool p. The permits are
// set at K by the first attempt on K (trySetPermits); a K that exists
// keeps the count it holds.
func New(p strategy.Pool, permits int) (*Strategy, error) {
	b, err := recipe.NewBase(name, p)
	if err != nil {
		return nil, err
	}
	if err := recipe.CheckPermits(name, permits); err != nil {
		return nil, err
	}
	return &Strategy{b: b, permits: permits}, nil
}

// Permits returns the number of permits the semaphore is created with.
func (s *Strategy) Permits() int { return s.permits }

// TryAcquire takes one permit; ttl is ignored (nothing expires).
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.TryAcquireN(ctx, key, 1, ttl)
}

// TryAcquireN takes n permits, all or none: trySetPermits, then the
// decrement-if-enough script. ttl is validated, then ignored.
func (s *Strategy) TryAcquireN(ctx context.Context, key string, n int, ttl time.Duration) (strategy.Lock, error) {
	sess, err := s.b.BeginN(ctx, key, n, s.permits, ttl)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	if _, err := sess.Eval(trySetPermits, s.permits); err != nil {
		return nil, err
	}
	won, err := redis.Bool(sess.Eval(tryAcquire, n))
	if err != nil {
		return nil, err
	}
	if !won {
		return nil, sess.NotAcquired()
	}
	return &Lock{s: s, key: key, n: n}, nil
}

// Lock is n permits taken.
type Lock struct {
	s   *Strategy
	key string
	n   int
}

// Key returns the semaphore's key.
func (l *Lock) Key() string { return l.key }

// Permits returns the number of permits the lock took.
func (l *Lock) Permits() int { return l.n }

// Release gives the permits back with INCRBY, every time it is called:
// the counter cannot tell a second release from a first (Redisson's
// release neither).
func (l *Lock) Release(ctx context.Context) error {
	sess, err := l.s.b.Open(ctx, l.key)
	if err != nil {
		return err
	}
	defer sess.Close()
	_, err = sess.Do("INCRBY", l.n)
	return err
}
