package zsetsemaphore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/zsetsemaphore"
)

// Two permits: two holders, and a third waits; a holder refreshes its
// permit while it works.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	sem, err := zsetsemaphore.New(pool, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := sem.TryAcquire(ctx, key, 10*time.Second)
	b, _ := sem.TryAcquire(ctx, key, 10*time.Second)
	_, err = sem.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("a third holder:", err == nil)
	fmt.Println("A refreshes:", a.(strategy.Refresher).Refresh(ctx, 10*time.Second))
	fmt.Println("A releases:", a.Release(ctx))
	fmt.Println("B releases:", b.Release(ctx))
	// Output:
	// a third holder: false
	// A refreshes: <nil>
	// A releases: <nil>
	// B releases: <nil>
}

// The break: a client whose clock runs ahead by more than the TTL drops
// the holder's member as expired and takes the only permit.
func Example_clockAhead() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	onTime, _ := zsetsemaphore.New(pool, 1)
	ahead, _ := zsetsemaphore.New(pool, 1, zsetsemaphore.WithClock(strategy.ClockFunc(func() time.Time {
		return time.Now().Add(time.Minute)
	})))
	_, err := onTime.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("A holds:", err == nil)
	_, err = ahead.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("B holds the one permit too:", err == nil)
	// Output:
	// A holds: true
	// B holds the one permit too: true
}
