// Package redislock runs github.com/bsm/redislock (v0.9.4, on go-redis v9)
// behind locklab's strategy interfaces, so that the conformance suite can
// check it. It adds nothing to the library: each call is one call of
// redislock's, and only its errors are translated.
//
// What redislock sends, read from its source:
//
//   - Obtain runs one Lua script (EVALSHA, or EVAL when Redis does not have
//     it yet): SET key <token> NX PX ttl, and when that fails, if the key
//     starts with the caller's own token, SET key <token> PX ttl again
//     (a retry of an obtain that already succeeded). The token is 16 random
//     bytes, base64url, drawn for each Obtain unless Options.Token gives one.
//   - Release runs a script that deletes the key only while it holds the
//     token; Refresh one that sets its expiry (PEXPIRE) only while it holds
//     the token; TTL one that reads PTTL only while it holds the token.
//   - Obtain retries as Options.RetryStrategy says; the default, which
//     TryAcquire uses, is not to retry: one attempt per call.
//
// Errors: Obtain's redislock.ErrNotObtained becomes strategy.ErrNotAcquired;
// Release's redislock.ErrLockNotHeld and Refresh's redislock.ErrNotObtained
// become strategy.ErrNotHeld. The original error stays in the chain.
package redislock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bsm/redislock"
	"github.com/locklab/locklab/strategy"
)

// Locks obtains redislock locks through one redislock.Client.
type Locks struct {
	client *redislock.Client
}

// New returns the locks of the Redis that client reaches (a
// *redis.Client of go-redis v9, for instance).
func New(client redislock.RedisClient) (*Locks, error) {
	if client == nil {
		return nil, errors.New("redislock: nil client")
	}
	return &Locks{client: redislock.New(client)}, nil
}

// TryAcquire calls Obtain once, without retries.
func (s *Locks) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if err := strategy.Validate(key, ttl); err != nil {
		return nil, err
	}
	l, err := s.client.Obtain(ctx, key, ttl, nil)
	if errors.Is(err, redislock.ErrNotObtained) {
		return nil, fmt.Errorf("%w: %w", strategy.ErrNotAcquired, err)
	}
	if err != nil {
		return nil, err
	}
	return &Lock{lock: l}, nil
}

// Lock is an obtained redislock lock; it can be refreshed.
type Lock struct {
	lock *redislock.Lock
}

var _ strategy.Refresher = (*Lock)(nil)

// Key returns the locked key.
func (l *Lock) Key() string { return l.lock.Key() }

// Release calls the lock's Release.
func (l *Lock) Release(ctx context.Context) error {
	err := l.lock.Release(ctx)
	if errors.Is(err, redislock.ErrLockNotHeld) {
		return fmt.Errorf("%w: %w", strategy.ErrNotHeld, err)
	}
	return err
}

// Refresh calls the lock's Refresh with ttl.
func (l *Lock) Refresh(ctx context.Context, ttl time.Duration) error {
	if err := strategy.Validate(l.lock.Key(), ttl); err != nil {
		return err
	}
	err := l.lock.Refresh(ctx, ttl, nil)
	if errors.Is(err, redislock.ErrNotObtained) {
		return fmt.Errorf("%w: %w", strategy.ErrNotHeld, err)
	}
	return err
}

// Redislock returns the library's own lock, for calls the adapter does not
// make (TTL, Token, Metadata).
func (l *Lock) Redislock() *redislock.Lock { return l.lock }
