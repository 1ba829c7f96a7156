package luatoken

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/lease"
	"github.com/locklab/locklab/strategy/internal/notify"
	"github.com/locklab/locklab/strategy/internal/recipe"
	"github.com/rs/xid"
)

// name is the strategy's name in errors.
const name = "luatoken"

var (
	//go:embed release.lua
	releaseSrc string
	//go:embed refresh.lua
	refreshSrc string
	//go:embed ttl.lua
	ttlSrc string
	//go:embed acquire_fenced.lua
	acquireFencedSrc string

	releaseScript       = redis.NewScript(1, releaseSrc)
	refreshScript       = redis.NewScript(1, refreshSrc)
	ttlScript           = redis.NewScript(1, ttlSrc)
	acquireFencedScript = redis.NewScript(2, acquireFencedSrc)
)

// Strategy is the token lock with a Lua release. Its options are fixed by
// New; it is safe for concurrent use.
type Strategy struct {
	b   recipe.Base
	cfg config
	hub *notify.Hub // nil unless WithNotify
}

// New returns the strategy on pool p. Without options every TryAcquire is a
// single SET NX PX and every Release a single EVALSHA; the options add
// auto-renewal (WithAutoRenew, WithMaxHold, WithLeaseMargin), fencing tokens
// (WithFencing) and release notifications (WithNotify). A bad option makes
// New fail with an error matching ErrInvalidOption.
func New(p strategy.Pool, opts ...Option) (*Strategy, error) {
	b, err := recipe.NewBase(name, p)
	if err != nil {
		return nil, err
	}
	var cfg config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	s := &Strategy{b: b, cfg: cfg}
	if cfg.notify {
		s.hub = notify.NewHub(p, name, ChannelPrefix)
	}
	return s, nil
}

// TryAcquire makes one attempt to lock key for ttl: SET key <token> NX PX ttl,
// or with WithFencing one EVALSHA that also draws the fencing token. ttl
// counts whole milliseconds; what is below a millisecond is dropped.
//
// The lock returned is always a *Lock, whatever the options; its
// FencingToken and Lease report whether WithFencing and WithAutoRenew are
// on. With WithAutoRenew, ttl must leave room for a renewal before the
// lease ends (see WithAutoRenew); otherwise the error matches
// strategy.ErrInvalidTTL.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if err := strategy.Validate(key, ttl); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if s.cfg.lease.Renew {
		if err := s.cfg.lease.CheckTTL(name, ttl); err != nil {
			return nil, err
		}
	}
	conn, err := s.b.Pool.GetContext(ctx)
	if err != nil {
		return nil, opError("connect", key, err)
	}
	defer conn.Close()
	// The key and the token are put in interface values once, here, for
	// the commands of the lock's whole life: each conversion of a string
	// to an interface value is an allocation.
	keyArg := any(key)
	l := &Lock{s: s, key: key, keyArg: keyArg, token: any(xid.New().String())}
	var sent time.Time // when the command that sets the TTL was sent
	if s.cfg.lease.Renew {
		sent = time.Now()
	}
	if s.cfg.fencing {
		l.fence, err = redis.Int64(recipe.EvalBounded(ctx, conn, acquireFencedScript, keyArg, FenceKey(key), l.token, ttl.Milliseconds()))
		if err != nil {
			return nil, opError("acquire", key, err)
		}
		if l.fence == 0 {
			return nil, notAcquired(key)
		}
	} else if err := set(ctx, conn, key, keyArg, l.token, ttl); err != nil {
		return nil, err
	}
	if s.cfg.lease.Renew {
		// The key lives the whole milliseconds that PX was given.
		l.lease = lease.Start(ctx, &s.cfg.lease, sent, ttl.Truncate(time.Millisecond), l.extend, leaseCause(key))
	}
	return l, nil
}

// set sends SET key token NX PX ttl; keyArg is key as an interface value.
func set(ctx context.Context, conn redis.Conn, key string, keyArg, token any, ttl time.Duration) error {
	_, err := redis.String(recipe.DoBounded(ctx, conn, "SET", keyArg, token, "NX", "PX", ttl.Milliseconds()))
	if err != nil {
		if errors.Is(err, redis.ErrNil) {
			return notAcquired(key)
		}
		return opError("SET", key, err)
	}
	return nil
}

// Lock is a held token lock: the one type TryAcquire returns, whatever the
// options. Its methods are safe for concurrent use.
type Lock struct {
	s      *Strategy
	key    string
	keyArg any          // key, as the commands take it
	token  any          // a string; held as the commands take it
	fence  int64        // 0 without WithFencing
	lease  *lease.Lease // nil without WithAutoRenew
}

var (
	_ strategy.Lock      = (*Lock)(nil)
	_ strategy.Refresher = (*Lock)(nil)
	_ strategy.Fenced    = (*Lock)(nil)
	_ strategy.Leased    = (*Lock)(nil)
)

