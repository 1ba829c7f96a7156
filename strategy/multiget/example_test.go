package multiget_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/multiget"
)

// Lock, work, "unlock": the release sends WATCH, MULTI, GET, EXEC, UNWATCH,
// reports no error, and deletes nothing. The lock goes only when its TTL
// runs out.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	locks, err := multiget.New(pool)
	if err != nil {
		fmt.Println(err)
		return
	}
	lock, err := strategy.Acquire(ctx, locks, key, 100*time.Millisecond, strategy.Backoff(10*time.Millisecond, time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("locked")
	// ... the work ...
	fmt.Println("released:", lock.Release(ctx))

	other, _ := multiget.New(pool)
	_, err = other.TryAcquire(ctx, key, 100*time.Millisecond)
	fmt.Println("another client, right after: not acquired:", errors.Is(err, strategy.ErrNotAcquired))
	time.Sleep(150 * time.Millisecond) // past the TTL
	_, err = other.TryAcquire(ctx, key, 100*time.Millisecond)
	fmt.Println("once the TTL has passed: acquired:", err == nil)
	// Output:
	// locked
	// released: <nil>
	// another client, right after: not acquired: true
	// once the TTL has passed: acquired: true
}
