package delsetnxcheck_test

import (
	"context"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/delsetnxcheck"
)

// Lock, work, unlock. The key holds the time the lock expires, by the
// client's clock.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	locks, err := delsetnxcheck.New(pool)
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

// The flaw of the plain DEL release: A overruns its TTL, B takes the stale
// lock over, and A's late release deletes B's lock, so C gets in while B
// still works. The clients share a clock that the example moves by hand.
func Example_lateRelease() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	now := time.Now()
	clock := strategy.ClockFunc(func() time.Time { return now })
	a, _ := delsetnxcheck.New(pool, delsetnxcheck.WithClock(clock))
	b, _ := delsetnxcheck.New(pool, delsetnxcheck.WithClock(clock))
	c, _ := delsetnxcheck.New(pool, delsetnxcheck.WithClock(clock))

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
