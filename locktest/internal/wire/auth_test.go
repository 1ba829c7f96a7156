package wire_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest/internal/wire"
	"github.com/locklab/locklab/redistest"
)

// A proxy with a Secret relays nothing for a connection that has not given
// it: a stranger who finds the port gets NOAUTH, as from Redis, and a
// wrong password WRONGPASS; the AUTH itself never reaches Redis or the
// hooks, and a HELLO that logs in reaches Redis without its AUTH.
func TestSecret(t *testing.T) {
	var l log
	srv := redistest.Shared(t)
	p, err := wire.Listen(wire.Config{Addr: srv.Addr, Hooks: l.hooks(), Secret: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	key := redistest.Key(t)

	stranger := dial(t, p)
	if _, err := stranger.Do("SET", key, "x"); err == nil || !strings.HasPrefix(err.Error(), "NOAUTH") {
		t.Fatalf("SET before AUTH: err = %v, want NOAUTH", err)
	}
	if _, err := stranger.Do("HELLO", "3"); err == nil || !strings.HasPrefix(err.Error(), "NOAUTH") {
		t.Fatalf("HELLO 3 before AUTH: err = %v, want NOAUTH", err)
	}
	if _, err := stranger.Do("AUTH", "guess"); err == nil || !strings.HasPrefix(err.Error(), "WRONGPASS") {
		t.Fatalf("AUTH guess: err = %v, want WRONGPASS", err)
	}
	if _, err := stranger.Do("AUTH", "default", "guess"); err == nil || !strings.HasPrefix(err.Error(), "WRONGPASS") {
		t.Fatalf("AUTH default guess: err = %v, want WRONGPASS", err)
	}
	if _, err := stranger.Do("GET", key); err == nil || !strings.HasPrefix(err.Error(), "NOAUTH") {
		t.Fatalf("GET after a wrong AUTH: err = %v, want NOAUTH", err)
	}
	if n := must(redis.Int(direct(t).Do("EXISTS", key))); n != 0 {
		t.Fatalf("the stranger's SET reached Redis")
	}

	c, err := redis.Dial("tcp", p.Addr(), redis.DialPassword("s3cret"), redis.DialReadTimeout(10*time.Second))
	if err != nil {
		t.Fatalf("dial with the secret: %v", err)
	}
	defer c.Close()
	if got := must(redis.String(c.Do("SET", key, "v"))); got != "OK" {
		t.Fatalf("SET = %q", got)
	}
	// Given again, the secret is answered by the proxy, not by a Redis
	// that may have no password at all.
	if got := must(redis.String(c.Do("AUTH", "s3cret"))); got != "OK" {
		t.Fatalf("AUTH again = %q", got)
	}

	h := dial(t, p)
	reply, err := redis.Values(h.Do("HELLO", "2", "AUTH", "default", "s3cret", "SETNAME", "locklab-test"))
	if err != nil {
		t.Fatalf("HELLO 2 AUTH default s3cret SETNAME: %v", err)
	}
	if len(reply) == 0 {
		t.Fatal("HELLO answered nothing")
	}
	if got := must(redis.String(h.Do("CLIENT", "GETNAME"))); got != "locklab-test" {
		t.Fatalf("CLIENT GETNAME = %q: HELLO's SETNAME did not reach Redis", got)
	}
	if got := must(redis.String(h.Do("GET", key))); got != "v" {
		t.Fatalf("GET = %q", got)
	}
	// RESET would log the proxy's connection out: refused, and the
	// connection goes on as it was.
	if _, err := h.Do("RESET"); err == nil || !strings.Contains(err.Error(), "RESET is refused") {
		t.Fatalf("RESET: err = %v, want it refused", err)
	}
	if got := must(redis.String(h.Do("CLIENT", "GETNAME"))); got != "locklab-test" {
		t.Fatalf("CLIENT GETNAME after RESET = %q: the connection was reset", got)
	}
	for _, line := range l.get() {
		if strings.Contains(line, "s3cret") || strings.Contains(line, "AUTH") {
			t.Errorf("a hook saw the login: %s", line)
		}
	}
	wantLines(t, &l,
		"2#1 SET "+key+" v -> OK",
		"3#1 HELLO 2 SETNAME locklab-test -> "+lineOf(l.get(), "3#1"),
		"3#2 CLIENT GETNAME -> locklab-test",
		"3#3 GET "+key+" -> v",
		"3#4 CLIENT GETNAME -> locklab-test",
	)
}

// lineOf returns the reply part of the logged line that starts with prefix.
func lineOf(lines []string, prefix string) string {
	for _, line := range lines {
		if strings.HasPrefix(line, prefix+" ") {
			_, reply, _ := strings.Cut(line, " -> ")
			return reply
		}
	}
	return ""
}
