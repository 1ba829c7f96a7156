// Package tokenset holds what the locks that are not mutexes share: their
// state is one sorted set per lock key, a member (or a few) per holder,
// each scored by its own expiry in milliseconds of the server's clock, and
// every change is one Lua script that first removes the members whose time
// has passed. The read-write lock (rwlua) and the semaphore (semlua) bring
// their acquire scripts; the release, the refresh, the time left, the
// options, the lease and the notifications are here.
package tokenset

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/lease"
	"github.com/locklab/locklab/strategy/internal/notify"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

var (
	//go:embed prelude.lua
	preludeSrc string
	//go:embed release.lua
	releaseSrc string
	//go:embed refresh.lua
	refreshSrc string
	//go:embed ttl.lua
	ttlSrc string

	releaseScript = Script(1, releaseSrc)
	refreshScript = Script(1, refreshSrc)
	ttlScript     = Script(1, ttlSrc)
)

// Script returns the script src with keyCount keys, after the prelude
// that every script of a token set begins with: it reads the server's
// time into now, removes the expired members of KEYS[1], and defines
// prune(key) and fit(key) (which makes key live as long as its longest
// member).
func Script(keyCount int, src string) *redis.Script {
	return redis.NewScript(keyCount, preludeSrc+"\n"+src)
}

// Base is what a Strategy of a token-set lock holds: its name, its pool,
// its options and, with WithNotify, its notification hub.
type Base struct {
	Name   string
	Pool   strategy.Pool
	Config *Config
	Hub    *notify.Hub // nil unless Config.Notify
	// Emptied, when set, is called after each Release of a Lock of this
	// Base that left the lock's set empty, with the lock's key.
	Emptied func(key string)
	prefix  string
}

// NewBase checks the pool and the options; channels are named prefix + key.
func NewBase(name string, p strategy.Pool, c *Config, prefix string) (*Base, error) {
	if err := strategy.CheckPool(name, p); err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	b := &Base{Name: name, Pool: p, Config: c, prefix: prefix}
	if c.Notify {
		b.Hub = notify.NewHub(p, name, prefix)
	}
	return b, nil
}

// Check checks the arguments of an acquire: a key, a TTL of at least a
// millisecond, and one long enough to renew with WithAutoRenew.
func (b *Base) Check(key string, ttl time.Duration) error {
	if err := strategy.Validate(key, ttl); err != nil {
		return fmt.Errorf("%s: %w", b.Name, err)
	}
	if b.Config.Lease.Renew {
		return b.Config.Lease.CheckTTL(b.Name, ttl)
	}
	return nil
}

// Subscribe implements strategy.Notifier; without WithNotify it returns a
// nil channel.
func (b *Base) Subscribe(ctx context.Context, key string) (<-chan struct{}, func(), error) {
	if b.Hub == nil {
		return nil, func() {}, nil
	}
	return b.Hub.Subscribe(ctx, key)
}

// Hold describes a hold about to be taken.
type Hold struct {
	Key     string
	Token   string
	Members []any // the hold's members of the set, as the scripts take them
	// Wake is the message its release publishes (see notify.WakeAll);
	// WhenEmpty publishes it only when the release leaves the set empty.
	Wake      string
	WhenEmpty bool
}

// Acquire runs one acquire script on a connection of the pool and, when
// refused finds in its reply that the hold was taken (it returns nil),
// returns the lock, its lease started with WithAutoRenew. Otherwise it
// returns refused's error. keysAndArgs are the script's.
func (b *Base) Acquire(ctx context.Context, h Hold, ttl time.Duration, script *redis.Script, refused func(reply any) error, keysAndArgs ...any) (*Lock, error) {
	conn, err := b.Pool.GetContext(ctx)
	if err != nil {
		return nil, b.opError("connect", h.Key, err)
	}
	defer conn.Close()
	sent := time.Now() // before the script sets the hold's expiry
	reply, err := recipe.EvalBounded(ctx, conn, script, keysAndArgs...)
	if err != nil {
		return nil, b.opError("acquire", h.Key, err)
	}
	if err := refused(reply); err != nil {
		return nil, err
	}
	l := &Lock{b: b, h: h, keyArg: any(h.Key)}
	l.release = append([]any{l.keyArg, "any", "", h.Wake}, h.Members...)
	if h.WhenEmpty {
		l.release[1] = "empty"
	}
	if b.Hub != nil {
		l.release[2] = b.prefix + h.Key
	}
	if b.Config.Lease.Renew {
		// The hold lives the whole milliseconds the script was given.
		l.lease = lease.Start(ctx, &b.Config.Lease, sent, ttl.Truncate(time.Millisecond), l.extend, b.leaseCause(h.Key))
	}
	return l, nil
}

// NotAcquired is the error of an attempt that found the lock taken; why
// says by whom, such as "a writer holds it".
func (b *Base) NotAcquired(key, why string) error {
	return fmt.Errorf("%s: %q: %w: %s", b.Name, key, strategy.ErrNotAcquired, why)
}

