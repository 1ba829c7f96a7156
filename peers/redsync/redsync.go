// Package redsync runs github.com/go-redsync/redsync/v4 (v4.18.1) on a
// single Redis, through its go-redis v9 driver as its README shows, behind
// locklab's strategy interfaces, so that the conformance suite can check
// it. It adds nothing to the library: each call is one call of redsync's,
// and only its errors are translated.
//
// What redsync sends, read from its source, with one pool (a quorum of 1):
//
//   - a lock attempt (Mutex.TryLockContext: one try) sends SET key <value>
//     PX ttl NX (EX when the TTL is whole seconds), the value 16 random
//     bytes in base64, drawn for each attempt. The attempt has a deadline
//     of a twentieth of the TTL (WithTimeoutFactor, 0.05 by default). It
//     succeeds when SET did and less than the TTL minus 1% of it
//     (WithDriftFactor) has passed since it began; otherwise it runs the
//     release script for its own value, and fails;
//   - Unlock runs a script (EVALSHA, or EVAL when Redis does not have it
//     yet) that deletes the key only while it holds the value, and says
//     whether the key was gone (-1) or someone else's (0);
//   - Extend runs a script that sets the key's expiry (PEXPIRE) to the
//     mutex's expiry only while it holds the value, and fails when that
//     took longer than the expiry less the drift.
//
// A Mutex extends to the expiry it was made with. Refresh(ctx, ttl) makes
// a Mutex for the same key and value with ttl as its expiry (WithValue,
// which redsync offers to hand a lock over) and extends that.
//
// Errors: a lock attempt that fails with redsync.ErrFailed or
// *redsync.ErrTaken becomes strategy.ErrNotAcquired, the original error
// in the chain. One that fails on its node (a network error, or the
// attempt's own deadline) is an error of its own, with the node's error
// as text only: the attempt's deadline is not the caller's, whose context
// strategy.Acquire looks for in the chain. An
// Unlock that finds the key gone (redsync.ErrLockAlreadyExpired) or
// someone else's (*redsync.ErrTaken), and an Extend that fails the same
// way or with redsync.ErrExtendFailed, become strategy.ErrNotHeld; other
// errors of Unlock and Extend are returned as they are.
package redsync

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/locklab/locklab/strategy"
	goredislib "github.com/redis/go-redis/v9"
)

// Locks makes redsync mutexes on one Redis.
type Locks struct {
	rs   *redsync.Redsync
	opts []redsync.Option
}

// New returns the locks of the Redis that client reaches: redsync with
// one pool, client's. Every mutex is made with opts, after the expiry
// and the tries that TryAcquire sets.
func New(client goredislib.UniversalClient, opts ...redsync.Option) (*Locks, error) {
	if client == nil {
		return nil, errors.New("redsync: nil client")
	}
	return &Locks{rs: redsync.New(goredis.NewPool(client)), opts: opts}, nil
}

// TryAcquire makes a mutex for key with ttl as its expiry and calls its
// TryLockContext: one try.
func (s *Locks) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if err := strategy.Validate(key, ttl); err != nil {
		return nil, err
	}
	m := s.rs.NewMutex(key, append([]redsync.Option{redsync.WithExpiry(ttl), redsync.WithTries(1)}, s.opts...)...)
	err := m.TryLockContext(ctx)
	switch {
	case err == nil:
	case errors.Is(err, redsync.ErrFailed) || isTaken(err):
		return nil, fmt.Errorf("%w: %w", strategy.ErrNotAcquired, err)
	case ctx.Err() != nil:
		return nil, err
	default:
		// The attempt failed on its node (a network error, or the
		// attempt's own deadline). That is not someone else holding the
		// lock; and the cause is kept as text only, since the attempt's
		// deadline is not the caller's, whose context strategy.Acquire
		// looks for in the chain.
		return nil, fmt.Errorf("redsync: the attempt failed: %v", err)
	}
	return &Lock{rs: s.rs, mutex: m, opts: s.opts}, nil
}

// isTaken reports whether err says the key held another value.
func isTaken(err error) bool {
	var taken *redsync.ErrTaken
	return errors.As(err, &taken)
}

// Lock is a locked redsync mutex; it can be refreshed.
type Lock struct {
	rs    *redsync.Redsync
	mutex *redsync.Mutex
	opts  []redsync.Option
}

var _ strategy.Refresher = (*Lock)(nil)

// Key returns the locked key.
func (l *Lock) Key() string { return l.mutex.Name() }

// Release calls the mutex's UnlockContext.
func (l *Lock) Release(ctx context.Context) error {
	ok, err := l.mutex.UnlockContext(ctx)
	switch {
	case ok:
		return nil
	case errors.Is(err, redsync.ErrLockAlreadyExpired) || isTaken(err):
		return fmt.Errorf("%w: %w", strategy.ErrNotHeld, err)
	case err == nil: // redsync always says why; just in case
		return fmt.Errorf("%w: redsync: unlock failed", strategy.ErrNotHeld)
	}
	return err
}

// Refresh extends the lock to ttl from now: it calls ExtendContext on a
// mutex for the same key and value, with ttl as its expiry.
func (l *Lock) Refresh(ctx context.Context, ttl time.Duration) error {
	if err := strategy.Validate(l.Key(), ttl); err != nil {
		return err
	}
	m := l.rs.NewMutex(l.Key(), append([]redsync.Option{redsync.WithExpiry(ttl), redsync.WithValue(l.mutex.Value())}, l.opts...)...)
	ok, err := m.ExtendContext(ctx)
	switch {
	case ok:
		return nil
	case errors.Is(err, redsync.ErrExtendFailed) || isTaken(err) || errors.Is(err, redsync.ErrLockAlreadyExpired):
		return fmt.Errorf("%w: %w", strategy.ErrNotHeld, err)
	case err == nil:
		return fmt.Errorf("%w: redsync: extend failed", strategy.ErrNotHeld)
	}
	return err
}

// Mutex returns the library's own mutex, for calls the adapter does not
// make (Until, Value).
func (l *Lock) Mutex() *redsync.Mutex { return l.mutex }
