package leasecheck

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
	entries := map[string]catalog.Entry{}
	for _, e := range Strategies() {
		entries[e.Name] = e
	}
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
		e, ok := entries[c.strategy]
		if !ok {
			t.Fatalf("no strategy %s in the catalog", c.strategy)
		}
		r := CheckProperty(context.Background(), cfg, e, c.property, time.Minute)
		t.Logf("%s %s: %d histories, %d operations: porcupine %s, judge %s (%s)", r.Strategy, r.Property, r.Histories, r.Ops, r.Porcupine, r.Judge, r.Elapsed)
		switch {
		case r.Err != nil:
			t.Errorf("%s %s: %v", r.Strategy, r.Property, r.Err)
		case r.Agree() != "yes":
			t.Errorf("%s %s: porcupine %s, judge %s: %s; illegal: %v", r.Strategy, r.Property, r.Porcupine, r.Judge, r.Reason, r.Illegal)
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
