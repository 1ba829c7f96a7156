package getsetcompare_test

import (
	"context"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/getsetcompare"
)

// Lock, work, unlock. The key holds the time the lock expires, by the
// client's clock.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	locks, err := getsetcompare.New(pool)
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

// The flaw of document 004's plain DEL release: A overruns its TTL, B
// takes the stale lock over, and A's late release deletes B's lock. With
// Document003, A counts its own time first and leaves B's lock alone. The
// clients share a clock that the example moves by hand.
func Example_lateRelease() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()

	for _, doc := range []string{"004", "003"} {
		now := time.Now()
		opts := []getsetcompare.Option{getsetcompare.WithClock(strategy.ClockFunc(func() time.Time { return now }))}
		if doc == "003" {
			opts = append(opts, getsetcompare.Document003())
		}
		a, _ := getsetcompare.New(pool, opts...)
		b, _ := getsetcompare.New(pool, opts...)

		la, err := a.TryAcquire(ctx, key, time.Second)
		if err != nil {
			fmt.Println(err)
			return
		}
		now = now.Add(2 * time.Second) // A is still working, past its TTL
		lb, err := b.TryAcquire(ctx, key, time.Second)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: A's late release deleted B's lock: %v\n", doc, la.Release(ctx) == nil)
		_ = lb.Release(ctx)
	}
	// Output:
	// 004: A's late release deleted B's lock: true
	// 003: A's late release deleted B's lock: false
}
