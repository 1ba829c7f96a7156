// Package mylock is a lock written the way an author outside locklab
// might: a token lock on redigo that knows locklab only through the
// strategy interfaces. It is the worked example of docs/your-own-lock.md,
// whose Go snippets are quoted from this package and its tests.
//
// TryAcquire sends SET key <token> NX PX ttl with a random token of its
// own. Release frees the lock only while the key still holds that token,
// with a Lua script that compares and deletes in one command. NewDraft
// builds the first draft of the same lock, whose release reads, compares
// and deletes in three separate steps; NewRefreshing builds locks that can
// also be extended while held.
package mylock

import (
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

// Locks hands out locks on one Redis.
type Locks struct {
	pool strategy.Pool
}

// New returns the locks of the Redis that pool reaches.
func New(pool strategy.Pool) (*Locks, error) {
	if pool == nil {
		return nil, errors.New("mylock: nil pool")
	}
	return &Locks{pool: pool}, nil
}

// TryAcquire makes one attempt to lock key for ttl, with a token nobody
// else has.
func (s *Locks) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	conn, err := s.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	token := rand.Text()
	_, err = redis.String(redis.DoContext(conn, ctx, "SET", key, token, "NX", "PX", ttl.Milliseconds()))
	if errors.Is(err, redis.ErrNil) {
		return nil, fmt.Errorf("mylock: %s is taken: %w", key, strategy.ErrNotAcquired)
	}
	if err != nil {
		return nil, err
	}
	return &Lock{pool: s.pool, key: key, token: token}, nil
}

// Lock is a held lock.
type Lock struct {
	pool  strategy.Pool
	key   string
	token string
}

// Key returns the locked key.
func (l *Lock) Key() string { return l.key }

//go:embed release.lua
var releaseSrc string

// releaseScript runs release.lua, by EVALSHA once Redis has seen it.
var releaseScript = redis.NewScript(1, releaseSrc)

// Release frees the lock if the key still holds its token. Redis runs a
// script whole, with no other client's command in between: nobody can
// take the lock between the comparison and the DEL.
func (l *Lock) Release(ctx context.Context) error {
	conn, err := l.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	deleted, err := redis.Int(releaseScript.DoContext(ctx, conn, l.key, l.token))
	if err != nil {
		return err
	}
	if deleted == 0 {
		return fmt.Errorf("mylock: %s: %w", l.key, strategy.ErrNotHeld)
	}
	return nil
}
