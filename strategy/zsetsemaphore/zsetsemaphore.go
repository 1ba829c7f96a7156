// Package zsetsemaphore is a semaphore kept as a sorted set of holders
// scored by the time each client read on its own clock: the design of the
// Node library redis-semaphore (Semaphore and MultiSemaphore), itself the
// semaphore of "Redis in Action", section 6.3.
//
// Sources: the Lua scripts of swarthy/redis-semaphore (acquire, refresh,
// release of its semaphore and multi-semaphore), read from the project's
// sources, and its README.
//
// Data model: K is a sorted set; each permit held is a member
// <identifier>_<i>, scored by the holder's clock (Unix milliseconds) when
// it acquired or last refreshed. One script does each step:
//  1. acquire(n): ZREMRANGEBYSCORE K -inf now-ttl (the members older than
//     the TTL by the caller's clock are dropped as expired); if ZCARD K + n
//     is at most N, ZADD K now <id>_0 … now <id>_n-1 and PEXPIRE K ttl.
//  2. refresh: the same ZREMRANGEBYSCORE; if <id>_0 is still a member,
//     ZADD them again with the caller's now and PEXPIRE K ttl; otherwise
//     the permits are lost.
//  3. release: ZREM K <id>_0 … <id>_n-1.
//
// How it breaks: expiry is decided by the clock of whoever acquires next.
// A client whose clock runs ahead by more than the TTL drops the live
// holders' members as expired and takes their permits: more than N
// holders at once (permit-skew), which the library's README
// admits ("node time difference is greater than lockTimeout"). A client
// whose clock runs behind writes a score that others drop early, and
// loses its own permit while it works. The PEXPIRE on K, set by every
// acquire to the caller's TTL, also drops the whole set when a holder
// with a short TTL stops refreshing, whatever TTL the others asked for
// (permit-lease-independence).
//
// Before redis-semaphore fixed issue 175 (PR 177), its refresh also
// re-added a member that had expired, when there was room: a late refresh
// took the permit again, silently, after another client had held it.
// WithLateRefreshReacquires restores that refresh.
package zsetsemaphore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// name is the strategy's name in errors.
const name = "zsetsemaphore"

// ErrInvalidPermits means a semaphore of fewer than one permit, or an
// acquire of fewer than one or of more than the semaphore has.
var ErrInvalidPermits = recipe.ErrInvalidPermits

// The scripts take KEYS[1] the set; ARGV[1] the limit N, ARGV[2] the
// permits n, ARGV[3] the identifier, ARGV[4] the TTL in milliseconds,
// ARGV[5] the caller's now in Unix milliseconds. The release takes
// ARGV[1] n and ARGV[2] the identifier.
const (
	dropExpired = `
local now = tonumber(ARGV[5])
local ttl = tonumber(ARGV[4])
redis.call('zremrangebyscore', KEYS[1], '-inf', now - ttl)
`
	addAll = `
local add = {}
for i = 0, tonumber(ARGV[2]) - 1 do
	table.insert(add, now)
	table.insert(add, ARGV[3] .. '_' .. i)
end
redis.call('zadd', KEYS[1], unpack(add))
redis.call('pexpire', KEYS[1], ttl)
return 1
`
)

var (
	acquireScript = redis.NewScript(1, dropExpired+`
if redis.call('zcard', KEYS[1]) + tonumber(ARGV[2]) > tonumber(ARGV[1]) then
	return 0
end`+addAll)
	refreshScript = redis.NewScript(1, dropExpired+`
if not redis.call('zscore', KEYS[1], ARGV[3] .. '_0') then
	return 0
end`+addAll)
	// The refresh before the fix of issue 175: a member gone is added
	// again when there is room.
	lateRefreshScript = redis.NewScript(1, dropExpired+`
if not redis.call('zscore', KEYS[1], ARGV[3] .. '_0')
	and redis.call('zcard', KEYS[1]) + tonumber(ARGV[2]) > tonumber(ARGV[1]) then
	return 0
end`+addAll)
	releaseScript = redis.NewScript(1, `
local rem = {}
for i = 0, tonumber(ARGV[1]) - 1 do
	table.insert(rem, ARGV[2] .. '_' .. i)
end
return redis.call('zrem', KEYS[1], unpack(rem))`)
)