func (b *Base) opError(op, key string, err error) error {
	return &strategy.OpError{Strategy: b.Name, Op: op, Key: key, Err: err}
}

// Lock is a hold of a token-set lock: a reader's or a writer's, or some
// permits of a semaphore. Its methods are safe for concurrent use.
type Lock struct {
	b       *Base
	h       Hold
	keyArg  any
	release []any        // the release script's keys and arguments
	lease   *lease.Lease // nil without WithAutoRenew
}

var (
	_ strategy.Lock      = (*Lock)(nil)
	_ strategy.Refresher = (*Lock)(nil)
	_ strategy.Leased    = (*Lock)(nil)
)

// Key returns the locked key.
func (l *Lock) Key() string { return l.h.Key }

// Token returns the token that names this hold's members in the set.
func (l *Lock) Token() string { return l.h.Token }

// Lease returns the context that ends when the hold may have been lost,
// and false (and a nil context) without WithAutoRenew.
func (l *Lock) Lease() (context.Context, bool) {
	if l.lease == nil {
		return nil, false
	}
	return l.lease.Context(), true
}

// Release removes this hold's own members from the set, with one script,
// and never anyone else's. It returns an error matching strategy.ErrNotHeld
// when the hold had expired or was released already: a late or second
// Release changes nothing. A renewing hold stops renewing and its Lease
// ends, with ErrReleased as the cause, before the members are removed, and
// Release returns once its renewal goroutine has stopped (or ctx is done).
func (l *Lock) Release(ctx context.Context) error {
	wait := func(context.Context) {}
	if l.lease != nil {
		wait = l.lease.Release()
	}
	conn, err := l.b.Pool.GetContext(ctx)
	if err != nil {
		wait(ctx)
		return l.b.opError("connect", l.h.Key, err)
	}
	defer conn.Close()
	reply, err := redis.Ints(recipe.EvalBounded(ctx, conn, releaseScript, l.release...))
	wait(ctx)
	if err == nil && len(reply) != 2 {
		err = fmt.Errorf("release script replied %v, not two numbers", reply)
	}
	if err != nil {
		return l.b.opError("release", l.h.Key, err)
	}
	if reply[0] == 0 {
		return l.b.opError("release", l.h.Key, strategy.ErrNotHeld)
	}
	if reply[1] == 1 && l.b.Emptied != nil {
		l.b.Emptied(l.h.Key)
	}
	return nil
}

// Refresh makes the hold live at least ttl from now by the server's clock,
// if it is still held: it never shortens the hold, never touches another
// holder's, and never takes back a hold that has expired. It returns an
// error matching strategy.ErrNotHeld when the hold is gone, or, for a
// renewing hold, when its Lease has ended; and one matching
// strategy.ErrInvalidTTL when ttl is below 1ms. A successful Refresh of a
// renewing hold moves its lease deadline as a renewal does.
func (l *Lock) Refresh(ctx context.Context, ttl time.Duration) error {
	if ttl < time.Millisecond {
		return fmt.Errorf("%s: refresh %q: %w: %v is below 1ms, the smallest TTL Redis can express",
			l.b.Name, l.h.Key, strategy.ErrInvalidTTL, ttl)
	}
	if le := l.lease; le != nil {
		if err := le.Ended(); err != nil {
			return l.b.opError("refresh", l.h.Key, err)
		}
		return le.Refresh(ctx, ttl)
	}
	return l.extend(ctx, ttl)
}

// extend runs refresh.lua.
func (l *Lock) extend(ctx context.Context, ttl time.Duration) error {
	conn, err := l.b.Pool.GetContext(ctx)
	if err != nil {
		return l.b.opError("connect", l.h.Key, err)
	}
	defer conn.Close()
	args := make([]any, 0, 2+len(l.h.Members))
	args = append(args, l.keyArg, ttl.Milliseconds())
	n, err := redis.Int(recipe.Eval(ctx, conn, refreshScript, append(args, l.h.Members...)...))
	if err != nil {
		return l.b.opError("refresh", l.h.Key, err)
	}
	if n == 0 {
		return l.b.opError("refresh", l.h.Key, strategy.ErrNotHeld)
	}
	return nil
}

// TTL returns how long the hold has left by the server's clock. It returns
// an error matching strategy.ErrNotHeld when the hold is gone.
func (l *Lock) TTL(ctx context.Context) (time.Duration, error) {
	conn, err := l.b.Pool.GetContext(ctx)
	if err != nil {
		return 0, l.b.opError("connect", l.h.Key, err)
	}
	defer conn.Close()
	ms, err := redis.Int64(recipe.Eval(ctx, conn, ttlScript, l.keyArg, l.h.Members[0]))
	switch {
	case err != nil:
		return 0, l.b.opError("ttl", l.h.Key, err)
	case ms < 0:
		return 0, l.b.opError("ttl", l.h.Key, strategy.ErrNotHeld)
	}
	return time.Duration(ms) * time.Millisecond, nil
}
