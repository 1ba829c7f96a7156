// Package hashrwlock is Redisson's read-write lock (RReadWriteLock): one
// hash holds the mode and a reentrancy counter per holder, and each read
// hold has a key of its own whose expiry is that hold's lease.
//
// Sources: the Lua scripts of Redisson's RedissonReadLock,
// RedissonWriteLock and of its lock watchdog (LockTask, ReadLockTask),
// read from the project's current sources, and the issues and pull
// requests named below.
//
// Data model, for a lock on K, a holder being a client id and a thread
// (<id>:<thread>):
//
//	K                                     hash: mode = read | write,
//	                                      <holder> = read holds,
//	                                      <holder>:write = write holds
//	{K}:<holder>:rwlock_timeout:<n>       one string per read hold, living
//	                                      that hold's lease
//
// Each step is one script:
//  1. Read: with no mode, or mode read, or mode write held by the same
//     holder, HINCRBY the holder's field, SET its n-th timeout key with the
//     lease, and make K live the longest of its PTTL and the lease.
//  2. Write: with no mode, set mode write and the holder's write field; a
//     holder that has it already reenters, and K's PTTL grows by the lease.
//  3. Read unlock: drop the holder's hold and its timeout key, then set
//     K's expiry to the longest PTTL among the timeout keys of the fields
//     left; with none alive, delete K unless it is held for writing.
//  4. Write unlock: drop a hold; the last one deletes K, or turns it to
//     mode read when the holder still holds reads.
//  5. Refresh, the watchdog: while the holder has a field, make each of
//     its timeout keys, and K, live the lease.
//
// Each TryAcquire or TryAcquireShared of a Strategy is a thread of its
// own, a distinct holder; Holder returns one holder, whose acquires
// reenter each other's holds, as a Java thread's do.
//
// The bugs users reported against this model, in the current scripts:
// fixed are issue 891 (a read unlock deleted K while the same thread
// held the write lock: the unlock now keeps K in mode write), issue 1604
// (the watchdog renewed K but not the readers' timeout keys), issue 2144
// (a reader with a short lease cut K's expiry at acquire: the acquire now
// keeps the longest), pull request 7098 (a reader's watchdog renewed the
// timeout keys of every holder in K, crashed ones included: it now renews
// its own) and pull request 7251 (the watchdog kept renewing after the
// final release; here Refresh finds the field gone and renews nothing).
//
// How it still breaks: K's expiry is set outright by two steps that do
// not look at the other holders' leases, the shape of issue 2144 outside
// the acquire. The watchdog's PEXPIRE K lease cuts K below another
// reader's lease: when the renewing reader crashes, K expires while the
// other reader still holds it, and a writer gets in beside it
// (reader-lease-independence). And a read unlock under the same holder's write lock
// sets K's expiry to the remaining read hold's lease, cutting the write
// lock's: another writer gets in beside it (reader-reentrant, through
// Reentrant).
package hashrwlock

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// name is the strategy's name in errors.
const name = "hashrwlock"

// DefaultWatchdogLease is the lease a reentered write lock's unlock gives
// K, Redisson's lockWatchdogTimeout default.
const DefaultWatchdogLease = 30 * time.Second

// Strategy is Redisson's read-write lock on one client: an id, and a new
// thread for each acquire made through it.
type Strategy struct {
	b        recipe.Base
	id       string
	threads  atomic.Int64
	watchdog time.Duration
}

var (
	_ strategy.Reentrant = (*Strategy)(nil)
	_ strategy.Keyed     = (*Strategy)(nil)
	_ strategy.SideKeyed = (*Strategy)(nil)
)

// Option configures the strategy.
type Option func(*Strategy)

// WithWatchdogLease sets the lease a reentered write lock's unlock gives
// K (default DefaultWatchdogLease).
func WithWatchdogLease(d time.Duration) Option { return func(s *Strategy) { s.watchdog = d } }

// New returns the strategy on pool p, a client with an id of its own.
func New(p strategy.Pool, opts ...Option) (*Strategy, error) {
	b, err := recipe.NewBase(name, p)
	if err != nil {
		return nil, err
	}
	s := &Strategy{b: b, id: recipe.Token(), watchdog: DefaultWatchdogLease}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	if s.watchdog < time.Millisecond {
		return nil, fmt.Errorf("%s: %w: the watchdog lease %v is below 1ms", name, strategy.ErrInvalidTTL, s.watchdog)
	}
	return s, nil
}

// Keys returns K alone: the lock is the hash, and its remaining time is
// the hash's. The timeout keys it writes beside K, one per read hold, are
// named after holders not known in advance, and their expiry is a
// hold's, not the lock's: SideKeys names them.
func (s *Strategy) Keys(key string) []string { return []string{key} }

// SideKeys implements strategy.SideKeyed: the names the lock derives from
// K in braces, the timeout keys and their prefixes, which the scripts are
// given as keys ({K}:<holder>:rwlock_timeout).
func (s *Strategy) SideKeys(key string) []string { return []string{tagged(key) + "*"} }

// TryAcquire takes the write lock, as a new holder.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.Holder().TryAcquire(ctx, key, ttl)
}

