package luatoken_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/rs/xid"
)

// The cost of luatoken beyond its two commands: one plain TryAcquire +
// Release, and the same two commands sent by hand (SET key token NX PX ttl,
// then the release script by EVALSHA), each on a connection taken from the
// same redigo pool. Run with
//
//	LOCKLAB_REDIS=process go test -run '^$' -bench Cycle -benchmem ./strategy/luatoken
//
// The difference in ns/op and allocs/op is luatoken's own work.

// benchTTL is long enough that no lock expires during a run.
const benchTTL = 10 * time.Second

// handRelease is luatoken's release script, loaded by hand.
var handRelease = redis.NewScript(1, luatoken.LuatokenReleaseSrc)

// handToken is as long as luatoken's tokens (an xid).
const handToken = "d4ebl8o3p1rs1v8h0mj0"

func BenchmarkCycle(b *testing.B) {
	for _, c := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"background", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }},
		{"cancellable", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }},
	} {
		b.Run("luatoken/"+c.name, func(b *testing.B) {
			p := redistest.Pool(b)
			s := newLuatoken(b, p)
			key := redistest.Key(b)
			ctx, cancel := c.ctx()
			defer cancel()
			b.ReportAllocs()
			for b.Loop() {
				l, err := s.TryAcquire(ctx, key, benchTTL)
				if err != nil {
					b.Fatal(err)
				}
				if err := l.Release(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("hand/"+c.name, func(b *testing.B) {
			p := redistest.Pool(b)
			key := redistest.Key(b)
			ctx, cancel := c.ctx()
			defer cancel()
			b.ReportAllocs()
			for b.Loop() {
				if err := handCycle(ctx, p, key, handToken); err != nil {
					b.Fatal(err)
				}
			}
		})
		// By hand with a new xid token every cycle, as luatoken writes:
		// what a unique token costs the client and the server (whose Lua
		// makes a new string of each ARGV it has not seen).
		b.Run("hand-new-token/"+c.name, func(b *testing.B) {
			p := redistest.Pool(b)
			key := redistest.Key(b)
			ctx, cancel := c.ctx()
			defer cancel()
			b.ReportAllocs()
			for b.Loop() {
				if err := handCycle(ctx, p, key, xid.New().String()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// handCycle sends luatoken's two commands by hand with token, each on a
// connection from p, bounded by ctx when it can end as luatoken's are.
func handCycle(ctx context.Context, p *redis.Pool, key string, token any) error {
	c, err := p.GetContext(ctx)
	if err != nil {
		return err
	}
	if ctx.Done() != nil {
		_, err = redis.String(redis.DoContext(c, ctx, "SET", key, token, "NX", "PX", benchTTL.Milliseconds()))
	} else {
		_, err = redis.String(c.Do("SET", key, token, "NX", "PX", benchTTL.Milliseconds()))
	}
	c.Close()
	if err != nil {
		return err
	}
	c, err = p.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var n int
	if ctx.Done() != nil {
		n, err = redis.Int(handRelease.DoContext(ctx, c, key, token))
	} else {
		n, err = redis.Int(handRelease.Do(c, key, token))
	}
	if err == nil && n != 1 {
		err = redis.Error("hand release found no lock")
	}
	return err
}

// BenchmarkCycleInterleaved runs one luatoken cycle and one cycle by hand
// in turn, on the same pool, so that a slow moment of a shared machine hits
// both alike; it reports the median of each (µs) and their ratio.
func BenchmarkCycleInterleaved(b *testing.B) {
	p := redistest.Pool(b)
	s := newLuatoken(b, p)
	key, handKey := redistest.Key(b), redistest.Key(b)+":hand"
	ctx := context.Background()
	var lt, hand []time.Duration
	ltCycle := func() time.Duration {
		t0 := time.Now()
		l, err := s.TryAcquire(ctx, key, benchTTL)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	handTimed := func() time.Duration {
		t0 := time.Now()
		if err := handCycle(ctx, p, handKey, handToken); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	i := 0
	for b.Loop() {
		// Alternate which goes first, so that neither gains from its place.
		if i++; i%2 == 0 {
			lt = append(lt, ltCycle())
			hand = append(hand, handTimed())
		} else {
			hand = append(hand, handTimed())
			lt = append(lt, ltCycle())
		}
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2]) / float64(time.Microsecond)
	}
	ml, mh := median(lt), median(hand)
	b.ReportMetric(ml, "luatoken-µs")
	b.ReportMetric(mh, "hand-µs")
	b.ReportMetric(ml/mh, "ratio")
}
