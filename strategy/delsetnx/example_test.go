package delsetnx_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/delsetnx"
	"github.com/rs/xid"
)

// Lock, work, unlock. The key holds the time the lock expires, by the
// client's clock.
func Example() {
	pool, key, done := redisForExamples()
	defer done()
	ctx := context.Background()

	locks, err := delsetnx.New(pool)
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

// The flaw of every release that reads a time instead of an owner: A
// overruns its TTL, B takes the stale lock over with DEL and SETNX, and A's
// late release reads B's time, still in the future, and deletes B's lock
// (safe-release). The clients share a clock that the example moves by hand.
func Example_lateRelease() {
	pool, key, done := redisForExamples()
	defer done()
	ctx := context.Background()

	now := time.Now()
	clock := strategy.ClockFunc(func() time.Time { return now })
	a, _ := delsetnx.New(pool, delsetnx.WithClock(clock))
	b, _ := delsetnx.New(pool, delsetnx.WithClock(clock))
	c, _ := delsetnx.New(pool, delsetnx.WithClock(clock))

	la, err := a.TryAcquire(ctx, key, time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	now = now.Add(2 * time.Second) // A is still working, past its TTL
	_, err = b.TryAcquire(ctx, key, time.Second)
	fmt.Println("B takes over the stale lock:", err == nil)
	fmt.Println("A's late release:", la.Release(ctx))
	_, err = c.TryAcquire(ctx, key, time.Second)
	fmt.Println("C locks while B holds the lock:", err == nil)
	// Output:
	// B takes over the stale lock: true
	// A's late release: <nil>
	// C locks while B holds the lock: true
}

// redisForExamples returns a pool to a real Redis (REDIS_ADDR, else Docker,
// else a redis-server process; see package redistest), a fresh key, and a
// function that deletes the key and lets the server go.
func redisForExamples() (*redis.Pool, string, func()) {
	srv, err := redistest.Start(context.Background())
	if err != nil {
		panic(err)
	}
	pool := srv.NewPool()
	key := "example:" + xid.New().String()
	return pool, key, func() {
		c := pool.Get()
		c.Do("DEL", key)
		c.Close()
		pool.Close()
		srv.Close()
	}
}
