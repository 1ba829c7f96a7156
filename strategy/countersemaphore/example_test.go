package countersemaphore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/countersemaphore"
)

// Two permits: two holders get in, a third waits; a crashed holder's
// permit never comes back.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	sem, err := countersemaphore.New(pool, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := sem.TryAcquire(ctx, key, time.Second)
	_, err = sem.TryAcquire(ctx, key, time.Second) // this holder crashes: no release
	fmt.Println("B holds:", err == nil)
	_, err = strategy.Acquire(ctx, sem, key, time.Second, strategy.NoRetry())
	fmt.Println("C holds:", err == nil)
	fmt.Println("A releases:", a.Release(ctx))
	c, err := sem.TryAcquire(ctx, key, time.Second)
	fmt.Println("C holds:", err == nil)
	fmt.Println("C releases:", c.Release(ctx))
	// Output:
	// B holds: true
	// C holds: false
	// A releases: <nil>
	// C holds: true
	// C releases: <nil>
}
