package getset_test

import (
	"context"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/getset"
)

// Lock, work, unlock. The key holds the time the lock expires, by the
// client's clock.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	locks, err := getset.New(pool)
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

// The flaw: every client decides from its own clock whether a lock is
// stale, so a client whose clock runs ahead takes over a lock that is still
// held (clock-skew).
func Example_clockSkew() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	a, _ := getset.New(pool)
	ahead := strategy.ClockFunc(func() time.Time { return time.Now().Add(time.Minute) })
	b, _ := getset.New(pool, getset.WithClock(ahead))

	if _, err := a.TryAcquire(ctx, key, 10*time.Second); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("A locked for 10s")
	_, err := b.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("B, its clock a minute ahead, locked too:", err == nil)
	// Output:
	// A locked for 10s
	// B, its clock a minute ahead, locked too: true
}
