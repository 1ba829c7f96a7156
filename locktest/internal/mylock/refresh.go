package mylock

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

// NewRefreshing returns locks that can also be extended while held: its
// TryAcquire returns a *RefreshLock, which implements strategy.Refresher.
func NewRefreshing(pool strategy.Pool) (strategy.Strategy, error) {
	s, err := New(pool)
	if err != nil {
		return nil, err
	}
	return refreshing{s}, nil
}

// refreshing hands out RefreshLocks.
type refreshing struct{ *Locks }

func (r refreshing) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	l, err := r.Locks.TryAcquire(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	return &RefreshLock{l.(*Lock)}, nil
}

// RefreshLock is a Lock that can be extended while it is held.
type RefreshLock struct{ *Lock }

//go:embed refresh.lua
var refreshSrc string

// refreshScript runs refresh.lua, by EVALSHA once Redis has seen it.
var refreshScript = redis.NewScript(1, refreshSrc)

// Refresh makes the lock live ttl from now if the key still holds its
// token, and returns strategy.ErrNotHeld otherwise: a late Refresh neither
// extends the next holder's lock nor takes it back.
func (l *RefreshLock) Refresh(ctx context.Context, ttl time.Duration) error {
	if ttl < time.Millisecond {
		return errors.New("mylock: Refresh: the TTL must be at least 1ms")
	}
	conn, err := l.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	extended, err := redis.Int(refreshScript.DoContext(ctx, conn, l.key, l.token, ttl.Milliseconds()))
	if err != nil {
		return err
	}
	if extended == 0 {
		return fmt.Errorf("mylock: %s: %w", l.key, strategy.ErrNotHeld)
	}
	return nil
}
