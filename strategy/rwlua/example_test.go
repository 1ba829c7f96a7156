package rwlua_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/rwlua"
)

// Readers share the lock; a writer waits for them, and once it has tried,
// new readers wait for it.
func Example() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()
	rw, err := rwlua.New(pool, rwlua.WithNotify())
	if err != nil {
		fmt.Println(err)
		return
	}

	r1, _ := rw.TryAcquireShared(ctx, key, 10*time.Second)
	r2, err := rw.TryAcquireShared(ctx, key, 10*time.Second)
	fmt.Println("two readers at once:", err == nil)

	_, err = rw.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("a writer waits for the readers:", errors.Is(err, strategy.ErrNotAcquired))
	_, err = rw.TryAcquireShared(ctx, key, 10*time.Second)
	fmt.Println("a new reader waits for the writer:", errors.Is(err, strategy.ErrNotAcquired))

	// The writer waits with Acquire, woken when the last reader leaves.
	go func() {
		time.Sleep(50 * time.Millisecond)
		r1.Release(ctx)
		r2.Release(ctx)
	}()
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	w, err := strategy.Acquire(wctx, rw, key, 10*time.Second, strategy.FixedInterval(time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the writer is in")
	// Readers wait with Acquire too, through strategy.Reader.
	go func() {
		time.Sleep(50 * time.Millisecond)
		w.Release(ctx)
	}()
	r, err := strategy.Acquire(wctx, strategy.Reader(rw), key, 10*time.Second, strategy.FixedInterval(time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("a reader is in after the writer")
	fmt.Println("its release:", r.Release(ctx))
	// Output:
	// two readers at once: true
	// a writer waits for the readers: true
	// a new reader waits for the writer: true
	// the writer is in
	// a reader is in after the writer
	// its release: <nil>
}
