// Package gozero runs go-zero's RedisLock (github.com/zeromicro/go-zero
// v1.10.3, core/stores/redis) behind locklab's strategy interfaces, used as
// go-zero's documentation shows: a *redis.Redis from redis.NewRedis, and
// for each use a RedisLock from redis.NewRedisLock(store, key), its expiry
// set with SetExpire in seconds, then Acquire and Release. It adds nothing
// to the library; each call is one call of go-zero's.
//
// What RedisLock sends, read from its source:
//
//   - NewRedisLock draws the lock's value once: 16 random characters, kept
//     for the life of the RedisLock, whichever goroutine calls it;
//   - AcquireCtx runs one script (EVALSHA, EVAL when Redis does not have it
//     yet): when K already holds the RedisLock's value, SET K <value> PX
//     <ms> and "OK" (a second Acquire of the same RedisLock is granted
//     again and extends it); else SET K <value> NX PX <ms>. The PX is
//     SetExpire's seconds × 1000 + 500 ms (500 ms when it was never set);
//   - ReleaseCtx runs a script that deletes K only while it holds the
//     value: 1 when it deleted it, 0 otherwise.
//
// go-zero's store keeps a go-redis client per address for the life of the
// process (its own pool: eight idle connections made ahead, three retries
// of a command that failed on the network, a circuit breaker in front of
// every command).
//
// Since SetExpire takes whole seconds, the locks are Granular: the suite
// asks them only for whole seconds, and TryAcquire refuses any other TTL
// rather than round it.
//
// Shared returns the strategy of a service that keeps one RedisLock per
// key and lets its goroutines share it: they then share its value, so a
// goroutine's Acquire is granted while another holds the lock (and sets
// the key's expiry to its own SetExpire), and one's Release frees the
// other's.
package gozero

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/locklab/locklab/strategy"
	"github.com/zeromicro/go-zero/core/stores/redis"
)

// Locks hands out go-zero RedisLocks on one go-zero store.
type Locks struct {
	store  *redis.Redis
	shared bool

	mu    sync.Mutex
	locks map[string]*redis.RedisLock // by key, when shared
}

var (
	_ strategy.Strategy = (*Locks)(nil)
	_ strategy.Granular = (*Locks)(nil)
)

// New returns the locks of store: a RedisLock of its own for each
// TryAcquire, as go-zero's documentation writes it.
func New(store *redis.Redis) (*Locks, error) {
	if store == nil {
		return nil, errors.New("gozero: nil store")
	}
	return &Locks{store: store}, nil
}

// Shared returns the locks of store with one RedisLock per key, made on
// its first use and shared by every TryAcquire of that key after it, as a
// service that keeps its RedisLock in a field shares it among goroutines.
func Shared(store *redis.Redis) (*Locks, error) {
	l, err := New(store)
	if err != nil {
		return nil, err
	}
	l.shared, l.locks = true, map[string]*redis.RedisLock{}
	return l, nil
}

// Granularity is a second: SetExpire takes whole seconds.
func (s *Locks) Granularity() time.Duration { return time.Second }

// lock returns the RedisLock of key: a new one, or the shared one.
func (s *Locks) lock(key string) *redis.RedisLock {
	if !s.shared {
		return redis.NewRedisLock(s.store, key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.locks[key]
	if !ok {
		l = redis.NewRedisLock(s.store, key)
		s.locks[key] = l
	}
	return l
}

// TryAcquire sets the RedisLock's expiry to ttl in seconds and calls
// AcquireCtx once. A TTL that is not a whole number of seconds is refused.
func (s *Locks) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if err := strategy.Validate(key, ttl); err != nil {
		return nil, err
	}
	if ttl%time.Second != 0 {
		return nil, fmt.Errorf("gozero: a TTL of %v: RedisLock.SetExpire takes whole seconds", ttl)
	}
	l := s.lock(key)
	l.SetExpire(int(ttl / time.Second))
	ok, err := l.AcquireCtx(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("gozero: %q: %w", key, strategy.ErrNotAcquired)
	}
	return &Lock{lock: l, key: key}, nil
}

// Lock is an acquired RedisLock.
type Lock struct {
	lock *redis.RedisLock
	key  string
}

// Key returns the locked key.
func (l *Lock) Key() string { return l.key }

// Release calls ReleaseCtx; false (the key was gone or held another
// value) becomes strategy.ErrNotHeld.
func (l *Lock) Release(ctx context.Context) error {
	ok, err := l.lock.ReleaseCtx(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("gozero: %q: %w", l.key, strategy.ErrNotHeld)
	}
	return nil
}