// TryAcquireShared takes the read lock, as a new holder.
func (s *Strategy) TryAcquireShared(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.Holder().TryAcquireShared(ctx, key, ttl)
}

// Holder returns a new holder of s (a thread): its acquires reenter the
// holds it has, a write lock or read locks, and it may read while it
// writes.
func (s *Strategy) Holder() *Holder {
	return &Holder{s: s, name: s.id + ":" + strconv.FormatInt(s.threads.Add(1), 10)}
}

// Reentrant returns a new holder of s, as a strategy.Shared: Holder.
func (s *Strategy) Reentrant() strategy.Shared { return s.Holder() }

// Holder is one holder of the lock, Redisson's thread. It is a
// strategy.Shared whose acquires reenter.
type Holder struct {
	s    *Strategy
	name string
}

var (
	_ strategy.Shared    = (*Holder)(nil)
	_ strategy.Keyed     = (*Holder)(nil)
	_ strategy.SideKeyed = (*Holder)(nil)
)

// Keys and SideKeys are its Strategy's: a holder keeps its holds where
// the lock does.
func (h *Holder) Keys(key string) []string { return h.s.Keys(key) }

// SideKeys implements strategy.SideKeyed, as its Strategy does.
func (h *Holder) SideKeys(key string) []string { return h.s.SideKeys(key) }

// Name returns the holder's field in K, <client id>:<thread>.
func (h *Holder) Name() string { return h.name }

// TryAcquire takes the write lock, or reenters it.
func (h *Holder) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return h.acquire(ctx, key, ttl, true)
}

// TryAcquireShared takes a read lock, or another read hold.
func (h *Holder) TryAcquireShared(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return h.acquire(ctx, key, ttl, false)
}

func (h *Holder) acquire(ctx context.Context, key string, ttl time.Duration, write bool) (strategy.Lock, error) {
	sess, err := h.s.b.Begin(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	var reply any
	if write {
		reply, err = sess.Eval(writeAcquire, ttl.Milliseconds(), h.name+":write")
	} else {
		reply, err = sess.Eval(readAcquire, TimeoutPrefix(key, h.name), ttl.Milliseconds(), h.name, h.name+":write")
	}
	if err != nil {
		return nil, err
	}
	if reply != nil {
		return nil, sess.NotAcquired()
	}
	return &Lock{h: h, key: key, write: write}, nil
}

// TimeoutPrefix returns the prefix of holder's timeout keys for a lock on
// key, to which ":<n>" adds the n-th hold: {key}:<holder>:rwlock_timeout,
// or key:<holder>:rwlock_timeout when key has a hash tag already.
func TimeoutPrefix(key, holder string) string {
	return tagged(key) + ":" + holder + ":rwlock_timeout"
}

// tagged is key as Redisson prefixes the names it derives from it: in
// braces, so that they hash to K's slot, unless it has braces already.
func tagged(key string) string {
	if strings.Contains(key, "{") {
		return key
	}
	return "{" + key + "}"
}

// Lock is one hold, a read or a write, of one holder.
type Lock struct {
	h     *Holder
	key   string
	write bool
}

var _ strategy.Refresher = (*Lock)(nil)

// Key returns the locked key.
func (l *Lock) Key() string { return l.key }

// Shared reports whether the hold is a read.
func (l *Lock) Shared() bool { return !l.write }

// Release drops the hold: the read or write unlock script. It returns
// ErrNotHeld when the holder no longer held the lock. Each call drops
// one of the holder's holds, as Redisson's unlock does: a lock released
// twice drops another hold of the same holder.
func (l *Lock) Release(ctx context.Context) error {
	sess, err := l.h.s.b.Open(ctx, l.key)
	if err != nil {
		return err
	}
	defer sess.Close()
	var reply any
	if l.write {
		reply, err = sess.Eval(writeUnlock, l.h.s.watchdog.Milliseconds(), l.h.name+":write")
	} else {
		reply, err = sess.Eval(readUnlock, TimeoutPrefix(l.key, l.h.name), tagged(l.key), l.h.name)
	}
	if err != nil {
		return err
	}
	if reply == nil {
		return sess.Fail("unlock", strategy.ErrNotHeld)
	}
	return nil
}

// Refresh is one round of the watchdog for the lock's holder: a reader
// renews its timeout keys and K, a writer K, each to live ttl. It returns
// ErrNotHeld when the holder has no field in K any more.
func (l *Lock) Refresh(ctx context.Context, ttl time.Duration) error {
	sess, err := l.h.s.b.Begin(ctx, l.key, ttl)
	if err != nil {
		return err
	}
	defer sess.Close()
	var renewed bool
	if l.write {
		renewed, err = redis.Bool(sess.Eval(writeRenew, ttl.Milliseconds(), l.h.name+":write"))
	} else {
		renewed, err = redis.Bool(sess.Eval(readRenew, tagged(l.key), ttl.Milliseconds(), l.h.name))
	}
	if err != nil {
		return err
	}
	if !renewed {
		return sess.Fail("renew", strategy.ErrNotHeld)
	}
	return nil
}
