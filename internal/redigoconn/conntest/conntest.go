// Package conntest checks a strategy.Pool built with package redigoconn on
// a client library other than redigo, on a real Redis: the redigo reply
// types, pipelines, transactions, scripts with their NOSCRIPT fallback,
// Pub/Sub, and the strategies that use each of them (luatoken with all its
// options, watchdel, multiget, getset). The adapters' tests call Run once
// per kind of client.
package conntest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
)

var server *redistest.Server

// Main starts a Redis server with redistest.Start, runs the tests and
// closes it. Call it from TestMain; Addr and Server give the server to
// tests and examples, and redistest.Shared (which locktest.Run uses) gives
// the same one: it is named to it as an external server.
func Main(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	srv, err := redistest.Start(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server = srv
	if srv.Kind != redistest.KindExternal {
		os.Setenv(redistest.EnvAddr, srv.Addr)
		os.Setenv(redistest.EnvMode, redistest.KindExternal)
	}
	code := m.Run()
	if err := srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// Server returns the server Main started.
func Server() *redistest.Server {
	if server == nil {
		panic("conntest: call conntest.Main from TestMain")
	}
	return server
}

// Addr returns the address of the server Main started.
func Addr() string { return Server().Addr }

// env is where the checks run: the address of the server the clients
// under test reach.
type env struct{ addr string }

// redigo returns a redigo pool to the server, closed when the test ends: an
// independent view of what the pool under test did.
func (e env) redigo(tb testing.TB) *redis.Pool {
	p := &redis.Pool{
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", e.addr, redis.DialReadTimeout(redistest.ReadTimeout))
		},
		MaxIdle: 4,
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// Features says what a client supports.
type Features struct {
	// NoPin: the client cannot give a connection of its own, so WATCH and
	// MULTI fail (go-redis's Ring).
	NoPin bool
	// Server is the address of the server the clients reach, when it is
	// not Addr: a cluster, where a transaction must begin with WATCH.
	Server string
}

// Run runs every check on pools from newPool, which makes a pool on a new
// client to the server (and closes the client when the test ends).
func Run(t *testing.T, newPool func(t *testing.T) strategy.Pool, f Features) {
	e := env{addr: f.Server}
	if e.addr == "" {
		e.addr = Addr()
	}
	t.Run("replies", func(t *testing.T) { replies(e, t, newPool(t)) })
	t.Run("pipeline", func(t *testing.T) { pipeline(e, t, newPool(t)) })
	t.Run("script", func(t *testing.T) { script(e, t, newPool(t)) })
	t.Run("pubsub", func(t *testing.T) { pubSub(e, t, newPool(t)) })
	t.Run("context", func(t *testing.T) { contexts(e, t, newPool(t)) })
	if f.NoPin {
		t.Run("no-pin", func(t *testing.T) { noPin(e, t, newPool(t)) })
	} else {
		t.Run("transaction", func(t *testing.T) { transaction(e, t, newPool(t), f) })
	}
	t.Run("strategies", func(t *testing.T) { strategies(e, t, newPool, f) })
}

func conn(t *testing.T, p strategy.Pool) redis.Conn {
	t.Helper()
	c, err := p.GetContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// ok returns a function that fails the test on an error and returns the
// reply otherwise: ok(t)(c.Do(...)).
func ok(t *testing.T) func(v any, err error) any {
	return func(v any, err error) any {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// typed fails unless v has the type and value want has.
func typed(t *testing.T, what string, v, want any) {
	t.Helper()
	if fmt.Sprintf("%T %#v", v, v) != fmt.Sprintf("%T %#v", want, want) {
		t.Errorf("%s: got %T %#v, want %T %#v", what, v, v, want, want)
	}
}

func replies(e env, t *testing.T, p strategy.Pool) {
	c := conn(t, p)
	key := redistest.Key(t)
	typed(t, "SET", ok(t)(c.Do("SET", key, "v1", "PX", 10000)), "OK")
	typed(t, "GET", ok(t)(c.Do("GET", key)), []byte("v1"))
	typed(t, "SET ... GET", ok(t)(c.Do("SET", key, "v2", "GET")), []byte("v1"))
	typed(t, "GET of a missing key", ok(t)(c.Do("GET", key+":missing")), nil)
	typed(t, "DEL", ok(t)(c.Do("DEL", key)), int64(1))
	typed(t, "INCR", ok(t)(c.Do("INCR", key)), int64(1))
	typed(t, "INCRBYFLOAT", ok(t)(c.Do("INCRBYFLOAT", key, 0.5)), []byte("1.5"))
	typed(t, "PING", ok(t)(c.Do("PING")), "PONG")
	typed(t, "PING msg", ok(t)(c.Do("PING", "hi")), []byte("hi"))
	typed(t, "EVAL of a table", ok(t)(c.Do("EVAL", `return {1, "two", false, {3}}`, 0)),
		[]any{int64(1), []byte("two"), nil, []any{int64(3)}})
	typed(t, "EVAL of a status", ok(t)(c.Do("EVAL", `return redis.status_reply("FINE")`, 0)), []byte("FINE"))
	// Arguments are written as redigo writes them.
	typed(t, "SET of a float", ok(t)(c.Do("SET", key, 1.25)), "OK")
	typed(t, "GET of a float", ok(t)(c.Do("GET", key)), []byte("1.25"))
	typed(t, "SET of a bool", ok(t)(c.Do("SET", key, true)), "OK")
	typed(t, "GET of a bool", ok(t)(c.Do("GET", key)), []byte("1"))
	typed(t, "SET of an Args", ok(t)(c.Do("SET", key, redis.Args{}.Add("x")[0])), "OK")
	typed(t, "SET of a duration", ok(t)(c.Do("SET", key, 2*time.Second)), "OK")
	typed(t, "GET of a duration", ok(t)(c.Do("GET", key)), []byte("2s"))

	hash := key + ":hash"
	ok(t)(c.Do("HSET", hash, "f", "v"))
	typed(t, "HGETALL", ok(t)(c.Do("HGETALL", hash)), []any{[]byte("f"), []byte("v")})
	ok(t)(c.Do("DEL", hash))

	// Error replies are redis.Error, both as the reply and as the error,
	// with the server's whole text.
	v, err := c.Do("HGET", key, "f")
	var re redis.Error
	if !errors.As(err, &re) || re.Error()[:10] != "WRONGTYPE " {
		t.Errorf("HGET on a string: %T %v, want a redis.Error starting WRONGTYPE", err, err)
	}
	typed(t, "error reply", v, re)
	_, err = c.Do("SET", key)
	if !errors.As(err, &re) || re.Error()[:4] != "ERR " {
		t.Errorf("SET without a value: %T %v, want a redis.Error starting ERR", err, err)
	}
	v, err = redis.Int(c.Do("DEL", key))
	if err != nil || v != 1 {
		t.Errorf("DEL after errors: %v, %v", v, err)
	}
	if err := c.Err(); err != nil {
		t.Errorf("Err after error replies: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := c.Do("PING"); err == nil {
		t.Error("Do after Close: no error")
	}
	if c.Err() == nil {
		t.Error("Err after Close: nil")
	}
}

func pipeline(e env, t *testing.T, p strategy.Pool) {
	c := conn(t, p)
	key := redistest.Key(t)
	for _, cmd := range [][]any{{"SET", key, "a"}, {"GET", key}, {"INCR", key}, {"DEL", key}} {
		if err := c.Send(cmd[0].(string), cmd[1:]...); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	typed(t, "SET", ok(t)(c.Receive()), "OK")
	typed(t, "GET", ok(t)(c.Receive()), []byte("a"))
	if _, err := c.Receive(); err == nil || err.Error()[:4] != "ERR " {
		t.Errorf("INCR of a non-number: %v, want an ERR reply", err)
	}
	typed(t, "DEL", ok(t)(c.Receive()), int64(1))
	if _, err := c.Receive(); err == nil {
		t.Error("Receive with nothing pending: no error")
	}

	// Do("") returns every reply pending, error replies as values.
	noErr(t, c.Send("SET", key, "b"))
	noErr(t, c.Send("HGET", key, "f"))
	v, err := redis.Values(c.Do(""))
	noErr(t, err)
	if len(v) != 2 {
		t.Fatalf("Do(\"\"): %d replies, want 2", len(v))
	}
	typed(t, "SET", v[0], "OK")
	if _, ok := v[1].(redis.Error); !ok {
		t.Errorf("HGET of a string in Do(\"\"): %T, want a redis.Error", v[1])
	}
	// Do after Send returns the last reply, and the first error reply.
	noErr(t, c.Send("HGET", key, "f"))
	r, err := c.Do("GET", key)
	typed(t, "GET after a failed HGET", r, []byte("b"))
	if _, ok := err.(redis.Error); !ok {
		t.Errorf("error of Do after a failed Send: %T %v, want the redis.Error", err, err)
	}
	ok(t)(c.Do("DEL", key))
}

func script(e env, t *testing.T, p strategy.Pool) {
	c := conn(t, p)
	key := redistest.Key(t)
	// A script of this test's own, so that no other test loads it.
	s := redis.NewScript(1, fmt.Sprintf(`-- %s
return redis.call("INCRBY", KEYS[1], ARGV[1])`, key))
	typed(t, "EVAL through Script", ok(t)(s.Do(c, key, 2)), int64(2))
	typed(t, "EVALSHA through Script", ok(t)(s.Do(c, key, 3)), int64(5))
	ok(t)(e.redigo(t).Get().Do("SCRIPT", "FLUSH"))
	typed(t, "after SCRIPT FLUSH", ok(t)(s.Do(c, key, 1)), int64(6))
	cc := c.(redis.ConnWithContext)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok(t)(e.redigo(t).Get().Do("SCRIPT", "FLUSH"))
	typed(t, "DoContext after SCRIPT FLUSH", ok(t)(s.DoContext(ctx, cc, key, 1)), int64(7))
	ok(t)(c.Do("DEL", key))
}

func pubSub(e env, t *testing.T, p strategy.Pool) {
	c := conn(t, p)
	ch := redistest.Key(t)
	noErr(t, c.Send("SUBSCRIBE", ch))
	noErr(t, c.Flush())
	receive := func(what string, want any) {
		t.Helper()
		v, err := redis.ReceiveWithTimeout(c, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		typed(t, what, v, want)
	}
	receive("subscribe", []any{[]byte("subscribe"), []byte(ch), int64(1)})
	if _, err := c.Do("GET", ch); err == nil {
		t.Error("Do on a subscribed connection: no error")
	}
	pub := e.redigo(t).Get()
	defer pub.Close()
	typed(t, "PUBLISH", ok(t)(pub.Do("PUBLISH", ch, "hello")), int64(1))
	receive("message", []any{[]byte("message"), []byte(ch), []byte("hello")})
	noErr(t, c.Send("PSUBSCRIBE", ch+"*"))
	noErr(t, c.Flush())
	receive("psubscribe", []any{[]byte("psubscribe"), []byte(ch + "*"), int64(2)})
	noErr(t, c.Send("PING"))
	noErr(t, c.Flush())
	receive("PING", []any{[]byte("pong"), []byte("")})
	ok(t)(pub.Do("PUBLISH", ch+"x", "p"))
	receive("pmessage", []any{[]byte("pmessage"), []byte(ch + "*"), []byte(ch + "x"), []byte("p")})
	noErr(t, c.Send("UNSUBSCRIBE", ch))
	noErr(t, c.Flush())
	receive("unsubscribe", []any{[]byte("unsubscribe"), []byte(ch), int64(1)})
	noErr(t, c.Send("PUNSUBSCRIBE", ch+"*"))
	noErr(t, c.Flush())
	receive("punsubscribe", []any{[]byte("punsubscribe"), []byte(ch + "*"), int64(0)})

	// A Receive that times out leaves the connection unusable, as in
	// redigo.
	start := time.Now()
	if _, err := redis.ReceiveWithTimeout(c, 100*time.Millisecond); err == nil {
		t.Fatal("ReceiveWithTimeout with nothing to receive: no error")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("ReceiveWithTimeout(100ms) returned after %v", d)
	}
	if c.Err() == nil {
		t.Error("Err after a Receive timed out: nil")
	}

	// Close ends a Receive in progress.
	c2 := conn(t, p)
	noErr(t, c2.Send("SUBSCRIBE", ch))
	noErr(t, c2.Flush())
	ok(t)(c2.Receive())
	done := make(chan error, 1)
	go func() {
		_, err := c2.Receive()
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	c2.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Receive during Close: no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Receive did not return after Close")
	}
}

func contexts(e env, t *testing.T, p strategy.Pool) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.GetContext(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("GetContext with a cancelled context: %v", err)
	}
	c := conn(t, p)
	cc := c.(redis.ConnWithContext)
	if _, err := cc.DoContext(ctx, "PING"); !errors.Is(err, context.Canceled) {
		t.Errorf("DoContext with a cancelled context: %v", err)
	}
	key := redistest.Key(t)
	// A command the server holds for a second, cut short by the context.
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := cc.DoContext(ctx, "BLPOP", key, 1)
	if err == nil {
		t.Error("BLPOP for 1s under a 100ms context: no error")
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("BLPOP under a 100ms context returned after %v", d)
	}
	typed(t, "DoWithTimeout", ok(t)(redis.DoWithTimeout(conn(t, p), time.Second, "PING")), "PONG")
}

func transaction(e env, t *testing.T, p strategy.Pool, f Features) {
	// One hash tag for the keys of a transaction, which a cluster needs.
	key := "{" + redistest.Key(t) + "}"
	c := conn(t, p)
	typed(t, "WATCH", ok(t)(c.Do("WATCH", key)), "OK")
	typed(t, "GET", ok(t)(c.Do("GET", key)), nil)
	typed(t, "MULTI", ok(t)(c.Do("MULTI")), "OK")
	typed(t, "SET queued", ok(t)(c.Do("SET", key, "x")), "QUEUED")
	typed(t, "GET queued", ok(t)(c.Do("GET", key)), "QUEUED")
	typed(t, "INCR queued", ok(t)(c.Do("INCR", key+":n")), "QUEUED")
	typed(t, "EXEC", ok(t)(c.Do("EXEC")), []any{"OK", []byte("x"), int64(1)})

	if f.Server != "" {
		c2 := conn(t, p)
		if _, err := c2.Do("MULTI"); err == nil {
			t.Error("MULTI first on a cluster: no error")
		}
	}

	// A write by someone else after WATCH aborts the transaction.
	ok(t)(c.Do("WATCH", key))
	ok(t)(e.redigo(t).Get().Do("SET", key, "other"))
	ok(t)(c.Do("MULTI"))
	ok(t)(c.Do("DEL", key))
	typed(t, "EXEC after a concurrent write", ok(t)(c.Do("EXEC")), nil)

	// The same in a pipeline.
	for _, cmd := range [][]any{{"MULTI"}, {"SET", key, "y"}, {"GET", key}, {"EXEC"}} {
		noErr(t, c.Send(cmd[0].(string), cmd[1:]...))
	}
	v, err := redis.Values(c.Do(""))
	noErr(t, err)
	typed(t, "pipelined transaction", v, []any{"OK", "QUEUED", "QUEUED", []any{"OK", []byte("y")}})
	noErr(t, c.Close())

	// Close with a transaction open discards it, so that the connection
	// goes back to the client clean: every later command gets its own
	// reply, not QUEUED, on the client's shared connections and on the
	// connections pinned after it. (On a cluster a WATCH comes first, to
	// choose the node.)
	w := key + ":w"
	c = conn(t, p)
	ok(t)(c.Do("WATCH", w))
	ok(t)(c.Do("MULTI"))
	ok(t)(c.Do("SET", key, "discarded"))
	noErr(t, c.Close())
	for i := range 10 {
		c = conn(t, p)
		typed(t, fmt.Sprintf("GET %d after Close", i), ok(t)(c.Do("GET", key)), []byte("y"))
		typed(t, fmt.Sprintf("WATCH %d after Close", i), ok(t)(c.Do("WATCH", w)), "OK")
		typed(t, fmt.Sprintf("pinned GET %d after Close", i), ok(t)(c.Do("GET", key)), []byte("y"))
		noErr(t, c.Close())
	}
	// Close with a WATCH open unwatches: a write to the key after it does
	// not abort the next transaction on the connection.
	c = conn(t, p)
	ok(t)(c.Do("WATCH", key))
	noErr(t, c.Close())
	ok(t)(e.redigo(t).Get().Do("SET", key, "z"))
	for i := range 3 {
		c = conn(t, p)
		ok(t)(c.Do("WATCH", w))
		ok(t)(c.Do("MULTI"))
		ok(t)(c.Do("INCR", key+":n"))
		if v := ok(t)(c.Do("EXEC")); v == nil {
			t.Errorf("EXEC %d after a WATCH was closed aborted: the WATCH was left open", i)
		}
		noErr(t, c.Close())
	}
	ok(t)(e.redigo(t).Get().Do("DEL", key, key+":n"))
}

func noPin(e env, t *testing.T, p strategy.Pool) {
	c := conn(t, p)
	if _, err := c.Do("WATCH", redistest.Key(t)); err == nil {
		t.Error("WATCH on a client that cannot pin a connection: no error")
	}
}
