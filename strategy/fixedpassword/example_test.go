package fixedpassword_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/fixedpassword"
)

// Lock, work, unlock: SET abc123 NX PX, then the script that deletes the key while it holds abc123.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	locks, err := fixedpassword.New(pool)
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

// The flaw: every lock holds the same password, so a holder whose TTL ran
// out deletes the next holder's lock, and is told it released its own
// (safe-release).
func Example_lateRelease() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()
	a, _ := fixedpassword.New(pool)
	b, _ := fixedpassword.New(pool)
	c, _ := fixedpassword.New(pool)

	la, err := a.TryAcquire(ctx, key, 50*time.Millisecond)
	if err != nil {
		fmt.Println(err)
		return
	}
	time.Sleep(100 * time.Millisecond) // A works past its TTL
	_, err = b.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("B locks:", err == nil)
	fmt.Println("A releases late:", la.Release(ctx))
	_, err = c.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("C locks while B holds the lock:", err == nil, errors.Is(err, strategy.ErrNotAcquired))
	// Output:
	// B locks: true
	// A releases late: <nil>
	// C locks while B holds the lock: true false
}
