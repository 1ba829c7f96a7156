package semlua_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/semlua"
)

// Three permits: holds take one or several, all or none, and give them
// back once.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()
	sem, err := semlua.New(pool, 3, semlua.WithNotify())
	if err != nil {
		fmt.Println(err)
		return
	}

	one, _ := sem.TryAcquire(ctx, key, 10*time.Second)
	two, err := sem.TryAcquireN(ctx, key, 2, 10*time.Second)
	fmt.Println("1 + 2 permits:", err == nil)
	_, err = sem.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("a fourth waits:", errors.Is(err, strategy.ErrNotAcquired))

	fmt.Println("release:", two.Release(ctx))
	fmt.Println("again:", errors.Is(two.Release(ctx), strategy.ErrNotHeld))

	// Two permits are free again: Acquire, which waits for a permit (woken
	// by a release), gets one at once.
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	l, err := strategy.Acquire(wctx, sem, key, 10*time.Second, strategy.FixedInterval(time.Second))
	fmt.Println("acquired:", err == nil)
	l.Release(ctx)
	one.Release(ctx)
	// Output:
	// 1 + 2 permits: true
	// a fourth waits: true
	// release: <nil>
	// again: true
	// acquired: true
}
