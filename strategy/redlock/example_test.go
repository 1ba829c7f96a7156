package redlock_test

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/redlock"
)

// Redlock over five independent masters. It needs them on localhost ports
// 7000 to 7004, so it is compiled but not run by go test.
func Example() {
	var pools []strategy.Pool
	for _, addr := range []string{"localhost:7000", "localhost:7001", "localhost:7002", "localhost:7003", "localhost:7004"} {
		p := &redis.Pool{
			DialContext: func(ctx context.Context) (redis.Conn, error) {
				return redis.DialContext(ctx, "tcp", addr,
					redis.DialReadTimeout(time.Second), redis.DialWriteTimeout(time.Second))
			},
			MaxIdle: 16,
		}
		defer p.Close()
		pools = append(pools, p)
	}
	locks, err := redlock.New(pools)
	if err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := locks.Acquire(ctx, "orders:42", 10*time.Second)
	if errors.Is(err, strategy.ErrNotAcquired) {
		return // someone else held it until ctx ended, or too few masters answered
	}
	if err != nil {
		log.Fatal(err) // no master could be reached
	}
	lock := l.(*redlock.Lock)
	defer lock.Release(context.Background())

	// Work only while the validity lasts, and check it between steps.
	for step := 0; step < 3 && lock.Validity() > time.Second; step++ {
		_ = step // ... one step of the work ...
	}
}
