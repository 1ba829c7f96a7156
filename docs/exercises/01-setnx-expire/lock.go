// Package lock is exercise 1 of docs/exercises: a lock whose acquire takes
// two commands. Edit this file until
//
//	LOCKLAB_EXERCISE=1 go test ./docs/exercises/01-setnx-expire
//
// passes; docs/exercises/README.md says what to look for.
package lock

import (
	"context"
	"crypto/rand"
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
		return nil, errors.New("lock: nil pool")
	}
	return &Locks{pool: pool}, nil
}

// TryAcquire makes one attempt to lock key for ttl, with a token nobody
// else has: SETNX creates the key if nobody holds it, and PEXPIRE gives it
// a TTL so that the lock of a holder that crashes goes away by itself.
func (s *Locks) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	conn, err := s.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	token := rand.Text()
	created, err := redis.Bool(redis.DoContext(conn, ctx, "SETNX", key, token))
	if err != nil {
		return nil, err
	}
	if !created {
		return nil, fmt.Errorf("lock: %s is taken: %w", key, strategy.ErrNotAcquired)
	}
	if _, err := redis.DoContext(conn, ctx, "PEXPIRE", key, ttl.Milliseconds()); err != nil {
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

// releaseScript deletes the key only while it holds the token. Redis runs
// a script whole, with no other client's command in between.
var releaseScript = redis.NewScript(1, `
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// Release frees the lock if the key still holds its token.
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
		return fmt.Errorf("lock: %s: %w", l.key, strategy.ErrNotHeld)
	}
	return nil
}
