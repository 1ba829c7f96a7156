package setnxpx_test

import (
	"context"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/setnxpx"
)

// Lock, work, unlock: one SET NX PX, then DEL.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	locks, err := setnxpx.New(pool)
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

// The flaw: DEL deletes the key whoever wrote it, so a second release
// frees the lock someone else took in between (double-release).
func Example_doubleRelease() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()
	a, _ := setnxpx.New(pool)
	b, _ := setnxpx.New(pool)
	c, _ := setnxpx.New(pool)

	la, err := a.TryAcquire(ctx, key, 10*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("A releases:", la.Release(ctx))
	_, err = b.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("B locks:", err == nil)
	fmt.Println("A releases again:", la.Release(ctx))
	_, err = c.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("C locks while B holds the lock:", err == nil)
	// Output:
	// A releases: <nil>
	// B locks: true
	// A releases again: <nil>
	// C locks while B holds the lock: true
}
