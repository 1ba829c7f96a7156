package luatoken_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy/internal/strategytest"
)

// maxAllocs bounds the allocations of one plain TryAcquire + Release cycle
// on a redigo pool with a context that can end (the common case).
const maxAllocs = 40

// The plain path stays lean: one SET and one EVALSHA, and few allocations.
func TestPlainAllocs(t *testing.T) {
	p := redistest.Pool(t)
	key := redistest.Key(t)
	rp := &strategytest.RecordPool{Pool: p}
	s := newLuatoken(t, rp)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	for range 2 { // the first may load the script
		rp.Reset()
		l, err := s.TryAcquire(ctx, key, strategytest.TTL)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	names := rp.Names()
	if len(names) != 2 || names[0] != "SET" || names[1] != "EVALSHA" {
		t.Fatalf("commands of one cycle: %v, want [SET EVALSHA]", names)
	}

	s = newLuatoken(t, p)
	for name, ctx := range map[string]context.Context{"cancellable context": ctx, "background context": context.Background()} {
		n := testing.AllocsPerRun(200, func() {
			l, err := s.TryAcquire(ctx, key, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("allocations per TryAcquire + Release, %s: %v", name, n)
		if n > maxAllocs {
			t.Errorf("%s: %v allocations per cycle, want at most %d", name, n, maxAllocs)
		}
	}
}
