package goredispool_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/locklab/locklab/adapters/goredispool"
	"github.com/locklab/locklab/internal/redigoconn/conntest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/redis/go-redis/v9"
)

// luatoken on the go-redis client a program already has. Here the client
// dials the test's Redis; yours dials your own.
func Example() {
	rdb := redis.NewClient(&redis.Options{
		Addr: conntest.Addr(),
		// Let a context's deadline bound each command, as luatoken's
		// renewals and Acquire expect.
		ContextTimeoutEnabled: true,
	})
	defer rdb.Close()

	locks, err := luatoken.New(goredispool.New(rdb), luatoken.WithNotify())
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	lock, err := strategy.Acquire(ctx, locks, "example:goredispool", 10*time.Second,
		strategy.Backoff(10*time.Millisecond, time.Second))
	if err != nil {
		log.Fatal(err)
	}
	// Someone else, on the same client, finds it taken.
	_, err = locks.TryAcquire(ctx, "example:goredispool", 10*time.Second)
	fmt.Println("second attempt:", err)
	fmt.Println("release:", lock.Release(ctx))
	// Output:
	// second attempt: luatoken: "example:goredispool": locklab: lock not acquired
	// release: <nil>
}
