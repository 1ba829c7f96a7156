package mylock_test

import (
	"context"
	"testing"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/locktest/internal/mylock"
	"github.com/locklab/locklab/strategy"
)

// TestRedigoPool is TestConformance on a lock whose constructor takes a
// redigo *redis.Pool, as docs/your-own-lock.md shows it: Client.Pool is a
// strategy.Pool, so the factory gives the lock a pool of its own on
// Client.Addr, and every command still crosses the client's proxy.
func TestRedigoPool(t *testing.T) {
	locktest.Run(t, newOnRedigoPool, locktest.Expect{
		Breaks: []locktest.Property{locktest.HolderOverrun, locktest.FencedOverrun, locktest.RenewedOverrun},
	})
}

func newOnRedigoPool(c locktest.Client) (strategy.Strategy, error) {
	pool := &redis.Pool{
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", c.Addr, redis.DialPassword(c.Password)) // the client's own proxy
		},
	}
	c.Cleanup(func() { pool.Close() })
	return newLocks(pool)
}

// newLocks stands for the constructor of a lock written for redigo, which
// takes a *redis.Pool.
func newLocks(pool *redis.Pool) (strategy.Strategy, error) { return mylock.New(pool) }
