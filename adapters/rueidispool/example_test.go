package rueidispool_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"github.com/locklab/locklab/adapters/rueidispool"
	"github.com/locklab/locklab/internal/redigoconn/conntest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/redis/rueidis"
)

// luatoken on the rueidis client a program already has: goroutines that
// lock at the same time share the client's round trips. Here the client
// dials the test's Redis; yours dials your own.
func Example() {
	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{conntest.Addr()}})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	locks, err := luatoken.New(rueidispool.New(client))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() {
			key := fmt.Sprintf("example:rueidispool:%d", i)
			lock, err := strategy.Acquire(ctx, locks, key, 10*time.Second,
				strategy.Backoff(10*time.Millisecond, time.Second))
			if err == nil {
				// ... the work the lock protects ...
				err = lock.Release(ctx)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	fmt.Println("16 goroutines locked and released:", errors.Join(errs...) == nil)
	// Output:
	// 16 goroutines locked and released: true
}
