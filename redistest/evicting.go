package redistest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// What StartEvicting's writer writes: a value of fillSize bytes every
// fillEvery, under one of fillKeys keys, many times what 3mb holds, so
// that the server evicts some 500 keys a second.
const (
	fillSize  = 32 << 10
	fillEvery = 2 * time.Millisecond
	fillKeys  = 1000
)

// StartEvicting starts a private redis-server, as [StartProcess] does, with
// maxmemory 3mb and maxmemory-policy allkeys-lru, and a client that writes
// big values to it until [Server.Close], so that it keeps evicting keys
// (evicted_keys, in INFO stats, climbs): a server short of memory, on which
// any key, a lock's too, can go before its TTL. It returns once the server
// has evicted a key. Extra arguments go to redis-server after these.
func StartEvicting(ctx context.Context, extra ...string) (*Server, error) {
	s, err := StartProcess(ctx, append([]string{"--maxmemory", "3mb", "--maxmemory-policy", "allkeys-lru"}, extra...)...)
	if err != nil {
		return nil, err
	}
	c, err := s.Dial(ctx)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("evicting: %w", err)
	}
	stopped, done := make(chan struct{}), make(chan struct{})
	go fill(c, stopped, done)
	stopServer := s.stop
	s.stop = func() error {
		close(stopped)
		<-done
		return stopServer()
	}
	for {
		n, err := s.Info(ctx, "stats", "evicted_keys")
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("evicting: %w", err)
		}
		if n != "0" {
			return s, nil
		}
		if !sleepCtx(ctx, 10*time.Millisecond) {
			s.Close()
			return nil, fmt.Errorf("evicting: no key evicted yet: %w", ctx.Err())
		}
	}
}

// fill writes a big value on c every fillEvery until stopped is closed or
// a write fails, then closes c and done.
func fill(c redis.Conn, stopped <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	defer c.Close()
	value := strings.Repeat("x", fillSize)
	tick := time.NewTicker(fillEvery)
	defer tick.Stop()
	for n := 0; ; n++ {
		if _, err := c.Do("SET", "redistest:fill:"+strconv.Itoa(n%fillKeys), value); err != nil {
			return
		}
		select {
		case <-stopped:
			return
		case <-tick.C:
		}
	}
}
