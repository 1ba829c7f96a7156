package goredispool_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/locklab/locklab/adapters/goredispool"
	"github.com/locklab/locklab/internal/redigoconn/conntest"
	"github.com/locklab/locklab/redistest"
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

// luatoken on a go-redis ClusterClient: each lock lives on the master of
// its key's hash slot, and go-redis sends each command there, following
// the cluster's redirections when a slot moves. With WithFencing, the
// counter key sits in the lock key's slot (see luatoken.FenceKey). Here
// the example starts a three-master cluster of its own; yours is running.
func Example_clusterClient() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cluster, err := redistest.StartCluster(ctx, 3)
	if err != nil {
		log.Fatal(err)
	}
	defer cluster.Close()

	rdb := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                 []string{cluster.Nodes[0].Addr}, // any of the nodes
		ContextTimeoutEnabled: true,
	})
	defer rdb.Close()

	locks, err := luatoken.New(goredispool.New(rdb), luatoken.WithFencing())
	if err != nil {
		log.Fatal(err)
	}
	lock, err := locks.TryAcquire(ctx, "{order:42}:lock", 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	token, _ := lock.(*luatoken.Lock).FencingToken()
	fmt.Println("fencing token:", token)
	_, err = locks.TryAcquire(ctx, "{order:42}:lock", 10*time.Second)
	fmt.Println("second attempt:", err)
	fmt.Println("release:", lock.Release(ctx))
	// Output:
	// fencing token: 1
	// second attempt: luatoken: "{order:42}:lock": locklab: lock not acquired
	// release: <nil>
}
