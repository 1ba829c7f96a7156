// Package goredislock is the lock most Go code on go-redis writes by hand,
// after the single-instance pattern of the Redis documentation: SET with NX
// and PX to lock, a Lua script that deletes the key only while it still
// holds the holder's token to unlock. It is written here, in go-redis's own
// idiom (Client.SetNX, redis.NewScript), as the baseline the libraries are
// compared with; it has no refresh.
//
// What it sends:
//
//   - TryAcquire: SET key <token> PX ttl NX (go-redis's SetNX writes EX
//     when the TTL is whole seconds), with a random token for each attempt;
//     a nil reply means the key is taken;
//   - Release: EVALSHA of the script (EVAL when Redis does not have it
//     yet); it returns 1 when it deleted the key, 0 when the key was gone
//     or someone else's.
package goredislock

import (
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/locklab/locklab/strategy"
	"github.com/redis/go-redis/v9"
)

// Locks hands out locks on the Redis that one go-redis client reaches.
type Locks struct {
	rdb redis.UniversalClient
}

// New returns the locks of the Redis that rdb (a *redis.Client, say)
// reaches.
func New(rdb redis.UniversalClient) (*Locks, error) {
	if rdb == nil {
		return nil, errors.New("goredislock: nil client")
	}
	return &Locks{rdb: rdb}, nil
}

//go:embed unlock.lua
var unlockSrc string

// unlock deletes the key only while it holds the holder's token.
var unlock = redis.NewScript(unlockSrc)

// TryAcquire makes one attempt to lock key for ttl.
func (s *Locks) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if err := strategy.Validate(key, ttl); err != nil {
		return nil, err
	}
	token := rand.Text()
	ok, err := s.rdb.SetNX(ctx, key, token, ttl).Result()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("goredislock: %q is taken: %w", key, strategy.ErrNotAcquired)
	}
	return &Lock{rdb: s.rdb, key: key, token: token}, nil
}

// Lock is a held lock.
type Lock struct {
	rdb   redis.UniversalClient
	key   string
	token string
}

// Key returns the locked key.
func (l *Lock) Key() string { return l.key }

// Release deletes the key if it still holds the lock's token; otherwise it
// returns strategy.ErrNotHeld.
func (l *Lock) Release(ctx context.Context) error {
	n, err := unlock.Run(ctx, l.rdb, []string{l.key}, l.token).Int()
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("goredislock: %q: %w", l.key, strategy.ErrNotHeld)
	}
	return nil
}
