package process

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/locklab/locklab/strategy"
)

// A program's ready line says what kind of lock it serves (docs/exec.md):
// "shared" for a read-write lock, whose readers it acquires on
// "acquire-shared <key> <ttl_ms>"; "permits=<n>" for a semaphore of n
// permits, and "weighted" when it also takes several at once, on
// "acquire-n <key> <n> <ttl_ms>". The answers are those of acquire.

// kind returns s as the kind of strategy its program announced: a
// strategy.Shared, a strategy.Counting or a strategy.Weighted, or s.
func (s *Strategy) kind() strategy.Strategy {
	switch c := s.p.caps; {
	case c.shared:
		return SharedStrategy{s}
	case c.weighted:
		return WeightedStrategy{CountingStrategy{s}}
	case c.permits > 0:
		return CountingStrategy{s}
	}
	return s
}

// SharedStrategy is the Strategy of a program that announced shared: a
// read-write lock.
type SharedStrategy struct{ *Strategy }

var _ strategy.Shared = SharedStrategy{}

// TryAcquireShared sends "acquire-shared <key> <ttl_ms>", a reader's
// attempt, and reads the answer as TryAcquire does.
func (s SharedStrategy) TryAcquireShared(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.acquire(ctx, "acquire-shared", key, "", ttl)
}

// CountingStrategy is the Strategy of a program that announced
// permits=<n>: a semaphore, whose TryAcquire takes one permit.
type CountingStrategy struct{ *Strategy }

var _ strategy.Counting = CountingStrategy{}

// Permits is the n of the program's permits=<n>.
func (s CountingStrategy) Permits() int { return s.p.caps.permits }

// WeightedStrategy is the Strategy of a program that announced permits=<n>
// and weighted.
type WeightedStrategy struct{ CountingStrategy }

var _ strategy.Weighted = WeightedStrategy{}

// TryAcquireN sends "acquire-n <key> <n> <ttl_ms>", an attempt at n
// permits at once, and reads the answer as TryAcquire does.
func (s WeightedStrategy) TryAcquireN(ctx context.Context, key string, n int, ttl time.Duration) (strategy.Lock, error) {
	if n < 1 || n > s.Permits() {
		return nil, fmt.Errorf("%s: acquire-n %q: n = %d: want 1 to %d", s.p.cfg.name, key, n, s.Permits())
	}
	return s.acquire(ctx, "acquire-n", key, strconv.Itoa(n), ttl)
}
