package watchdel_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/watchdel"
)

// Lock, work, unlock: SETNX <uuid>, PEXPIRE; then WATCH, GET, compare, MULTI, DEL, EXEC.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	locks, err := watchdel.New(pool)
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

// A release that comes after the lock passed on finds the other uuid and
// deletes nothing.
func Example_lateRelease() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()
	a, _ := watchdel.New(pool)
	b, _ := watchdel.New(pool)

	la, err := a.TryAcquire(ctx, key, 50*time.Millisecond)
	if err != nil {
		fmt.Println(err)
		return
	}
	time.Sleep(100 * time.Millisecond) // A works past its TTL
	_, err = b.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("B locks:", err == nil)
	err = la.Release(ctx)
	fmt.Println("A's late release: not held:", errors.Is(err, strategy.ErrNotHeld))
	// Output:
	// B locks: true
	// A's late release: not held: true
}

// The flaw: the acquire is two commands. A client that dies between its
// SETNX and its EXPIRE leaves a key without expiry, and the repair copied
// from document 002, which looks for a TTL of -2 ("no such key") where -1
// ("no expiry") was meant, never fires (crash-mid-acquire).
func Example_crashMidAcquire() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()
	c := pool.Get()
	defer c.Close()

	// A sends SETNX with its uuid and dies before its EXPIRE.
	if _, err := c.Do("SETNX", key, "uuid-of-A"); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := watchdel.New(pool)
	for range 2 {
		_, err := b.TryAcquire(ctx, key, 50*time.Millisecond)
		fmt.Println("B not acquired:", errors.Is(err, strategy.ErrNotAcquired))
		time.Sleep(100 * time.Millisecond) // twice the TTL B asks for
	}
	ttl, _ := redis.Int(c.Do("TTL", key))
	fmt.Println("TTL of the key:", ttl)
	// Output:
	// B not acquired: true
	// B not acquired: true
	// TTL of the key: -1
}
