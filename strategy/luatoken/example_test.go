package luatoken_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/luatoken"
)

// The whole use: a lock that renews itself, carries a fencing token, and
// wakes its waiters when released. It needs a Redis server on
// localhost:6379, so it is compiled but not run by go test.
func Example() {
	pool := &redis.Pool{
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", "localhost:6379",
				redis.DialReadTimeout(5*time.Second), redis.DialWriteTimeout(5*time.Second))
		},
		MaxIdle: 16,
	}
	defer pool.Close()

	locks, err := luatoken.New(pool,
		luatoken.WithAutoRenew(0),       // renew about every TTL/3 while held
		luatoken.WithMaxHold(time.Hour), // but not longer than this (default 10 minutes)
		luatoken.WithFencing(),          // number every acquisition
		luatoken.WithNotify(),           // wake waiters on release
	)
	if err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := strategy.Acquire(ctx, locks, "orders:42", 10*time.Second,
		strategy.Backoff(10*time.Millisecond, time.Second))
	if errors.Is(err, strategy.ErrNotAcquired) {
		log.Print("someone else kept the lock for 30s")
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	lock := l.(*luatoken.Lock) // whatever the options
	defer lock.Release(context.Background())

	// Work under the lease: it ends the moment the lock may be lost, before
	// anyone else can take it.
	lease, _ := lock.Lease()        // true: WithAutoRenew is on
	token, _ := lock.FencingToken() // true: WithFencing is on
	if err := writeOrder(lease, 42, token); err != nil {
		if cause := context.Cause(lease); errors.Is(cause, luatoken.ErrLeaseLost) {
			log.Printf("lock lost while working: %v", cause)
		}
		log.Print(err)
	}
}

// writeOrder stands for the work the lock protects: storage that keeps the
// highest fencing token it has seen refuses a write with a lower one.
func writeOrder(ctx context.Context, id int, fence int64) error {
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-time.After(100 * time.Millisecond):
		fmt.Printf("order %d written with fencing token %d\n", id, fence)
		return nil
	}
}

// Refresh gives a held lock more time; TTL tells how much is left.
func ExampleLock_Refresh() {
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", "localhost:6379") }}
	defer pool.Close()
	locks, err := luatoken.New(pool)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	l, err := locks.TryAcquire(ctx, "report:daily", 30*time.Second)
	if err != nil {
		log.Fatal(err) // errors.Is(err, strategy.ErrNotAcquired): someone else has it
	}
	lock := l.(*luatoken.Lock)
	defer lock.Release(ctx)

	// ... a first part of the work ...
	if err := lock.Refresh(ctx, 30*time.Second); errors.Is(err, strategy.ErrNotHeld) {
		log.Fatal("the lock expired: stop, someone else may hold it")
	}
	left, err := lock.TTL(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("time left:", left.Round(time.Second))
}

// The flaw of every TTL lock: a holder whose work outlasts its TTL loses
// the lock while it still works, and the next holder works beside it
// (holder-overrun). WithAutoRenew keeps the lock while the holder lives and
// ends its Lease before the lock can pass on; WithFencing lets the
// protected resource refuse the late holder's writes.
func Example_holderOverrun() {
	pool, key, done := redistest.ForExample()
	defer done()
	ctx := context.Background()
	locks, err := luatoken.New(pool)
	if err != nil {
		fmt.Println(err)
		return
	}

	a, err := locks.TryAcquire(ctx, key, 100*time.Millisecond)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("A locked for 100ms")
	time.Sleep(150 * time.Millisecond) // A's work outlasts the TTL
	b, err := locks.TryAcquire(ctx, key, 10*time.Second)
	fmt.Println("B locked while A still works:", err == nil)
	fmt.Println("A's release finds the lock not held:", errors.Is(a.Release(ctx), strategy.ErrNotHeld))
	if b != nil {
		fmt.Println("B's lock survives A's release:", b.Release(ctx) == nil)
	}
	// Output:
	// A locked for 100ms
	// B locked while A still works: true
	// A's release finds the lock not held: true
	// B's lock survives A's release: true
}

// The fencing counter sits in the lock key's Redis Cluster hash slot.
func ExampleFenceKey() {
	fmt.Println(luatoken.FenceKey("orders:42"))
	fmt.Println(luatoken.FenceKey("{order:42}:lock"))
	fmt.Println(luatoken.FenceKey("a}b"))
	// Output:
	// {orders:42}:fence
	// {order:42}:lock:fence
	// {20658}:fence:a}b
}
