package mutants

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/rs/xid"
)

// recipe is a token lock taken apart into the steps a mutant replaces: how a
// token is drawn, and the commands of acquire, release and refresh. correct
// puts it together right; every mutant and variant starts from it.
type recipe struct {
	token   func(instance string) string // instance: the strategy instance's own id
	acquire func(s session, token string, ttl time.Duration) (bool, error)
	release func(s session, token string) (bool, error)
	refresh func(s session, token string, ttl time.Duration) (bool, error)
	// fenced, when set, is an acquire that also draws a fencing token,
	// in place of acquire: the lock is then a strategy.Fenced.
	fenced func(s session, token string, ttl time.Duration) (ok bool, fence int64, err error)
	// watchdog, when set, starts renewing a lock as its acquire returns,
	// and returns what Release calls first to stop it.
	watchdog func(l *lock, ttl time.Duration) (stop func())
	// keys, when set, names the keys the lock keeps its state under in
	// place of the key it is given: the strategy is then a
	// strategy.Keyed, and its steps work on those keys.
	keys func(key string) []string
}

// correct is the lock the corpus starts from: a unique token set with
// SET key token NX PX ttl, released by a Lua compare-and-delete and
// refreshed by a Lua compare-and-PEXPIRE.
var correct = recipe{
	token:   func(string) string { return xid.New().String() },
	acquire: setNXExpiry("PX", time.Millisecond),
	release: script(compareAndDelete),
	refresh: scriptTTL(compareAndExpire),
}

var (
	compareAndDelete = redis.NewScript(1, `
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

	compareAndExpire = redis.NewScript(1, `
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)
)

// compareAndAddTTL is compareAndExpire that adds the TTL to the time the
// key has left.
var compareAndAddTTL = redis.NewScript(1, `
if redis.call("GET", KEYS[1]) == ARGV[1] then
	local left = redis.call("PTTL", KEYS[1])
	if left < 0 then left = 0 end
	return redis.call("PEXPIRE", KEYS[1], left + tonumber(ARGV[2]))
end
return 0`)

// script is a release by a script that takes the key and the token and
// answers 1 when it deleted the key.
func script(sc *redis.Script) func(session, string) (bool, error) {
	return func(s session, token string) (bool, error) {
		return s.one(s.eval(sc, token))
	}
}

// scriptTTL is a refresh by a script that takes the key, the token and the
// TTL in milliseconds and answers 1 when it extended the key.
func scriptTTL(sc *redis.Script) func(session, string, time.Duration) (bool, error) {
	return func(s session, token string, ttl time.Duration) (bool, error) {
		return s.one(s.eval(sc, token, ttl.Milliseconds()))
	}
}

// session runs the commands of one lock operation on one connection.
type session struct {
	ctx   context.Context
	conn  redis.Conn
	key   string
	clock strategy.Clock // the client's
	pool  strategy.Pool  // for another connection, once conn has failed
}

// do sends a command whose first argument is the key.
func (s session) do(cmd string, args ...any) (any, error) {
	return redis.DoContext(s.conn, s.ctx, cmd, append([]any{s.key}, args...)...)
}

// bare sends a command without the key (MULTI, EXEC, UNWATCH).
func (s session) bare(cmd string, args ...any) (any, error) {
	return redis.DoContext(s.conn, s.ctx, cmd, args...)
}

// evalKeys runs a script on keys, the script's KEYS, with args.
func (s session) evalKeys(sc *redis.Script, keys []string, args ...any) (any, error) {
	kv := make([]any, 0, len(keys)+len(args))
	for _, k := range keys {
		kv = append(kv, k)
	}
	return sc.DoContext(s.ctx, s.conn, append(kv, args...)...)
}

// eval runs a script on the key (EVALSHA, EVAL when not cached).
func (s session) eval(sc *redis.Script, args ...any) (any, error) {
	return sc.DoContext(s.ctx, s.conn, append([]any{s.key}, args...)...)
}

// again returns the session on a fresh connection of the pool, and its
// close: the session's own connection may be dead (a dropped connection,
// a deadline past). Its commands have a second, whatever the caller's
// deadline was: they find out what the failed one did.
func (s session) again() (session, func(), error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), time.Second)
	conn, err := s.pool.GetContext(ctx)
	if err != nil {
		cancel()
		return session{}, nil, err
	}
	s.ctx, s.conn = ctx, conn
	return s, func() { conn.Close(); cancel() }, nil
}

// uncertain says whether err leaves a command's outcome unknown: a
// timeout or a dropped connection, after which it may have run; an error
// reply of Redis's (redis.Error) says it did not.
func uncertain(err error) bool {
	var re redis.Error
	return err != nil && !errors.As(err, &re)
}

// cmd is a command on the session's key: its name, then its arguments
// after the key.
type cmd []any

// multi runs cmds in MULTI / EXEC and returns EXEC's replies, one a
// command; an EXEC that a WATCH aborted returns redis.ErrNil.
func (s session) multi(cmds ...cmd) ([]any, error) {
	if _, err := s.bare("MULTI"); err != nil {
		return nil, err
	}
	for _, c := range cmds {
		if _, err := s.do(c[0].(string), c[1:]...); err != nil {
			return nil, err
		}
	}
	return redis.Values(s.bare("EXEC"))
}

// set sends SET key token args... and says whether it set the key (OK
// rather than nil).
func (s session) set(token string, args ...any) (bool, error) {
	_, err := redis.String(s.do("SET", append([]any{token}, args...)...))
	if errors.Is(err, redis.ErrNil) {
		return false, nil
	}
	return err == nil, err
}

