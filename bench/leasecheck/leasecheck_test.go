package leasecheck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// TestSavedBreaks decides the breaks the judge's own tests keep, saved
// by lockcheck -format json: each is illegal for porcupine too, for the
// reason the judge gives.
func TestSavedBreaks(t *testing.T) {
	want := map[string]string{
		"delsetnxcheck.exclusion.json": TwoHolders,
		"luatoken.holder-overrun.json": TwoInside,
		"setnxdel.crash-recovery.json": FreeRefused,
		"setnxpx.safe-release.json":    TwoHolders,
		"getset.clock-skew.json":       TwoHolders,
	}
	for name, broken := range want {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "..", "locktest", "internal", "judge", "testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			var res locktest.Result
			if err := json.Unmarshal(b, &res); err != nil {
				t.Fatal(err)
			}
			j, err := locktest.Judge(res)
			if err != nil || j.Verdict != locktest.Breaks {
				t.Fatalf("Judge = %s, %v, want breaks", j.Verdict, err)
			}
			h := FromResult(res)
			if h == nil {
				t.Fatal("FromResult = nil, want the break's history")
			}
			if v := Check(*h, time.Minute); v.Legal || v.Unknown || v.Broken != broken {
				t.Errorf("Check = %v, want illegal (%s)", v, broken)
			}
		})
	}
}

// TestAgreement runs a few strategies on Redis, each on a property it
// keeps and on one it breaks, and wants porcupine to agree with the
// judge on every run, having seen legal and illegal histories both.
func TestAgreement(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite on Redis")
	}
	srv := redistest.Shared(t)
	cfg := locktest.Config{Addr: srv.Addr, Username: srv.Login.Username, Password: srv.Login.Password, DB: srv.Login.DB, TLS: srv.Login.TLS,
		Key: redistest.Key(t)}
	var legal, illegal int
	for _, c := range []struct {
		strategy string
		property locktest.Property
	}{
		{"setnxdel", locktest.Exclusion}, {"setnxdel", "crash-recovery"}, {"setnxdel", "double-release"},
		{"setnxpx", locktest.Exclusion}, {"setnxpx", "safe-release"}, {"setnxpx", "crash-recovery"},
		{"delsetnxcheck", locktest.Exclusion},
		{"luatoken", "holder-overrun"}, {"luatoken", "safe-release"}, {"luatoken", "double-release"},
	} {
		r := CheckProperty(context.Background(), cfg, entry(t, c.strategy), c.property, time.Minute)
		t.Logf("%s %s: %d histories, %d operations: porcupine %s, judge %s (%s)", r.Strategy, r.Property, r.Histories, r.Ops, r.Porcupine, r.Judge, r.Elapsed)
		switch {
		case r.Err != nil:
			t.Errorf("%s %s: %v", r.Strategy, r.Property, r.Err)
		case r.Agree() != "yes":
			t.Errorf("%s %s: porcupine %s, judge %s: %s; illegal: %v", r.Strategy, r.Property, r.Porcupine, r.Judge, r.Reason, r.Illegal)
		case !r.Faithful():
			t.Errorf("%s %s: the lock calls of the run that broke are %s as recorded, %s in the suite's timeline", r.Strategy, r.Property, r.Recorded, r.Timeline)
		case r.Rejudged != "" && r.Rejudged != r.Judge:
			t.Errorf("%s %s: judged %s, %s again from the saved history", r.Strategy, r.Property, r.Judge, r.Rejudged)
		}
		for range r.Illegal {
			illegal++
		}
		legal += r.Histories - len(r.Illegal)
	}
	if legal == 0 || illegal == 0 {
		t.Errorf("porcupine saw %d legal and %d illegal histories, want some of each", legal, illegal)
	}
}

