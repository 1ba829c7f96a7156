package tokengetdel_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/tokengetdel"
)

// Lock, work, unlock: SET <token> NX PX, then GET, compare, DEL.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	locks, err := tokengetdel.New(pool)
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

// A release that starts after the lock passed on finds the other token and
// stops. The flaw is inside the release: were the lock to pass on between
// its GET and its DEL, the DEL would delete the next holder's lock.
func Example_lateRelease() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()
	a, _ := tokengetdel.New(pool)
	b, _ := tokengetdel.New(pool)

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
