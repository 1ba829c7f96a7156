package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
	"github.com/rs/xid"
)

// The benchmarks run the cycles of cmd/lockbench as Go benchmarks, so that
// -benchmem, -cpuprofile and -memprofile apply:
//
//	go test -run '^$' -bench . -benchmem
//	go test -run '^$' -bench 'Uncontended/luatoken$' -cpuprofile cpu.out
//
// They need a Redis server, found by redistest. Nothing in them asserts a
// figure: the targets are only printed, by lockbench.

func TestMain(m *testing.M) { redistest.Main(m) }

// clients returns a redigo pool, a go-redis client and a rueidis client to
// the shared server, the first two keeping up to idle connections, closed
// when b ends.
func clients(b testing.TB, idle int) *Clients {
	b.Helper()
	srv := redistest.Shared(b)
	pool := srv.NewPool()
	pool.MaxIdle = idle
	rc := goredis.NewClient(&goredis.Options{Addr: srv.Addr, PoolSize: idle, MaxIdleConns: idle})
	rq, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.Addr}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		pool.Close()
		rc.Close()
		rq.Close()
	})
	return &Clients{Redigo: pool, GoRedis: rc, Rueidis: rq}
}

// BenchmarkPing is one round trip through each client kind, the way the
// locks use it: half the floor of an acquire + release.
func BenchmarkPing(b *testing.B) {
	ctx := context.Background()
	cl := clients(b, 1)
	for _, kind := range ClientKinds {
		h := handOf(kind, cl)
		b.Run(kind, func(b *testing.B) {
			for b.Loop() {
				if err := h.ping(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("redigo-DoContext", func(b *testing.B) {
		for b.Loop() {
			if err := pingRedigoContext(ctx, cl.Redigo); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFloor is SET NX PX then DEL, and SET NX PX then a
// compare-and-delete script by EVALSHA, sent by hand through each client
// as the locks send their commands: the second floor of the uncontended
// figure, and luatoken's commands without luatoken.
func BenchmarkFloor(b *testing.B) {
	ctx := context.Background()
	cl := clients(b, 1)
	key := redistest.Key(b)
	for _, kind := range ClientKinds {
		h := handOf(kind, cl)
		b.Run("SET+DEL-"+kind, func(b *testing.B) {
			for b.Loop() {
				if err := h.setDel(ctx, key); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("SET+EVALSHA-"+kind, func(b *testing.B) {
			for b.Loop() {
				if err := h.setEval(ctx, key); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The same with other tokens: one xid a cycle, as luatoken
		// makes them, and one fixed token for every cycle.
		b.Run("SET+EVALSHA-xid-"+kind, func(b *testing.B) {
			for b.Loop() {
				if err := h.setEvalTok(ctx, key, any(xid.New().String())); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("SET+EVALSHA-fixed-token-"+kind, func(b *testing.B) {
			for b.Loop() {
				if err := h.setEvalFixed(ctx, key); err != nil {
					b.Fatal(err)
				}
			}
		})
		if kind == ClientRedigo {
			continue
		}
		// The same through the adapter's redigo connections.
		via := handOf(ClientRedigo, &Clients{Redigo: adapterPool(kind, cl)})
		b.Run("SET+EVALSHA-via-adapter-"+kind, func(b *testing.B) {
			for b.Loop() {
				if err := via.setEval(ctx, key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkToken is what making a new token costs the client: the
// counter of the by-hand baseline, and an xid as luatoken makes them.
func BenchmarkToken(b *testing.B) {
	var sink any
	b.Run("counter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink = any(newToken())
		}
	})
	b.Run("xid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink = any(xid.New().String())
		}
	})
	_ = sink
}

// BenchmarkHandTokens times luatoken's commands sent by hand through each
// client with the three tokens: a new one from newToken (the baseline), a
// new xid, and one fixed token. The three take turns cycle by cycle, in an
// order that changes every cycle, so that a slow moment of a shared machine
// hits them alike; it reports the median of each (µs) and their ratios to
// the fixed token's. ns/op is for the three.
func BenchmarkHandTokens(b *testing.B) {
	ctx := context.Background()
	cl := clients(b, 1)
	for _, kind := range ClientKinds {
		h := handOf(kind, cl)
		key := redistest.Key(b)
		variants := []struct {
			name string
			run  func() error
			d    []time.Duration
		}{
			{name: "counter", run: func() error { return h.setEval(ctx, key) }},
			{name: "xid", run: func() error { return h.setEvalTok(ctx, key, any(xid.New().String())) }},
			{name: "fixed", run: func() error { return h.setEvalFixed(ctx, key) }},
		}
		b.Run(kind, func(b *testing.B) {
			for i := range variants {
				variants[i].d = variants[i].d[:0]
			}
			order := []int{0, 1, 2}
			for b.Loop() {
				rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				for _, i := range order {
					v := &variants[i]
					t0 := time.Now()
					if err := v.run(); err != nil {
						b.Fatal(err)
					}
					v.d = append(v.d, time.Since(t0))
				}
			}
			fixed := Durations(variants[2].d).Quantile(0.5)
			for _, v := range variants {
				m := Durations(v.d).Quantile(0.5)
				b.ReportMetric(us(m), v.name+"-µs")
				if v.name != "fixed" {
					b.ReportMetric(float64(m)/float64(fixed), v.name+"/fixed")
				}
			}
		})
	}
}

// BenchmarkAdapterVsHand times each adapter's luatoken and its commands
// sent by hand (with a new token), each on the client that the PING and
// SET+DEL floors also use and on a client of its own, all taking turns in
// an order that changes every cycle. It reports the median of each (µs)
// and its ratio to the commands by hand on the shared client: whether a
// lock and its baseline gain or lose from their client's other users,
// which is why the uncontended figure runs every lock and floor of a kind
// through one client.
func BenchmarkAdapterVsHand(b *testing.B) {
	ctx := context.Background()
	for _, name := range Adapters {
		sub := Find(Subjects(), name)
		b.Run(benchName(name), func(b *testing.B) {
			shared, own, ownLock := clients(b, 1), clients(b, 1), clients(b, 1)
			hs, ho := handOf(sub.Client, shared), handOf(sub.Client, own)
			key := redistest.Key(b)
			lkShared, err := sub.Open1(shared, key+":lock-shared", "")
			if err != nil {
				b.Fatal(err)
			}
			lkOwn, err := sub.Open1(ownLock, key+":lock-own", "")
			if err != nil {
				b.Fatal(err)
			}
			type variant struct {
				name string
				run  func() error
				d    Durations
			}
			vs := []*variant{
				{name: "hand-shared", run: func() error { return hs.setEval(ctx, key+":hand-shared") }},
				{name: "hand-own", run: func() error { return ho.setEval(ctx, key+":hand-own") }},
				{name: "lock-shared", run: func() error { return cycle(ctx, lkShared) }},
				{name: "lock-own", run: func() error { return cycle(ctx, lkOwn) }},
				// The floors' other users of the shared client.
				{name: "", run: func() error { return hs.ping(ctx) }},
				{name: "", run: func() error { return hs.setDel(ctx, key+":set-del") }},
			}
			for b.Loop() {
				rand.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
				for _, v := range vs {
					t0 := time.Now()
					if err := v.run(); err != nil {
						b.Fatal(err)
					}
					v.d = append(v.d, time.Since(t0))
				}
			}
			var base time.Duration
			for _, v := range vs {
				if v.name == "hand-shared" {
					base = v.d.Quantile(0.5)
				}
			}
			for _, v := range vs {
				if v.name != "" {
					m := v.d.Quantile(0.5)
					b.ReportMetric(us(m), v.name+"-µs")
					b.ReportMetric(float64(m)/float64(base), v.name+"/hand-shared")
				}
			}
		})
	}
}

// BenchmarkUncontended is one acquire + release on a free key, sequential,
// on one pooled connection.
func BenchmarkUncontended(b *testing.B) {
	ctx := context.Background()
	for _, s := range Subjects() {
		b.Run(benchName(s.Name), func(b *testing.B) {
			lk, err := s.Open1(clients(b, 1), redistest.Key(b), "")
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := cycle(ctx, lk); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParallel is acquire + release from 16 goroutines, each on its
// own key, and the SET NX PX + DEL floor the same way. ns/op is per pair.
func BenchmarkParallel(b *testing.B) {
	const goroutines = 16
	ctx := context.Background()
	parallel := func(b *testing.B, run func(g int) error) {
		var next atomic.Int64
		// RunParallel starts parallelism × GOMAXPROCS goroutines.
		b.SetParallelism(max(1, goroutines/runtime.GOMAXPROCS(0)))
		b.RunParallel(func(pb *testing.PB) {
			g := int(next.Add(1)-1) % goroutines
			for pb.Next() {
				if err := run(g); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	for _, kind := range ClientKinds {
		for _, fl := range []struct {
			name string
			op   func(hand) func(context.Context, string) error
		}{
			{"SET+DEL", func(h hand) func(context.Context, string) error { return h.setDel }},
			{"SET+EVALSHA", func(h hand) func(context.Context, string) error { return h.setEval }},
		} {
			name, op := fl.name, fl.op
			b.Run("floor-"+name+"-"+kind, func(b *testing.B) {
				cl := clients(b, 2*goroutines)
				key := redistest.Key(b)
				run := op(handOf(kind, cl))
				parallel(b, func(g int) error { return run(ctx, fmt.Sprint(key, ":", g)) })
			})
		}
	}
	for _, s := range Subjects() {
		b.Run(benchName(s.Name), func(b *testing.B) {
			cl := clients(b, 2*goroutines)
			key := redistest.Key(b)
			keys := make([]string, goroutines)
			for g := range keys {
				keys[g] = fmt.Sprint(key, ":", g)
			}
			lks, err := s.Open(cl, keys, "")
			if err != nil {
				b.Fatal(err)
			}
			parallel(b, func(g int) error { return cycle(ctx, lks[g]) })
		})
	}
}

// benchName is a subject's name as a benchmark's: a "/" would split it into
// two levels of -bench patterns (luatoken/rueidis is "luatoken-rueidis").
func benchName(name string) string { return strings.ReplaceAll(name, "/", "-") }
