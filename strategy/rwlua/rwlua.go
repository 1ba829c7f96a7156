package rwlua

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/notify"
	"github.com/locklab/locklab/strategy/internal/recipe"
	"github.com/locklab/locklab/strategy/internal/tokenset"
	"github.com/rs/xid"
)

// name is the strategy's name in errors.
const name = "rwlua"

var (
	//go:embed acquire_write.lua
	acquireWriteSrc string
	//go:embed acquire_read.lua
	acquireReadSrc string

	acquireWriteScript = tokenset.Script(2, acquireWriteSrc)
	acquireReadScript  = tokenset.Script(2, acquireReadSrc)
)

// The prefixes of the holders' members: a reader's and a writer's. Every
// member has one, so no token can pass for the other kind.
const (
	readerPrefix = "r:"
	writerPrefix = "w:"
)

// Strategy is the read-write lock. Its options are fixed by New; it is safe
// for concurrent use.
type Strategy struct {
	b      *tokenset.Base
	intent time.Duration // 0: readers first
	writer string        // this Strategy's id among the waiting writers
	rooms  rooms         // its waiters, woken by its releases (without WithNotify)
}

var (
	_ strategy.Shared         = (*Strategy)(nil)
	_ strategy.Notifier       = (*Strategy)(nil)
	_ strategy.SharedNotifier = (*Strategy)(nil)
	_ strategy.EagerNotifier  = (*Strategy)(nil)
	_ strategy.WriterFirst    = (*Strategy)(nil)
	_ strategy.SideKeyed      = (*Strategy)(nil)
)

// New returns the read-write lock on pool p. Without options, writers come
// first: a writer that finds readers makes new readers wait for
// DefaultWriterIntent (see WithWriterIntent). The options add auto-renewal
// (WithAutoRenew, WithMaxHold, WithLeaseMargin) and release notifications
// (WithNotify). A bad option makes New fail with an error matching
// ErrInvalidOption.
func New(p strategy.Pool, opts ...Option) (*Strategy, error) {
	cfg := config{Config: tokenset.Config{Invalid: ErrInvalidOption}, intent: DefaultWriterIntent}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	b, err := tokenset.NewBase(name, p, &cfg.Config, ChannelPrefix)
	if err != nil {
		return nil, err
	}
	s := &Strategy{b: b, intent: cfg.intent, writer: xid.New().String()}
	if b.Hub == nil {
		b.Emptied = s.rooms.freed
	}
	return s, nil
}

// TryAcquire makes one attempt to take key as a writer for ttl: one script
// that succeeds when nobody holds key. When readers or a writer hold it, it
// returns an error matching strategy.ErrNotAcquired and, unless
// WithWriterIntent(0), registers this Strategy's intent to write, which
// keeps new readers out for the intent TTL (each failed attempt renews
// it; the successful one removes it). ttl counts whole milliseconds.
//
// The lock returned is a *Lock whatever the options; its Lease reports
// whether WithAutoRenew is on. With WithAutoRenew, ttl must leave room for
// a renewal before the lease ends; otherwise the error matches
// strategy.ErrInvalidTTL.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if err := s.b.Check(key, ttl); err != nil {
		return nil, err
	}
	if s.b.Hub == nil {
		s.rooms.writing(ctx, key)
	}
	h := s.hold(key, writerPrefix)
	l, err := s.b.Acquire(ctx, h, ttl, acquireWriteScript, func(reply any) error {
		return s.refused(key, reply, "readers hold it")
	}, key, IntentKey(key), h.Members[0], ttl.Milliseconds(), s.writer, s.intent.Milliseconds())
	if err != nil {
		return nil, err
	}
	return l, nil
}

// TryAcquireShared makes one attempt to take key as a reader for ttl: one
// script that succeeds unless a writer holds key or, unless
// WithWriterIntent(0), one waits for it. Readers hold key together, each
// with a hold of its own that expires, refreshes and is released alone.
// It returns an error matching strategy.ErrNotAcquired when refused, and
// is otherwise as TryAcquire.
func (s *Strategy) TryAcquireShared(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if err := s.b.Check(key, ttl); err != nil {
		return nil, err
	}
	if s.b.Hub == nil {
		s.rooms.reading(key)
	}
	h := s.hold(key, readerPrefix)
	l, err := s.b.Acquire(ctx, h, ttl, acquireReadScript, func(reply any) error {
		return s.refused(key, reply, "a writer waits for it")
	}, key, IntentKey(key), h.Members[0], ttl.Milliseconds())
	if err != nil {
		return nil, err
	}
	return l, nil
}

