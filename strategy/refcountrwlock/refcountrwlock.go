// Package refcountrwlock is a read-write lock made of a global lock key
// and a count of readers that never expires: the design of the Go module
// e-chip/redis-rwlock.
//
// Source: that module's Lua scripts (read-lock, read-unlock, write-lock,
// write-unlock, lock-refresh) and options, read from its sources. It
// takes the three key names from its user; here they are derived from K.
//
// Data model, for a lock on K:
//
//	K                  the global lock: SET NX PX, holding the writer's
//	                   token, or the one token all readers share
//	K:readers          the number of readers, INCR and DECR, no expiry
//	K:writer-intent    a writer waiting, PX ttl (writer preference)
//
// Each step is one script:
//  1. Read: unless a writer waits (writer preference, the default), INCR
//     K:readers; the reader that brings it to 1 takes K with SET NX PX and
//     the readers' token (and undoes its INCR when it cannot); any other
//     count lets the reader hold at once, trusting that a first reader
//     holds K.
//  2. Write: SET K:writer-intent PX ttl, then SET K NX PX with the
//     writer's own token; on success DEL K:readers and the intent.
//  3. Read unlock: DECR K:readers; the last reader DELs K if it holds
//     the readers' token.
//  4. Write unlock: DEL K if it holds the writer's token.
//  5. Refresh: PEXPIRE K if it holds the caller's token.
//
// How it breaks: the count outlives the lock. A reader that crashes
// leaves its count behind, and K expires after the TTL; the next reader
// then finds the count above zero and holds without K, so a writer takes
// K with SET NX and both hold at once (reader-crash-recovery). The
// module's author does not report it; it follows from the scripts, and
// this package's tests show it. And all readers share K's one lease,
// which the first reader sets and every refresh sets again: a reader's
// refresh cuts or stretches the others' leases, and a crashed reader's
// count keeps the last live reader's release from deleting K
// (reader-lease-independence).
package refcountrwlock

import (
	"context"
	_ "embed"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// name is the strategy's name in errors.
const name = "refcountrwlock"

// ReaderToken is the token every reader writes at K, the module's default
// reader lock token.
const ReaderToken = "read_c2d-75a1-4b5b-a6fb-b0754224c666"

// ReadersKey and IntentKey return the names of the readers' count and of
// the writer's intent for a lock on key.
func ReadersKey(key string) string { return key + ":readers" }

// IntentKey returns the name of the writer's intent for a lock on key.
func IntentKey(key string) string { return key + ":writer-intent" }

var (
	_ strategy.Keyed     = (*Strategy)(nil)
	_ strategy.SideKeyed = (*Strategy)(nil)
)

// Keys implements strategy.Keyed: the lock on key is K and the readers'
// count, which says whether a reader holds it without K. The count never
// expires: where the suite reads the lock's remaining time, a count left
// behind reads as none.
func (s *Strategy) Keys(key string) []string { return []string{key, ReadersKey(key)} }

// SideKeys implements strategy.SideKeyed: the writer's intent, which
// keeps readers out while a writer waits, and holds nothing.
func (s *Strategy) SideKeys(key string) []string { return []string{IntentKey(key)} }

// The module's scripts, one file each, which recipes/php/refcountrwlock.php
// sends as they are.
var (
	//go:embed read_lock.lua
	readLockSrc string
	//go:embed write_lock.lua
	writeLockSrc string
	//go:embed read_unlock.lua
	readUnlockSrc string
	//go:embed write_unlock.lua
	writeUnlockSrc string
	//go:embed refresh.lua
	refreshSrc string
)

var (
	// KEYS: K, readers, intent; ARGV: token, ttl, writer preference (0/1).
	readLock = redis.NewScript(3, readLockSrc)
	// KEYS: K, readers, intent; ARGV: token, ttl.
	writeLock = redis.NewScript(3, writeLockSrc)
	// KEYS: K, readers; ARGV: token.
	readUnlock = redis.NewScript(2, readUnlockSrc)
	// KEYS: K; ARGV: token.
	writeUnlock = redis.NewScript(1, writeUnlockSrc)
	// KEYS: K; ARGV: token, ttl.
	refresh = redis.NewScript(1, refreshSrc)
)

// Strategy is the lock of one client: a writer token of its own.
type Strategy struct {
	b            recipe.Base
	token        string
	preferWriter bool
}

var _ strategy.Shared = (*Strategy)(nil)

// Option configures the strategy.
type Option func(*Strategy)

// WithReaderPreference lets readers in while a writer waits (the module's
// ModePreferReader); by default a waiting writer's intent keeps new
// readers out.
func WithReaderPreference() Option { return func(s *Strategy) { s.preferWriter = false } }

// New returns the strategy on pool p.
func New(p strategy.Pool, opts ...Option) (*Strategy, error) {
	b, err := recipe.NewBase(name, p)
	if err != nil {
		return nil, err
	}
	s := &Strategy{b: b, token: recipe.Token(), preferWriter: true}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	return s, nil
}

// TryAcquire takes the write lock: the intent, then SET K NX PX.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.acquire(ctx, key, ttl, true)
}

