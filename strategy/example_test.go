package strategy_test

import (
	"context"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/setnxpx"
)

// Acquire waits for a lock someone else holds: A holds it for 50ms, and
// B's Acquire tries again with exponential backoff, 5ms at first, then
// twice as long each time up to 100ms, until A releases it. LimitTries
// bounds the wait; a context with a deadline would too. Any strategy
// waits this way; setnxpx is the simplest.
func ExampleAcquire() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	locks, err := setnxpx.New(pool)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := locks.TryAcquire(ctx, key, 10*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("A holds the lock")
	released := make(chan error, 1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		released <- a.Release(ctx)
	}()

	retry := strategy.LimitTries(strategy.Backoff(5*time.Millisecond, 100*time.Millisecond), 100)
	b, err := strategy.Acquire(ctx, locks, key, 10*time.Second, retry)
	if err != nil {
		fmt.Println(err) // matches strategy.ErrNotAcquired when the tries run out
		return
	}
	fmt.Println("A released:", <-released)
	fmt.Println("B acquired it")
	if err := b.Release(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// A holds the lock
	// A released: <nil>
	// B acquired it
}
