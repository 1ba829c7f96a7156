package setnxexpire_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/setnxexpire"
)

// Lock, work, unlock: SETNX, then PEXPIRE, then DEL.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	locks, err := setnxexpire.New(pool)
	if err != nil {
		fmt.Println(err)
		return
	}
	lock, err := strategy.Acquire(ctx, locks, key, 10*time.Second, strategy.Backoff(10*time.Millisecond, time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("locked")
	// ... the work ...
	if err := lock.Release(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("released")
	// Output:
	// locked
	// released
}

// The flaw: a client that dies between SETNX and EXPIRE leaves a key
// without expiry, and the repair copied from document 002, which looks for
// a TTL of -2 ("no such key") where -1 ("no expiry") was meant, never fires
// (crash-mid-acquire).
func Example_crashMidAcquire() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()
	c := pool.Get()
	defer c.Close()

	// A sends SETNX and dies before its EXPIRE.
	if _, err := c.Do("SETNX", key, 1); err != nil {
		fmt.Println(err)
		return
	}
	ttl, _ := redis.Int(c.Do("TTL", key))
	fmt.Println("TTL of the key:", ttl)

	b, _ := setnxexpire.New(pool)
	for range 3 {
		_, err := b.TryAcquire(ctx, key, 50*time.Millisecond)
		fmt.Println("B not acquired:", errors.Is(err, strategy.ErrNotAcquired))
		time.Sleep(100 * time.Millisecond) // twice the TTL B asks for
	}
	ttl, _ = redis.Int(c.Do("TTL", key))
	fmt.Println("TTL of the key:", ttl)
	// Output:
	// TTL of the key: -1
	// B not acquired: true
	// B not acquired: true
	// B not acquired: true
	// TTL of the key: -1
}
