package semlua_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/semlua"
)

// The semaphore's cost. Run with
//
//	LOCKLAB_REDIS=process go test -run '^$' -bench . -benchmem ./strategy/semlua

// benchTTL is long enough that no hold expires during a run.
const benchTTL = 10 * time.Second

// One uncontended acquire + release of one permit, and of four at once.
func BenchmarkCycle(b *testing.B) {
	for _, n := range []int{1, 4} {
		b.Run(map[int]string{1: "one", 4: "four"}[n], func(b *testing.B) {
			s := newSem(b, redistest.Pool(b), 4)
			key := redistest.Key(b)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				l, err := s.TryAcquireN(ctx, key, n, benchTTL)
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

// Four permits, sixteen goroutines per core taking one each with Acquire
// (woken by notifications, polling every millisecond besides) and giving
// it back at once: ns/op is one acquire + release under contention.
func BenchmarkContended(b *testing.B) {
	p := redistest.Pool(b)
	key := redistest.Key(b)
	s := newSem(b, p, 4, semlua.WithNotify())
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			l, err := strategy.Acquire(ctx, s, key, benchTTL, strategy.FixedInterval(time.Millisecond))
			if err != nil {
				b.Error(err)
				return
			}
			if err := l.Release(ctx); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
