package setnxdel_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/setnxdel"
)

// Lock, work, unlock. The TTL is checked but never set: the key stays until
// it is deleted.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	locks, err := setnxdel.New(pool)
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

// The flaw: a holder that crashes before its DEL keeps the lock forever,
// whatever TTL it asked for (crash-recovery).
func Example_crash() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()
	a, _ := setnxdel.New(pool)
	b, _ := setnxdel.New(pool)

	if _, err := a.TryAcquire(ctx, key, 50*time.Millisecond); err != nil {
		fmt.Println(err)
		return
	}
	// A crashes here: it never releases.
	time.Sleep(200 * time.Millisecond) // four times the TTL A asked for

	_, err := b.TryAcquire(ctx, key, 50*time.Millisecond)
	fmt.Println("B, four TTLs later, not acquired:", errors.Is(err, strategy.ErrNotAcquired))
	c := pool.Get()
	defer c.Close()
	pttl, _ := redis.Int(c.Do("PTTL", key))
	fmt.Println("PTTL of the key:", pttl)
	// Output:
	// B, four TTLs later, not acquired: true
	// PTTL of the key: -1
}