// hold names a new hold of key: a fresh token, its member, and the wake
// of every waiter once the last holder leaves (then anyone may enter: a
// writer, or every reader).
func (s *Strategy) hold(key, prefix string) tokenset.Hold {
	token := xid.New().String()
	return tokenset.Hold{Key: key, Token: token, Members: []any{prefix + token}, Wake: notify.WakeAll, WhenEmpty: true}
}

// refused reads an acquire script's reply: 1 taken, 0 a writer holds key,
// -1 as other says.
func (s *Strategy) refused(key string, reply any, other string) error {
	n, err := redis.Int(reply, nil)
	switch {
	case err != nil:
		return &strategy.OpError{Strategy: name, Op: "acquire", Key: key, Err: err}
	case n == 1:
		return nil
	case n == 0:
		return s.b.NotAcquired(key, "a writer holds it")
	}
	return s.b.NotAcquired(key, other)
}

// IntentSuffix ends the name of the key of every lock's waiting writers.
const IntentSuffix = ":writers"

// IntentKey returns the name of the sorted set that holds the intents of
// the writers waiting for key. It is a waiting room, not a hold: who holds
// key is all in key, so the Strategy declares it as a key beside the lock
// (strategy.SideKeyed), not as one of its state (strategy.Keyed, whose
// keys tell whether the lock is held). It lies in key's Redis Cluster slot, named as
// luatoken.FenceKey names its counter: "orders:42" →
// "{orders:42}:writers", "{order:42}:lock" → "{order:42}:lock:writers".
func IntentKey(key string) string { return recipe.SideKey(key, IntentSuffix) }

// SideKeys implements strategy.SideKeyed: beside the holders' set at key,
// the lock writes the waiting writers' set, IntentKey(key).
func (s *Strategy) SideKeys(key string) []string { return []string{IntentKey(key)} }

// ChannelPrefix begins the name of every release channel.
const ChannelPrefix = "rwlua:released:"

// ChannelName returns the Pub/Sub channel on which, with WithNotify, the
// release that leaves key free is announced: ChannelPrefix + key.
func ChannelName(key string) string { return ChannelPrefix + key }

// Subscribe implements strategy.Notifier, for a writer: the channel it
// returns receives when a release leaves key free, until stop is called.
// With WithNotify, the release is announced through Redis and every
// waiter of the Strategy is woken, as every reader may enter; Subscribe
// returns once the server has confirmed the subscription, so a release
// after it returns is never missed. Without WithNotify, only the releases
// made through this Strategy wake its waiters, in the process and without
// a message: one writer if any waits, otherwise every reader (see
// SubscribeShared); a release made elsewhere is found at the next retry.
func (s *Strategy) Subscribe(ctx context.Context, key string) (wake <-chan struct{}, stop func(), err error) {
	if s.b.Hub != nil {
		return s.b.Subscribe(ctx, key)
	}
	wake, stop = s.rooms.wait(key, false)
	return wake, stop, nil
}

// SubscribeShared implements strategy.SharedNotifier, for a reader, as
// Subscribe does for a writer; strategy.Reader waits with it. Without
// WithNotify, a release through this Strategy that leaves key free wakes
// the readers only when no writer of the Strategy waits for key.
func (s *Strategy) SubscribeShared(ctx context.Context, key string) (wake <-chan struct{}, stop func(), err error) {
	if s.b.Hub != nil {
		return s.b.Subscribe(ctx, key)
	}
	wake, stop = s.rooms.wait(key, true)
	return wake, stop, nil
}

// SubscribeFirst implements strategy.EagerNotifier: without WithNotify,
// a subscription is an entry in a map of the process, and
// strategy.Acquire subscribes before its first attempt, so that it makes
// no attempt at once after subscribing and misses no release through this
// Strategy. With WithNotify, Acquire subscribes through Redis only once
// the lock is found taken.
func (s *Strategy) SubscribeFirst() bool { return s.b.Hub == nil }

// WriterIntent returns the intent TTL: how long a writer's failed attempt
// keeps new readers out; 0 when readers come first.
func (s *Strategy) WriterIntent() time.Duration { return s.intent }

// Lock is a reader's or a writer's hold, the one type TryAcquire and
// TryAcquireShared return. Release removes its own member of the set only;
// Refresh extends it only (never another holder's, never once expired);
// TTL reads its time left by the server's clock; Lease, with
// WithAutoRenew, ends when it may be lost.
type Lock = tokenset.Lock

// String describes the strategy's policy, for logs.
func (s *Strategy) String() string {
	if s.intent == 0 {
		return name + " (readers first)"
	}
	return fmt.Sprintf("%s (writers first, intent %v)", name, s.intent)
}