// TryAcquireShared takes a read lock: INCR of the count, and SET K NX PX
// by the first reader.
func (s *Strategy) TryAcquireShared(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.acquire(ctx, key, ttl, false)
}

func (s *Strategy) acquire(ctx context.Context, key string, ttl time.Duration, write bool) (strategy.Lock, error) {
	sess, err := s.b.Begin(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	l := &Lock{s: s, key: key, token: ReaderToken}
	var won bool
	if write {
		l.token = s.token
		won, err = redis.Bool(sess.Eval(writeLock, ReadersKey(key), IntentKey(key), l.token, ttl.Milliseconds()))
	} else {
		prefer := 0
		if s.preferWriter {
			prefer = 1
		}
		won, err = redis.Bool(sess.Eval(readLock, ReadersKey(key), IntentKey(key), l.token, ttl.Milliseconds(), prefer))
	}
	if err != nil {
		return nil, err
	}
	if !won {
		return nil, sess.NotAcquired()
	}
	return l, nil
}

// Lock is a read or a write hold.
type Lock struct {
	s     *Strategy
	key   string
	token string // ReaderToken for a read
}

var _ strategy.Refresher = (*Lock)(nil)

// Key returns the locked key.
func (l *Lock) Key() string { return l.key }

// Shared reports whether the hold is a read.
func (l *Lock) Shared() bool { return l.token == ReaderToken }

// Release gives the hold up: a reader decrements the count, and the last
// one deletes K; a writer deletes K. It returns ErrNotHeld when K was to
// be deleted and did not hold the lock's token. A read released twice
// decrements the count twice, as the module's would.
func (l *Lock) Release(ctx context.Context) error {
	sess, err := l.s.b.Open(ctx, l.key)
	if err != nil {
		return err
	}
	defer sess.Close()
	var ok bool
	if l.Shared() {
		ok, err = redis.Bool(sess.Eval(readUnlock, ReadersKey(l.key), l.token))
	} else {
		ok, err = redis.Bool(sess.Eval(writeUnlock, l.token))
	}
	if err != nil {
		return err
	}
	if !ok {
		return sess.Fail("unlock", strategy.ErrNotHeld)
	}
	return nil
}

// Refresh makes K live ttl if it holds the lock's token: any reader
// renews the readers' K. It returns ErrNotHeld otherwise.
func (l *Lock) Refresh(ctx context.Context, ttl time.Duration) error {
	sess, err := l.s.b.Begin(ctx, l.key, ttl)
	if err != nil {
		return err
	}
	defer sess.Close()
	ok, err := redis.Bool(sess.Eval(refresh, l.token, ttl.Milliseconds()))
	if err != nil {
		return err
	}
	if !ok {
		return sess.Fail("refresh", strategy.ErrNotHeld)
	}
	return nil
}
