package conntest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/getset"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/locklab/locklab/strategy/multiget"
	"github.com/locklab/locklab/strategy/setnxexpire"
	"github.com/locklab/locklab/strategy/watchdel"
)

const ttl = 10 * time.Second

func strategies(e env, t *testing.T, newPool func(t *testing.T) strategy.Pool, f Features) {
	t.Run("luatoken", func(t *testing.T) { plain(e, t, newPool(t)) })
	t.Run("luatoken-fencing", func(t *testing.T) { fencing(e, t, newPool(t)) })
	t.Run("luatoken-renew", func(t *testing.T) { renew(e, t, newPool(t)) })
	t.Run("luatoken-notify", func(t *testing.T) { notify(e, t, newPool) })
	others := map[string]func(strategy.Pool) (strategy.Strategy, error){
		"getset":      func(p strategy.Pool) (strategy.Strategy, error) { return getset.New(p) },
		"setnxexpire": func(p strategy.Pool) (strategy.Strategy, error) { return setnxexpire.New(p) },
	}
	if !f.NoPin {
		others["watchdel"] = func(p strategy.Pool) (strategy.Strategy, error) { return watchdel.New(p) }
		others["multiget"] = func(p strategy.Pool) (strategy.Strategy, error) { return multiget.New(p) }
	}
	for name, mk := range others {
		t.Run(name, func(t *testing.T) {
			s, err := mk(newPool(t))
			if err != nil {
				t.Fatal(err)
			}
			cycle(e, t, s, name != "multiget")
		})
	}
}

