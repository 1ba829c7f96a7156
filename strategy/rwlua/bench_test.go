package rwlua_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/rwlua"
)

// The read-write lock's cost. Run with
//
//	LOCKLAB_REDIS=process go test -run '^$' -bench . -benchmem ./strategy/rwlua

// benchTTL is long enough that no hold expires during a run.
const benchTTL = 10 * time.Second

// One uncontended acquire + release, as a writer and as a reader.
func BenchmarkCycle(b *testing.B) {
	for _, c := range []struct {
		name string
		take func(s *rwlua.Strategy, ctx context.Context, key string) (strategy.Lock, error)
	}{
		{"writer", func(s *rwlua.Strategy, ctx context.Context, key string) (strategy.Lock, error) {
			return s.TryAcquire(ctx, key, benchTTL)
		}},
		{"reader", func(s *rwlua.Strategy, ctx context.Context, key string) (strategy.Lock, error) {
			return s.TryAcquireShared(ctx, key, benchTTL)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := newRW(b, redistest.Pool(b))
			key := redistest.Key(b)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				l, err := c.take(s, ctx, key)
				if err != nil {
					b.Fatal(err)
				}
				if err := l.Release(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Sixteen readers take and release the lock in a loop while one writer,
// woken by notifications, takes and releases it: ns/op is the writer's
// cycle, reads/op how many reads went through meanwhile.
func BenchmarkReadersWriter(b *testing.B) {
	const readers = 16
	p := redistest.Pool(b)
	key := redistest.Key(b)
	ctx, cancel := context.WithCancel(context.Background())
	var (
		wg    sync.WaitGroup
		reads atomic.Int64
	)
	for range readers {
		s := newRW(b, p, rwlua.WithNotify())
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := strategy.Reader(s)
			for ctx.Err() == nil {
				l, err := strategy.Acquire(ctx, r, key, benchTTL, strategy.FixedInterval(time.Millisecond))
				if err != nil {
					return
				}
				reads.Add(1)
				_ = l.Release(context.Background())
			}
		}()
	}
	w := newRW(b, p, rwlua.WithNotify())
	reads.Store(0)
	for b.Loop() {
		l, err := strategy.Acquire(ctx, w, key, benchTTL, strategy.FixedInterval(time.Millisecond))
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(reads.Load())/float64(b.N), "reads/op")
	cancel()
	wg.Wait()
}
