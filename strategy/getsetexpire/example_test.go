package getsetexpire_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/getsetexpire"
)

// Lock, work, unlock. The key holds the time the lock expires, by the
// client's clock, and Redis expires it after the TTL too.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	locks, err := getsetexpire.New(pool)
	if err != nil {
		fmt.Println(err)
		return
	}
	lock, err := strategy.Acquire(ctx, locks, key, 10*time.Second, strategy.Backoff(10*time.Millisecond, time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := pool.Get()
	ttl, _ := redis.Int64(c.Do("TTL", key))
	c.Close()
	fmt.Println("locked; Redis expires it in", ttl, "s")
	// ... the work ...
	if err := lock.Release(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("released")
	// Output:
	// locked; Redis expires it in 10 s
	// released
}

// The flaw of the release: its check, `if ($redis->ttl($lockKey))`, asks
// whether the key has some time left, not whose it is. A holder whose
// lease ran out finds the next holder's key, with its time left, and
// deletes it. The clients share a clock that the example moves by hand.
func Example_lateRelease() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	now := time.Now()
	clock := getsetexpire.WithClock(strategy.ClockFunc(func() time.Time { return now }))
	a, _ := getsetexpire.New(pool, clock)
	b, _ := getsetexpire.New(pool, clock)

	la, err := a.TryAcquire(ctx, key, time.Minute)
	if err != nil {
		fmt.Println(err)
		return
	}
	now = now.Add(2 * time.Minute) // A is still working, past its TTL by the clocks
	if _, err := b.TryAcquire(ctx, key, time.Minute); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("B took the stale lock over")
	fmt.Println("A's late release deleted B's lock:", la.Release(ctx) == nil)
	// Output:
	// B took the stale lock over
	// A's late release deleted B's lock: true
}