// cycle takes a lock, checks that a second attempt fails, and releases it;
// frees says whether the release deletes the key (multiget's never does).
func cycle(e env, t *testing.T, s strategy.Strategy, frees bool) {
	ctx := context.Background()
	key := redistest.Key(t)
	l, err := s.TryAcquire(ctx, key, ttl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.TryAcquire(ctx, key, ttl); !errors.Is(err, strategy.ErrNotAcquired) {
		t.Fatalf("second TryAcquire on a held key: %v, want ErrNotAcquired", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	exists, err := redis.Int(e.redigo(t).Get().Do("EXISTS", key))
	if err != nil {
		t.Fatal(err)
	}
	if frees && exists != 0 {
		t.Error("the key is still there after Release")
	}
	if !frees {
		e.redigo(t).Get().Do("DEL", key)
	}
}

func newLuatoken(t *testing.T, p strategy.Pool, opts ...luatoken.Option) *luatoken.Strategy {
	t.Helper()
	s, err := luatoken.New(p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func plain(e env, t *testing.T, p strategy.Pool) {
	s := newLuatoken(t, p)
	cycle(e, t, s, true)

	// The same with a context that can end, the path of DoContext.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	key := redistest.Key(t)
	l, err := s.TryAcquire(ctx, key, ttl)
	if err != nil {
		t.Fatal(err)
	}
	lk, ok := l.(*luatoken.Lock)
	if !ok {
		t.Fatalf("TryAcquire returned a %T, want a *luatoken.Lock", l)
	}
	left, err := lk.TTL(ctx)
	if err != nil || left <= ttl-time.Second || left > ttl {
		t.Errorf("TTL: %v, %v; want just under %v", left, err, ttl)
	}
	if err := lk.Refresh(ctx, 2*ttl); err != nil {
		t.Fatal(err)
	}
	if left, _ := lk.TTL(ctx); left <= ttl {
		t.Errorf("TTL after Refresh(%v): %v", 2*ttl, left)
	}
	// The release script is reloaded with EVAL when the server lost it.
	if _, err := e.redigo(t).Get().Do("SCRIPT", "FLUSH"); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("Release after SCRIPT FLUSH: %v", err)
	}
	if err := l.Release(ctx); !errors.Is(err, strategy.ErrNotHeld) {
		t.Errorf("second Release: %v, want ErrNotHeld", err)
	}
	if err := lk.Refresh(ctx, ttl); !errors.Is(err, strategy.ErrNotHeld) {
		t.Errorf("Refresh after Release: %v, want ErrNotHeld", err)
	}
	// A key turned into another type under the lock: the server's error
	// comes through as a redis.Error.
	l, err = s.TryAcquire(ctx, key, ttl)
	if err != nil {
		t.Fatal(err)
	}
	rp := e.redigo(t).Get()
	defer rp.Close()
	if _, err := rp.Do("DEL", key); err != nil {
		t.Fatal(err)
	}
	if _, err := rp.Do("HSET", key, "f", "v"); err != nil {
		t.Fatal(err)
	}
	defer rp.Do("DEL", key)
	var re redis.Error
	if err := l.Release(ctx); !errors.As(err, &re) {
		t.Errorf("Release of a key that became a hash: %T %v, want a redis.Error", err, err)
	}
}

func fencing(e env, t *testing.T, p strategy.Pool) {
	s := newLuatoken(t, p, luatoken.WithFencing())
	ctx := context.Background()
	key := redistest.Key(t)
	defer e.redigo(t).Get().Do("DEL", luatoken.FenceKey(key))
	var last int64
	for i := range 3 {
		l, err := s.TryAcquire(ctx, key, ttl)
		if err != nil {
			t.Fatal(err)
		}
		tok, ok := strategy.FencingToken(l)
		if !ok {
			t.Fatalf("acquisition %d: no fencing token", i)
		}
		if tok <= last {
			t.Errorf("acquisition %d: fencing token %d after %d", i, tok, last)
		}
		last = tok
		if _, err := s.TryAcquire(ctx, key, ttl); !errors.Is(err, strategy.ErrNotAcquired) {
			t.Fatalf("second TryAcquire: %v", err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func renew(e env, t *testing.T, p strategy.Pool) {
	s := newLuatoken(t, p, luatoken.WithAutoRenew(0))
	ctx := context.Background()
	key := redistest.Key(t)
	const short = 600 * time.Millisecond
	l, err := s.TryAcquire(ctx, key, short)
	if err != nil {
		t.Fatal(err)
	}
	lease, ok := strategy.Lease(l)
	if !ok {
		t.Fatal("a lock with WithAutoRenew has no lease")
	}
	time.Sleep(3 * short)
	if err := lease.Err(); err != nil {
		t.Fatalf("lease ended after %v with renewals every %v: %v", 3*short, short/3, context.Cause(lease))
	}
	if _, err := s.TryAcquire(ctx, key, short); !errors.Is(err, strategy.ErrNotAcquired) {
		t.Fatalf("TryAcquire on a renewed lock: %v", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(context.Cause(lease), luatoken.ErrReleased) {
		t.Errorf("lease cause after Release: %v", context.Cause(lease))
	}
}

// notify checks that a waiter on a pool of its own is woken by the release,
// long before its retry would have come.
func notify(e env, t *testing.T, newPool func(t *testing.T) strategy.Pool) {
	holder := newLuatoken(t, newPool(t), luatoken.WithNotify())
	waiters := newLuatoken(t, newPool(t), luatoken.WithNotify())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	key := redistest.Key(t)
	for round := range 3 {
		l, err := holder.TryAcquire(ctx, key, ttl)
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			at  time.Time
			err error
			l   strategy.Lock
		}
		got := make(chan result, 1)
		go func() {
			// A retry ten seconds away: only the notification can wake it
			// in time.
			wl, err := strategy.Acquire(ctx, waiters, key, ttl, strategy.FixedInterval(10*time.Second))
			got <- result{time.Now(), err, wl}
		}()
		// Let the waiter fail its first attempt and subscribe.
		time.Sleep(200 * time.Millisecond)
		released := time.Now()
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case r := <-got:
			if r.err != nil {
				t.Fatalf("round %d: waiter: %v", round, r.err)
			}
			if d := r.at.Sub(released); d > 2*time.Second {
				t.Errorf("round %d: waiter took the lock %v after the release", round, d)
			}
			if err := r.l.Release(ctx); err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: the waiter was not woken by the release", round)
		}
	}
}