// Strategy is the sorted-set semaphore of N permits.
type Strategy struct {
	b       recipe.Base
	permits int
	clock   strategy.Clock
	refresh *redis.Script
}

var _ strategy.Weighted = (*Strategy)(nil)

// Option configures the strategy.
type Option func(*Strategy)

// WithClock sets the clock the scores are read from (default: the
// system's). The conformance suite skews clients' clocks through it.
func WithClock(c strategy.Clock) Option { return func(s *Strategy) { s.clock = c } }

// WithLateRefreshReacquires makes Refresh the one of redis-semaphore
// before issue 175 was fixed: a holder whose permit expired takes it
// again on refresh when there is room, and reports nothing.
func WithLateRefreshReacquires() Option {
	return func(s *Strategy) { s.refresh = lateRefreshScript }
}

// New returns the semaphore of permits permits on pool p.
func New(p strategy.Pool, permits int, opts ...Option) (*Strategy, error) {
	b, err := recipe.NewBase(name, p)
	if err != nil {
		return nil, err
	}
	if err := recipe.CheckPermits(name, permits); err != nil {
		return nil, err
	}
	s := &Strategy{b: b, permits: permits, clock: strategy.SystemClock, refresh: refreshScript}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	if s.clock == nil {
		return nil, fmt.Errorf("%s: WithClock(nil)", name)
	}
	return s, nil
}

// Permits returns N.
func (s *Strategy) Permits() int { return s.permits }

// TryAcquire takes one permit for ttl.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.TryAcquireN(ctx, key, 1, ttl)
}

// TryAcquireN takes n permits for ttl, all or none, with one script.
func (s *Strategy) TryAcquireN(ctx context.Context, key string, n int, ttl time.Duration) (strategy.Lock, error) {
	sess, err := s.b.BeginN(ctx, key, n, s.permits, ttl)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	l := &Lock{s: s, key: key, id: recipe.Token(), n: n}
	won, err := redis.Bool(sess.Eval(acquireScript, s.permits, n, l.id, ttl.Milliseconds(), s.now()))
	if err != nil {
		return nil, err
	}
	if !won {
		return nil, sess.NotAcquired()
	}
	return l, nil
}

// now is the caller's time as the scores count it.
func (s *Strategy) now() string { return strconv.FormatInt(s.clock.Now().UnixMilli(), 10) }

// Lock is n permits held under one identifier.
type Lock struct {
	s   *Strategy
	key string
	id  string
	n   int
}

var _ strategy.Refresher = (*Lock)(nil)

// Key returns the semaphore's key.
func (l *Lock) Key() string { return l.key }

// Identifier returns the identifier the lock's members are named after.
func (l *Lock) Identifier() string { return l.id }

// Refresh scores the lock's members again with the caller's now, and
// makes K live ttl. It returns ErrNotHeld when the members are gone
// (dropped as expired, or released), unless WithLateRefreshReacquires took
// them again.
func (l *Lock) Refresh(ctx context.Context, ttl time.Duration) error {
	sess, err := l.s.b.Begin(ctx, l.key, ttl)
	if err != nil {
		return err
	}
	defer sess.Close()
	ok, err := redis.Bool(sess.Eval(l.s.refresh, l.s.permits, l.n, l.id, ttl.Milliseconds(), l.s.now()))
	if err != nil {
		return err
	}
	if !ok {
		return sess.Fail("refresh", strategy.ErrNotHeld)
	}
	return nil
}

// Release removes the lock's members. It returns ErrNotHeld when none was
// there any more.
func (l *Lock) Release(ctx context.Context) error {
	sess, err := l.s.b.Open(ctx, l.key)
	if err != nil {
		return err
	}
	defer sess.Close()
	n, err := redis.Int(sess.Eval(releaseScript, l.n, l.id))
	if err != nil {
		return err
	}
	if n == 0 {
		return sess.Fail("ZREM", strategy.ErrNotHeld)
	}
	return nil
}
