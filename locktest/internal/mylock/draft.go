package mylock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

// NewDraft returns the lock as it was first written: the same TryAcquire,
// with the release of draftLock.
func NewDraft(pool strategy.Pool) (strategy.Strategy, error) {
	s, err := New(pool)
	if err != nil {
		return nil, err
	}
	return draft{s}, nil
}

// draft hands out draftLocks.
type draft struct{ *Locks }

func (d draft) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	l, err := d.Locks.TryAcquire(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	return draftLock{l.(*Lock)}, nil
}

// draftLock is Lock with the first draft's Release.
type draftLock struct{ *Lock }

// Release frees the lock if the key still holds its token.
func (l draftLock) Release(ctx context.Context) error {
	conn, err := l.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	v, err := redis.String(redis.DoContext(conn, ctx, "GET", l.key))
	if errors.Is(err, redis.ErrNil) || err == nil && v != l.token {
		return fmt.Errorf("mylock: %s: %w", l.key, strategy.ErrNotHeld)
	}
	if err != nil {
		return err
	}
	_, err = redis.DoContext(conn, ctx, "DEL", l.key)
	return err
}