// BenchmarkCheck decides the histories of one run of exclusion on
// luatoken, recorded on Redis once: porcupine's cost on the suite's own
// runs.
func BenchmarkCheck(b *testing.B) {
	srv := redistest.Shared(b)
	e := entry(b, "luatoken")
	rec := NewRecorder()
	cfg := e.Config(locktest.Config{Addr: srv.Addr, Username: srv.Login.Username, Password: srv.Login.Password, DB: srv.Login.DB, TLS: srv.Login.TLS,
		Key: redistest.Key(b)})
	cfg.New = rec.Wrap(cfg.New)
	if res := locktest.Check(context.Background(), cfg, locktest.Exclusion); res.Verdict != locktest.Holds {
		b.Fatalf("exclusion: %s, %v", res.Verdict, res.Err)
	}
	hs := rec.Histories(tolerance(0))
	ops := 0
	for _, h := range hs {
		ops += len(h.Ops)
	}
	for b.Loop() {
		for _, h := range hs {
			if v := Check(h, time.Minute); !v.Legal {
				b.Fatalf("%s: %v", h.Key, v)
			}
		}
	}
	b.ReportMetric(float64(len(hs)), "histories")
	b.ReportMetric(float64(ops), "ops")
}

// BenchmarkCheckContended decides one history of 32 clients that try
// luatoken's lock on one key, 10,000 attempts and their releases in all,
// recorded on Redis once; then the same without its first release, which
// porcupine must reject.
func BenchmarkCheckContended(b *testing.B) {
	srv := redistest.Shared(b)
	e := entry(b, "luatoken")
	rec := NewRecorder()
	key := redistest.Key(b)
	const clients, attempts = 32, 10000
	pool := srv.NewPool()
	defer pool.Close()
	var wg sync.WaitGroup
	var left atomic.Int64
	left.Store(attempts)
	for i := range clients {
		s, err := rec.Wrap(e.New)(locktest.Client{Name: fmt.Sprintf("c%d", i), Pool: pool, Addr: srv.Addr})
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				l, err := s.TryAcquire(context.Background(), key, time.Second)
				if err == nil {
					l.Release(context.Background())
				}
			}
		}()
	}
	wg.Wait()
	hs := rec.Histories(tolerance(0))
	if len(hs) != 1 {
		b.Fatalf("%d histories, want 1", len(hs))
	}
	// The same history without its first release: the next grant came
	// well inside the released lease, so that it is illegal.
	cut := slices.Clone(hs[0].Ops)
	if i := slices.IndexFunc(cut, func(op Op) bool { return op.Kind == Release && op.Outcome == OK }); i >= 0 {
		cut = slices.Delete(cut, i, i+1)
	}
	for _, c := range []struct {
		name  string
		h     History
		legal bool
	}{
		{"legal", hs[0], true},
		{"release-dropped", History{Ops: cut, Tol: hs[0].Tol}, false},
		{"hold-dropped", History{Ops: dropHold(hs[0].Ops), Tol: hs[0].Tol}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if v := Check(c.h, time.Minute); v.Legal != c.legal || v.Unknown {
					b.Fatalf("Check = %v, want legal %v", v, c.legal)
				}
			}
			b.ReportMetric(float64(len(c.h.Ops)), "ops")
		})
	}
}

// entry is the catalog's strategy named name.
func entry(tb testing.TB, name string) catalog.Entry {
	tb.Helper()
	for _, e := range Strategies() {
		if e.Name == name {
			return e
		}
	}
	tb.Fatalf("no strategy %s in the catalog", name)
	return catalog.Entry{}
}

// dropHold returns ops without the grant and release of the hold with
// the most refusals within it, which nothing then explains.
func dropHold(ops []Op) []Op {
	type hold struct{ from, to time.Duration }
	spans := map[int]hold{}
	for _, op := range ops {
		h := spans[op.Hold]
		switch {
		case op.Kind == Acquire && op.Outcome == OK:
			h.from = op.Return
		case op.Kind == Release:
			h.to = op.Call
		}
		spans[op.Hold] = h
	}
	best, most := 0, 0
	for id, h := range spans {
		n := 0
		for _, op := range ops {
			if op.Kind == Acquire && op.Outcome == Refused && op.Call >= h.from && op.Return <= h.to {
				n++
			}
		}
		if id != 0 && n > most {
			best, most = id, n
		}
	}
	return slices.DeleteFunc(slices.Clone(ops), func(op Op) bool { return op.Hold == best && op.Kind != Acquire || op.Hold == best && op.Outcome == OK })
}
