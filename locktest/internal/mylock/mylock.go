// Package mylock is a lock written the way an author outside locklab
// might: a token lock on redigo that knows locklab only through the
// strategy interfaces. It is the worked example of docs/your-own-lock.md,
// whose Go snippets are quoted from this package and its tests.
//
// TryAcquire sends SET key <token> NX PX ttl with a random token of its
// own. Release frees the lock only while the key still holds that token:
// it WATCHes the key, reads it, and deletes it in MULTI/EXEC, which Redis
// aborts when the key changed after the WATCH. NewDraft builds the first
// draft of the same lock, whose release reads, compares and deletes in
// three separate steps.
package mylock

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

// Release frees the lock if the key still holds its token. WATCH makes
// the GET and the DEL one step: if the key changes in between, EXEC does
// nothing and answers nil.
func (l *Lock) Release(ctx context.Context) error {
	conn, err := l.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close() // and UNWATCH, when we leave early
	if _, err := redis.DoContext(conn, ctx, "WATCH", l.key); err != nil {
		return err
	}
	v, err := redis.String(redis.DoContext(conn, ctx, "GET", l.key))
	if errors.Is(err, redis.ErrNil) || err == nil && v != l.token {
		return fmt.Errorf("mylock: %s: %w", l.key, strategy.ErrNotHeld)
	}
	if err != nil {
		return err
	}
	if _, err := redis.DoContext(conn, ctx, "MULTI"); err != nil {
		return err
	}
	if _, err := redis.DoContext(conn, ctx, "DEL", l.key); err != nil {
		return err
	}
	deleted, err := redis.Ints(redis.DoContext(conn, ctx, "EXEC"))
	if errors.Is(err, redis.ErrNil) || err == nil && (len(deleted) != 1 || deleted[0] != 1) {
		return fmt.Errorf("mylock: %s changed hands: %w", l.key, strategy.ErrNotHeld)
	}
	return err
}
