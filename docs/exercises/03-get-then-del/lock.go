// Package lock is exercise 3 of docs/exercises: a lock whose release checks
// its token with GET, then DELs. Edit this file until
//
//	LOCKLAB_EXERCISE=1 go test ./docs/exercises/03-get-then-del
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
// else has, in one command: SET creates the key only if nobody holds it
// (NX) and gives it its TTL (PX, in milliseconds).
func (s *Locks) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	conn, err := s.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	token := rand.Text()
	_, err = redis.String(redis.DoContext(conn, ctx, "SET", key, token, "NX", "PX", ttl.Milliseconds()))
	if errors.Is(err, redis.ErrNil) {
		return nil, fmt.Errorf("lock: %s is taken: %w", key, strategy.ErrNotAcquired)
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

// Release frees the lock if the key still holds its token: GET reads the
// key, and DEL deletes it only when the value is this lock's token.
func (l *Lock) Release(ctx context.Context) error {
	conn, err := l.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	v, err := redis.String(redis.DoContext(conn, ctx, "GET", l.key))
	if errors.Is(err, redis.ErrNil) || err == nil && v != l.token {
		return fmt.Errorf("lock: %s: %w", l.key, strategy.ErrNotHeld)
	}
	if err != nil {
		return err
	}
	deleted, err := redis.Int(redis.DoContext(conn, ctx, "DEL", l.key))
	if err != nil {
		return err
	}
	if deleted == 0 {
		return fmt.Errorf("lock: %s: %w", l.key, strategy.ErrNotHeld)
	}
	return nil
}
