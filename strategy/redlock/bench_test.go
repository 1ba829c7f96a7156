package redlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/locklab/locklab/strategy/redlock"
)

// BenchmarkAcquireRelease times one uncontended TryAcquire and Release,
// in a row, on local masters: luatoken on one, Redlock on three and on
// five (its commands go to every master at once).
func BenchmarkAcquireRelease(b *testing.B) {
	m := sharedMasters(b)
	ps := pools(b, m.Nodes)
	single, err := luatoken.New(ps[0])
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		s    strategy.Strategy
	}{
		{"luatoken-1", single},
		{"redlock-3", newRedlockOn(b, ps[:3])},
		{"redlock-5", newRedlockOn(b, ps)},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			key := redistest.Key(b)
			b.ReportAllocs()
			for b.Loop() {
				l, err := c.s.TryAcquire(ctx, key, 10*time.Second)
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

func newRedlockOn(b *testing.B, ps []strategy.Pool) *redlock.Strategy {
	s, err := redlock.New(ps)
	if err != nil {
		b.Fatal(err)
	}
	return s
}