// FencingToken returns the fencing token drawn when the lock was taken, and
// false without WithFencing.
func (l *Lock) FencingToken() (int64, bool) { return l.fence, l.fence != 0 }

// Lease returns the context that ends when the lock may have been lost, and
// false (and a nil context) without WithAutoRenew.
func (l *Lock) Lease() (context.Context, bool) {
	if l.lease == nil {
		return nil, false
	}
	return l.lease.Context(), true
}

// Key returns the locked key.
func (l *Lock) Key() string { return l.key }

// Token returns the unique value this lock wrote at its key.
func (l *Lock) Token() string { return l.token.(string) }

// Release deletes the key if it still holds this lock's token, with one
// EVALSHA (EVAL when the script is not cached). With WithNotify the same
// script publishes the release to the waiters. A renewing lock stops
// renewing and its Lease ends, with ErrReleased as the cause, before the key
// is deleted, and Release returns once its renewal goroutine has stopped
// (or ctx is done). Release returns an error matching strategy.ErrNotHeld
// when the lock had expired or was released already.
func (l *Lock) Release(ctx context.Context) error {
	wait := func(context.Context) {}
	if l.lease != nil {
		wait = l.lease.Release()
	}
	conn, err := l.s.b.Pool.GetContext(ctx)
	if err != nil {
		return opError("connect", l.key, err)
	}
	defer conn.Close()
	var reply any
	if l.s.hub != nil {
		reply, err = recipe.EvalBounded(ctx, conn, releaseScript, l.keyArg, l.token, ChannelName(l.key))
	} else {
		reply, err = recipe.EvalBounded(ctx, conn, releaseScript, l.keyArg, l.token)
	}
	n, err := redis.Int(reply, err)
	wait(ctx)
	if err != nil {
		return opError("release", l.key, err)
	}
	if n == 0 {
		return opError("release", l.key, strategy.ErrNotHeld)
	}
	return nil
}

// Refresh makes the lock live at least ttl from now, if the key still holds
// this lock's token: a Lua compare-and-PEXPIRE that never shortens the lock
// (a longer remaining TTL is left as it is). It returns an error matching
// strategy.ErrNotHeld when the lock is gone or someone else's, or, for a
// renewing lock, when its Lease has ended; and one matching
// strategy.ErrInvalidTTL when ttl is below 1ms. A successful Refresh of a
// renewing lock moves its lease deadline as a renewal does.
func (l *Lock) Refresh(ctx context.Context, ttl time.Duration) error {
	if ttl < time.Millisecond {
		return fmt.Errorf("%s: refresh %q: %w: %v is below 1ms, the smallest TTL Redis can express",
			name, l.key, strategy.ErrInvalidTTL, ttl)
	}
	if le := l.lease; le != nil {
		if err := le.Ended(); err != nil {
			return opError("refresh", l.key, err)
		}
		return le.Refresh(ctx, ttl)
	}
	return l.extend(ctx, ttl)
}

// extend runs refresh.lua.
func (l *Lock) extend(ctx context.Context, ttl time.Duration) error {
	conn, err := l.s.b.Pool.GetContext(ctx)
	if err != nil {
		return opError("connect", l.key, err)
	}
	defer conn.Close()
	n, err := redis.Int(recipe.Eval(ctx, conn, refreshScript, l.keyArg, l.token, ttl.Milliseconds()))
	if err != nil {
		return opError("refresh", l.key, err)
	}
	if n == 0 {
		return opError("refresh", l.key, strategy.ErrNotHeld)
	}
	return nil
}

// TTL returns how long the lock has left, read with a Lua compare-and-PTTL.
// It returns an error matching strategy.ErrNotHeld when the lock is gone or
// someone else's, and one matching strategy.ErrBadValue when the key holds
// this lock's token but no longer expires (someone ran PERSIST on it).
func (l *Lock) TTL(ctx context.Context) (time.Duration, error) {
	conn, err := l.s.b.Pool.GetContext(ctx)
	if err != nil {
		return 0, opError("connect", l.key, err)
	}
	defer conn.Close()
	ms, err := redis.Int64(recipe.Eval(ctx, conn, ttlScript, l.keyArg, l.token))
	switch {
	case err != nil:
		return 0, opError("ttl", l.key, err)
	case ms == -1:
		return 0, opError("ttl", l.key, fmt.Errorf("%w: the lock key has no expiry", strategy.ErrBadValue))
	case ms < 0: // -3: gone or someone else's
		return 0, opError("ttl", l.key, strategy.ErrNotHeld)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

func opError(op, key string, err error) error {
	return &strategy.OpError{Strategy: name, Op: op, Key: key, Err: err}
}

func notAcquired(key string) error {
	return fmt.Errorf("%s: %q: %w", name, key, strategy.ErrNotAcquired)
}
