// Package lock is exercise 4 of docs/exercises: a lock whose every holder
// writes the same password. Edit this file until
//
//	LOCKLAB_EXERCISE=1 go test ./docs/exercises/04-fixed-password
//
// passes; docs/exercises/README.md says what to look for.
package lock

import (
	"context"
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

// password is the value every lock writes, and the one the release
// checks for before it deletes the key.
const password = "abc123"

// TryAcquire makes one attempt to lock key for ttl, in one command: SET
// creates the key only if nobody holds it (NX) and gives it its TTL (PX,
// in milliseconds). The value is the lock's password, which the release
// checks before it deletes the key.
func (s *Locks) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	conn, err := s.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	token := password
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

// releaseScript deletes the key only while it holds the password. Redis runs
// a script whole, with no other client's command in between.
var releaseScript = redis.NewScript(1, `
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// Release frees the lock if the key still holds its password.
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
