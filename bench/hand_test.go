package bench

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
)

func TestNewToken(t *testing.T) {
	const goroutines, each = 4, 5000
	seen := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			toks := make([]string, each)
			for i := range toks {
				toks[i] = newToken()
			}
			mu.Lock()
			defer mu.Unlock()
			for _, tok := range toks {
				if len(tok) != len(handToken) {
					t.Errorf("token %q has %d characters, want %d as luatoken's", tok, len(tok), len(handToken))
				}
				if seen[tok] {
					t.Errorf("token %q made twice", tok)
				}
				seen[tok] = true
			}
		})
	}
	wg.Wait()
}

// TestHandTokens watches, with MONITOR, what luatoken's commands sent by
// hand write through each client: setEval a new token every cycle, the
// same in its SET and its EVALSHA; setEvalFixed handToken every time.
func TestHandTokens(t *testing.T) {
	srv := redistest.Shared(t)
	mon, err := redis.Dial("tcp", srv.Addr, redis.DialReadTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer mon.Close()
	if err := mon.Send("MONITOR"); err != nil {
		t.Fatal(err)
	}
	if err := mon.Flush(); err != nil {
		t.Fatal(err)
	}
	if ok, err := redis.String(mon.Receive()); err != nil || ok != "OK" {
		t.Fatalf("MONITOR: %q, %v", ok, err)
	}
	ctx := context.Background()
	cl := clients(t, 1)
	key := redistest.Key(t)
	kinds := map[string]string{} // key → client kind
	for _, kind := range ClientKinds {
		h, k := handOf(kind, cl), key+":"+kind
		kinds[k] = kind
		for _, run := range []func(context.Context, string) error{h.setEval, h.setEval, h.setEvalFixed, h.setEvalFixed} {
			if err := run(ctx, k); err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
		}
	}
	// Each key's SET and EVALSHA tokens, in the order sent.
	sets, evals := map[string][]string{}, map[string][]string{}
	for n := 0; n < 2*4*len(ClientKinds); {
		line, err := redis.String(mon.Receive())
		if err != nil {
			t.Fatalf("MONITOR after %d commands: %v", n, err)
		}
		f := monitorArgs(line)
		switch {
		case len(f) >= 3 && strings.EqualFold(f[0], "SET") && kinds[f[1]] != "":
			sets[f[1]] = append(sets[f[1]], f[2])
			n++
		case len(f) >= 5 && strings.EqualFold(f[0], "EVALSHA") && kinds[f[3]] != "":
			evals[f[3]] = append(evals[f[3]], f[4])
			n++
		}
	}
	for k, kind := range kinds {
		s, e := sets[k], evals[k]
		if len(s) != 4 || len(e) != 4 {
			t.Fatalf("%s: %d SETs and %d EVALSHAs, want 4 of each", kind, len(s), len(e))
		}
		for i := range s {
			if s[i] != e[i] {
				t.Errorf("%s: cycle %d SET %q but EVALSHA %q", kind, i, s[i], e[i])
			}
		}
		if s[0] == s[1] || s[0] == handToken || s[1] == handToken {
			t.Errorf("%s: setEval sent %q then %q, want two new tokens", kind, s[0], s[1])
		}
		if s[2] != handToken || s[3] != handToken {
			t.Errorf("%s: setEvalFixed sent %q then %q, want %q", kind, s[2], s[3], handToken)
		}
	}
}

// monitorArgs returns the quoted command and arguments of a MONITOR line:
// 1700000000.000000 [0 127.0.0.1:5000] "SET" "key" "value"; the tokens and
// keys here need no unquoting.
func monitorArgs(line string) []string {
	var f []string
	for i := strings.IndexByte(line, '"'); i >= 0; {
		j := strings.IndexByte(line[i+1:], '"')
		if j < 0 {
			break
		}
		f = append(f, line[i+1:i+1+j])
		line = line[i+j+2:]
		i = strings.IndexByte(line, '"')
	}
	return f
}