// one reads an integer reply as "it did it": 1 (or more) for yes.
func (s session) one(reply any, err error) (bool, error) {
	n, err := redis.Int(reply, err)
	return n > 0, err
}

// get reads the key's value; ok is false when there is none.
func (s session) get() (v string, ok bool, err error) {
	v, err = redis.String(s.do("GET"))
	if errors.Is(err, redis.ErrNil) {
		return "", false, nil
	}
	return v, err == nil, err
}

// with returns r with the steps that changes sets in place of its own.
func (r recipe) with(changes recipe) recipe {
	if changes.token != nil {
		r.token = changes.token
	}
	if changes.acquire != nil {
		r.acquire = changes.acquire
	}
	if changes.release != nil {
		r.release = changes.release
	}
	if changes.refresh != nil {
		r.refresh = changes.refresh
	}
	if changes.fenced != nil {
		r.fenced = changes.fenced
	}
	if changes.keys != nil {
		r.keys = changes.keys
	}
	if changes.watchdog != nil {
		r.watchdog = changes.watchdog
	}
	return r
}

// build binds the correct recipe, with the steps that changes sets in
// place of its own, to a pool.
func build(name string, changes recipe, p strategy.Pool, clock strategy.Clock) strategy.Strategy {
	r := correct.with(changes)
	ls := &lockStrategy{name: name, r: r, pool: p, clock: clock, instance: xid.New().String()}
	if r.keys != nil {
		return keyedStrategy{ls}
	}
	return ls
}

// keyedStrategy is a lockStrategy whose recipe keeps the lock under keys
// of its own.
type keyedStrategy struct{ *lockStrategy }

// Keys returns the keys a lock on key is kept under.
func (ks keyedStrategy) Keys(key string) []string { return ks.r.keys(key) }

// lockStrategy is a recipe bound to a pool, as the suite builds one per
// simulated client.
type lockStrategy struct {
	name     string
	r        recipe
	pool     strategy.Pool
	clock    strategy.Clock
	instance string // drawn once, when the instance is built
}

// open takes a connection for one operation and runs it; step's false
// becomes miss.
func (ls *lockStrategy) open(ctx context.Context, key, op string, miss error, step func(session) (bool, error)) error {
	conn, err := ls.pool.GetContext(ctx)
	if err != nil {
		return &strategy.OpError{Strategy: ls.name, Op: "connect", Key: key, Err: err}
	}
	defer conn.Close()
	ok, err := step(session{ctx: ctx, conn: conn, key: key, clock: ls.clock, pool: ls.pool})
	switch {
	case err != nil:
		return &strategy.OpError{Strategy: ls.name, Op: op, Key: key, Err: err}
	case !ok:
		return &strategy.OpError{Strategy: ls.name, Op: op, Key: key, Err: miss}
	}
	return nil
}

// TryAcquire makes one attempt with the recipe's token and acquire.
func (ls *lockStrategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if err := strategy.Validate(key, ttl); err != nil {
		return nil, fmt.Errorf("%s: %w", ls.name, err)
	}
	l := &lock{ls: ls, key: key, token: ls.r.token(ls.instance)}
	err := ls.open(ctx, key, "acquire", strategy.ErrNotAcquired, func(s session) (bool, error) {
		if ls.r.fenced != nil {
			ok, fence, err := ls.r.fenced(s, l.token, ttl)
			l.fence = fence
			return ok, err
		}
		return ls.r.acquire(s, l.token, ttl)
	})
	if err != nil {
		return nil, err
	}
	if ls.r.watchdog != nil {
		l.stop = ls.r.watchdog(l, ttl)
	}
	if ls.r.fenced != nil {
		return &fencedLock{l}, nil
	}
	return l, nil
}

// lock is a lock taken by a lockStrategy.
type lock struct {
	ls    *lockStrategy
	key   string
	token string
	fence int64  // drawn by a fenced acquire
	stop  func() // stops the lock's watchdog, if it has one
	lease Lease  // what its watchdog, if it has one, renews it with
}

// fencedLock is a lock whose acquire drew a fencing token.
type fencedLock struct{ *lock }

// FencingToken returns the token the acquire drew.
func (l *fencedLock) FencingToken() (int64, bool) { return l.fence, true }

var _ strategy.Refresher = (*lock)(nil)

func (l *lock) Key() string { return l.key }

// Release runs the recipe's release; ErrNotHeld when it freed nothing.
func (l *lock) Release(ctx context.Context) error {
	if l.stop != nil {
		l.stop()
	}
	return l.ls.open(ctx, l.key, "release", strategy.ErrNotHeld, func(s session) (bool, error) {
		return l.ls.r.release(s, l.token)
	})
}

// Refresh runs the recipe's refresh; ErrNotHeld when it extended nothing.
// A watchdog renews the lock with ttl from then on.
func (l *lock) Refresh(ctx context.Context, ttl time.Duration) error {
	if err := strategy.Validate(l.key, ttl); err != nil {
		return fmt.Errorf("%s: refresh: %w", l.ls.name, err)
	}
	return l.lease.Asked(ctx, ttl, l.extend)
}

// extend runs the recipe's refresh with ttl.
func (l *lock) extend(ctx context.Context, ttl time.Duration) error {
	return l.ls.open(ctx, l.key, "refresh", strategy.ErrNotHeld, func(s session) (bool, error) {
		return l.ls.r.refresh(s, l.token, ttl)
	})
}
