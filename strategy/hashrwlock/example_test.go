package hashrwlock_test

import (
	"context"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/hashrwlock"
)

// Readers share the lock; a writer waits for the last of them.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	rw, err := hashrwlock.New(pool)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := strategy.Acquire(ctx, strategy.Reader(rw), key, 10*time.Second, strategy.NoRetry())
	fmt.Println("A reads:", err == nil)
	b, err := rw.TryAcquireShared(ctx, key, 10*time.Second)
	fmt.Println("B reads:", err == nil)
	_, err = rw.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("C writes:", err == nil)
	fmt.Println("A releases:", a.Release(ctx))
	fmt.Println("B releases:", b.Release(ctx))
	c, err := rw.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("C writes:", err == nil)
	fmt.Println("C releases:", c.Release(ctx))
	// Output:
	// A reads: true
	// B reads: true
	// C writes: false
	// A releases: <nil>
	// B releases: <nil>
	// C writes: true
	// C releases: <nil>
}

// A holder (a thread) reenters its holds, and may read while it writes.
func ExampleStrategy_Holder() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	rw, _ := hashrwlock.New(pool)
	h := rw.Holder()
	w, err := h.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("writes:", err == nil)
	r, err := h.TryAcquireShared(ctx, key, 10*time.Second)
	fmt.Println("reads while it writes:", err == nil)
	fmt.Println(w.Release(ctx), r.Release(ctx))
	// Output:
	// writes: true
	// reads while it writes: true
	// <nil> <nil>
}
