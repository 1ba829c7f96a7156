// Package luatoken is the lock to use: SET key <unique token> NX PX ttl to
// lock, and a Lua script that deletes the key only while it still holds the
// token to unlock.
//
// Sources: document 004 (方式六, the one it recommends) and document 002 (a
// uuid as the lock value). Document 002 compares the token inside
// WATCH/MULTI, but reads it with GET inside MULTI, where the reply is only
// "QUEUED": its check can never pass as written. A Lua script runs atomically
// on the server and needs no WATCH.
//
// Algorithm:
//  1. SET key <token> NX PX ttl, with a fresh github.com/rs/xid token.
//  2. Work.
//  3. EVALSHA release.lua key token (EVAL when the script is not cached):
//     DEL only if GET key still equals the token.
//
// How it breaks: only where every TTL lock does. A holder whose work outlasts
// the TTL (a GC pause, a slow disk) loses the lock while it still works, and
// the next holder works at the same time (holder-overrun).
package luatoken

import (
	"context"
	_ "embed"
	"errors"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
	"github.com/rs/xid"
)

//go:embed release.lua
var releaseSrc string

var releaseScript = redis.NewScript(1, releaseSrc)

// Strategy is the token lock with a Lua release.
type Strategy struct{ b recipe.Base }

// New returns the strategy on pool p.
func New(p strategy.Pool) (*Strategy, error) {
	b, err := recipe.NewBase("luatoken", p)
	if err != nil {
		return nil, err
	}
	return &Strategy{b: b}, nil
}

// TryAcquire sends SET key <token> NX PX ttl once. ttl counts whole
// milliseconds; what is below a millisecond is dropped.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	sess, err := s.b.Begin(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	token := xid.New().String()
	_, err = redis.String(sess.Do("SET", token, "NX", "PX", ttl.Milliseconds()))
	if errors.Is(err, redis.ErrNil) {
		return nil, sess.NotAcquired()
	}
	if err != nil {
		return nil, err
	}
	return &Lock{s: s, key: key, token: token}, nil
}

// Lock is a held token lock.
type Lock struct {
	s     *Strategy
	key   string
	token string
}

// Key returns the locked key.
func (l *Lock) Key() string { return l.key }

// Token returns the unique value this lock wrote at its key.
func (l *Lock) Token() string { return l.token }

// Release deletes the key if it still holds this lock's token. It returns
// ErrNotHeld when the lock had expired or was released already.
func (l *Lock) Release(ctx context.Context) error {
	sess, err := l.s.b.Open(ctx, l.key)
	if err != nil {
		return err
	}
	defer sess.Close()
	n, err := redis.Int(releaseScript.DoContext(ctx, sess.Conn(), l.key, l.token))
	if err != nil {
		return sess.Fail("release", err)
	}
	if n == 0 {
		return sess.Fail("release", strategy.ErrNotHeld)
	}
	return nil
}
