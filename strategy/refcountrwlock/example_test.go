package refcountrwlock_test

import (
	"context"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/refcountrwlock"
)

// Readers share the lock; a writer waits for the last of them.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	rw, err := refcountrwlock.New(pool)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := rw.TryAcquireShared(ctx, key, 10*time.Second)
	b, err := strategy.Acquire(ctx, strategy.Reader(rw), key, 10*time.Second, strategy.NoRetry())
	fmt.Println("B reads beside A:", err == nil)
	_, err = rw.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("C writes:", err == nil)
	fmt.Println(a.Release(ctx), b.Release(ctx))
	c, err := rw.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("C writes:", err == nil)
	fmt.Println(c.Release(ctx))
	// Output:
	// B reads beside A: true
	// C writes: false
	// <nil> <nil>
	// C writes: true
	// <nil>
}
