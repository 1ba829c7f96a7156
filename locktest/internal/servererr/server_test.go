package servererr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/locklab/locklab/redistest"
)

// The scripts the corpus runs, as locks write them: without shebang.
const (
	releaseLua = "if redis.call('get', KEYS[1]) == ARGV[1] then\n  return redis.call('del', KEYS[1])\nend\nreturn 0"
	acquireLua = "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end\nreturn 0"
	refreshLua = "if redis.call('get', KEYS[1]) == ARGV[1] then\n  return redis.call('pexpire', KEYS[1], ARGV[2])\nend\nreturn 0"
	// A semaphore's acquire: its first write (ZREMRANGEBYSCORE) does not
	// grow memory, so its ZADD is never refused for memory.
	semLua     = "redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1])\nif redis.call('zcard', KEYS[1]) < 2 then\n  redis.call('zadd', KEYS[1], ARGV[1], ARGV[2])\n  return 1\nend\nreturn 0"
	readLua    = "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])"
	writeLua   = "#!lua\nreturn redis.call('set', KEYS[1], ARGV[1])"
	staleLua   = "#!lua flags=no-writes,allow-stale\nreturn redis.call('get', KEYS[1])"
	library    = "#!lua name=servererrtest\nredis.register_function('lockset', function(keys, args) return redis.call('set', keys[1], args[1]) end)\nredis.register_function{function_name='lockget', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes'}}"
	spinLua    = "while true do end"
	spinLibLua = "#!lua name=servererrspin\nredis.register_function{function_name='spin', callback=function() while true do end end, flags={'no-writes'}}"
)

func sha(body string) string { return parseScript(body).sha }

// seq is commands sent on one connection: pre before the state begins,
// post while it is on.
type seq struct {
	name      string
	pre, post []Command
}

func cmd(args ...string) Command { return Command(args) }

// corpus is what the differential tests send: every command of the
// table a lock uses, alone, and the transactions locks send, some begun
// before the state.
func corpus(k string) []seq {
	c, h, z := k+":c", k+":h", k+":z"
	singles := []Command{
		cmd("SET", k, "v", "NX", "PX", "30000"), cmd("SET", k, "v"), cmd("GET", k),
		cmd("SETNX", k, "v"), cmd("SETEX", k, "10", "v"), cmd("PSETEX", k, "10000", "v"),
		cmd("GETSET", k, "v"), cmd("GETDEL", k), cmd("EXISTS", k),
		cmd("DEL", k), cmd("UNLINK", k), cmd("EXPIRE", k, "10"), cmd("PEXPIRE", k, "10000"),
		cmd("PEXPIREAT", k, "99999999999999"), cmd("PERSIST", k), cmd("TTL", k), cmd("PTTL", k),
		cmd("INCR", c), cmd("DECR", c), cmd("INCRBY", c, "2"),
		cmd("HSET", h, "f", "v"), cmd("HSETNX", h, "g", "v"), cmd("HGET", h, "f"), cmd("HGETALL", h),
		cmd("HINCRBY", h, "n", "1"), cmd("HDEL", h, "f"), cmd("HLEN", h),
		cmd("ZADD", z, "1", "m"), cmd("ZREM", z, "m"), cmd("ZRANGEBYSCORE", z, "-inf", "+inf"),
		cmd("ZCARD", z), cmd("ZSCORE", z, "m"), cmd("ZREMRANGEBYSCORE", z, "-inf", "0"),
		cmd("WATCH", k), cmd("UNWATCH"), cmd("DISCARD"), cmd("EXEC"),
		// EVALSHA first: while the cache is empty, before EVAL sends
		// the script again.
		cmd("EVALSHA", sha(releaseLua), "1", k, "v"), cmd("EVALSHA", sha(acquireLua), "1", k, "v", "30000"),
		cmd("EVALSHA", strings.ToUpper(sha(readLua)), "1", k),
		cmd("EVAL", releaseLua, "1", k, "v"), cmd("EVAL", acquireLua, "1", k, "v", "30000"),
		cmd("EVAL", refreshLua, "1", k, "v", "30000"), cmd("EVAL", semLua, "1", z, "5", "m"),
		cmd("EVAL", readLua, "1", k), cmd("EVAL", writeLua, "1", k, "v"), cmd("EVAL", staleLua, "1", k),
		cmd("EVAL_RO", "return redis.call('get', KEYS[1])", "1", k),
		cmd("SCRIPT", "LOAD", releaseLua), cmd("SCRIPT", "EXISTS", sha(releaseLua)),
		cmd("FCALL", "lockset", "1", k, "v"), cmd("FCALL", "lockget", "1", k), cmd("FCALL_RO", "lockget", "1", k),
		cmd("PING"), cmd("ECHO", "x"), cmd("TIME"), cmd("AUTH", "nopassword"), cmd("HELLO", "2"),
		cmd("SELECT", "0"), cmd("CLIENT", "SETNAME", "servererr"), cmd("CLIENT", "GETNAME"),
		cmd("CLIENT", "ID"), cmd("CLIENT", "INFO"), cmd("CLIENT", "TRACKING", "off"),
		cmd("PUBLISH", k, "m"), cmd("WAIT", "0", "0"), cmd("RESET"),
	}
	multi, exec := cmd("MULTI"), cmd("EXEC")
	// First, while the cache is empty: an EVALSHA queued, which meets
	// NOSCRIPT only when EXEC runs it.
	out := []seq{{name: "multi evalsha refresh exec", post: []Command{multi, cmd("EVALSHA", sha(refreshLua), "1", k, "v", "30000"), exec}}}
	for _, s := range singles {
		out = append(out, seq{name: s.Name(), post: []Command{s}})
	}
	return append(out,
		seq{name: "subscribe", post: []Command{cmd("SUBSCRIBE", k), cmd("UNSUBSCRIBE", k)}},
		seq{name: "multi set get exec", post: []Command{multi, cmd("SET", k, "v"), cmd("GET", k), exec}},
		seq{name: "watch release", post: []Command{cmd("WATCH", k), cmd("GET", k), multi, cmd("DEL", k), exec}},
		seq{name: "multi get exec", post: []Command{multi, cmd("GET", k), exec}},
		seq{name: "multi time exec", post: []Command{multi, cmd("TIME"), exec}},
		seq{name: "multi eval exec", post: []Command{multi, cmd("EVAL", acquireLua, "1", k, "v", "30000"), exec}},
		seq{name: "multi evalsha exec", post: []Command{multi, cmd("EVALSHA", sha(releaseLua), "1", k, "v"), exec}},
		seq{name: "multi discard", post: []Command{multi, cmd("SET", k, "v"), cmd("DISCARD")}},
		seq{name: "multi watch exec", post: []Command{multi, cmd("WATCH", k), cmd("PING"), exec}},
		seq{name: "queued set, then exec", pre: []Command{multi, cmd("SET", k, "v")}, post: []Command{exec}},
		seq{name: "queued get, then exec", pre: []Command{multi, cmd("GET", k)}, post: []Command{exec}},
		seq{name: "queued time, then exec", pre: []Command{multi, cmd("TIME")}, post: []Command{exec}},
		seq{name: "queued eval, then exec", pre: []Command{multi, cmd("EVAL", acquireLua, "1", k, "v", "30000")}, post: []Command{exec}},
		seq{name: "queued evalsha, then exec", pre: []Command{multi, cmd("EVALSHA", sha(releaseLua), "1", k, "v")}, post: []Command{exec}},
		seq{name: "watched, then release", pre: []Command{cmd("WATCH", k), cmd("GET", k)}, post: []Command{multi, cmd("DEL", k), exec}},
	)
}

// rig puts a real server into a state and takes it out.
type rig struct {
	state State
	extra []string // redis-server's arguments
	// begin puts srv in the state; end takes it out, and fails when the
	// state had ended before.
	begin func(t *testing.T, srv *redistest.Server) (end func())
}

// dial opens a connection without read timeout, for a command that
// blocks while the state lasts.
func dial(t *testing.T, srv *redistest.Server) redis.Conn {
	t.Helper()
	c, err := redis.Dial("tcp", srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func do(t *testing.T, c redis.Conn, args ...any) any {
	t.Helper()
	name, _ := args[0].(string)
	v, err := c.Do(name, args[1:]...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

// waitFor polls until ok or fails the test after a while.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 10s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func info(t *testing.T, srv *redistest.Server, section, field string) string {
	t.Helper()
	v, err := srv.Info(context.Background(), section, field)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

var rigs = []rig{
	{state: OOM, begin: func(t *testing.T, srv *redistest.Server) func() {
		c := dial(t, srv)
		do(t, c, "CONFIG", "SET", "maxmemory-policy", "noeviction")
		do(t, c, "CONFIG", "SET", "maxmemory", "1")
		return func() {
			do(t, c, "CONFIG", "SET", "maxmemory", "0")
			c.Close()
		}
	}},
	{state: Busy, extra: []string{"--busy-reply-threshold", "50"}, begin: func(t *testing.T, srv *redistest.Server) func() {
		return spin(t, srv, "SCRIPT", func(c redis.Conn) error { _, err := c.Do("EVAL", spinLua, "0"); return err })
	}},
	{state: BusyFunction, extra: []string{"--busy-reply-threshold", "50"}, begin: func(t *testing.T, srv *redistest.Server) func() {
		c := dial(t, srv)
		do(t, c, "FUNCTION", "LOAD", "REPLACE", spinLibLua)
		c.Close()
		return spin(t, srv, "FUNCTION", func(c redis.Conn) error { _, err := c.Do("FCALL", "spin", "0"); return err })
	}},
	{state: Loading, extra: []string{"--enable-debug-command", "local"}, begin: func(t *testing.T, srv *redistest.Server) func() {
		c := dial(t, srv)
		do(t, c, "DEBUG", "POPULATE", "8000", "servererr-fill")
		do(t, c, "CONFIG", "SET", "loading-process-events-interval-bytes", "1024")
		do(t, c, "CONFIG", "SET", "key-load-delay", "500")
		done := make(chan error, 1)
		go func() { _, err := c.Do("DEBUG", "RELOAD"); done <- err }()
		waitFor(t, "loading", func() bool { return info(t, srv, "persistence", "loading") == "1" })
		return func() {
			if info(t, srv, "persistence", "loading") != "1" {
				t.Errorf("the server had ended loading before the corpus was done")
			}
			if err := <-done; err != nil {
				t.Errorf("DEBUG RELOAD: %v", err)
			}
			c.Close()
		}
	}},
	{state: MasterDown, begin: func(t *testing.T, srv *redistest.Server) func() {
		c := dial(t, srv)
		do(t, c, "CONFIG", "SET", "replica-serve-stale-data", "no")
		// Port 1 on loopback refuses: the link never comes up.
		do(t, c, "REPLICAOF", "127.0.0.1", "1")
		waitFor(t, "a replica", func() bool { return info(t, srv, "replication", "role") == "slave" })
		return func() {
			if s := info(t, srv, "replication", "master_link_status"); s != "down" {
				t.Errorf("master_link_status = %q, wanted down", s)
			}
			do(t, c, "REPLICAOF", "NO", "ONE")
			c.Close()
		}
	}},
	{state: ScriptsFlushed, begin: func(t *testing.T, srv *redistest.Server) func() {
		c := dial(t, srv)
		do(t, c, "SCRIPT", "FLUSH")
		return func() { c.Close() }
	}},
}

// spin runs a script or function that loops until killed (kill is
// SCRIPT or FUNCTION), and waits until the server answers BUSY.
func spin(t *testing.T, srv *redistest.Server, kill string, run func(redis.Conn) error) func() {
	c := dial(t, srv)
	done := make(chan error, 1)
	go func() { done <- run(c) }()
	probe := dial(t, srv)
	waitFor(t, "busy", func() bool {
		_, err := probe.Do("PING")
		return err != nil && strings.HasPrefix(err.Error(), "BUSY")
	})
	return func() {
		// KILL answers NOTBUSY when nothing runs: the state had ended.
		if _, err := probe.Do(kill, "KILL"); err != nil {
			t.Errorf("%s KILL: %v", kill, err)
		}
		if err := <-done; err == nil {
			t.Errorf("the killed %s returned no error", kill)
		}
		probe.Close()
		c.Close()
	}
}

// TestStatesOnServer puts a real server in each state and sends the
// corpus; the model, in the same state, must predict each reply: the
// error the server gives, or that it gives none of the states' errors.
func TestStatesOnServer(t *testing.T) {
	for _, r := range append([]rig{{}}, rigs...) {
		name := "none"
		if r.state != 0 {
			name = r.state.String()
		}
		t.Run(name, func(t *testing.T) { testState(t, r) })
	}
}

func testState(t *testing.T, r rig) {
	ctx := context.Background()
	srv, err := redistest.StartProcess(ctx, r.extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	v, err := ParseVersion(srv.Version)
	if err != nil {
		t.Fatal(err)
	}
	model := &Server{Version: v}
	// What every run starts with: the scripts and the library loaded.
	setup := dial(t, srv)
	mc := model.NewConn()
	for _, c := range []Command{cmd("SCRIPT", "LOAD", releaseLua), cmd("SCRIPT", "LOAD", acquireLua),
		cmd("SCRIPT", "LOAD", refreshLua), cmd("SCRIPT", "LOAD", readLua), cmd("FUNCTION", "LOAD", "REPLACE", library)} {
		mc.Answer(c)
		do(t, setup, anys(c)...)
	}
	setup.Close()

	seqs := corpus("servererr")
	conns := make([]redis.Conn, len(seqs))
	models := make([]*Conn, len(seqs))
	for i, s := range seqs {
		conns[i], models[i] = dial(t, srv), model.NewConn()
		defer conns[i].Close()
		for _, c := range s.pre {
			models[i].Answer(c)
			if _, err := conns[i].Do(c[0], anyArgs(c[1:])...); err != nil {
				t.Fatalf("%s: before the state, %v: %v", s.name, c, err)
			}
		}
	}
	if r.state != 0 {
		end := r.begin(t, srv)
		model.Begin(r.state)
		defer end()
	}
	refused := 0
	for i, s := range seqs {
		c := conns[i]
		for _, x := range s.post {
			if err := c.Send(x[0], anyArgs(x[1:])...); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		for _, x := range s.post {
			got, err := c.Receive()
			if e := (redis.Error("")); err != nil && !errors.As(err, &e) {
				t.Fatalf("%s: %v: %v", s.name, x, err)
			}
			want := models[i].Answer(x)
			if want.Reply != "" || want.Elements != nil {
				refused++
			}
			if msg := compare(x, want, got, err); msg != "" {
				t.Errorf("%s: %s", s.name, msg)
			}
		}
	}
	t.Logf("%s: the server refused %d commands as the model said", srv, refused)
}

// stateCodes are the codes of the errors the model gives.
var stateCodes = []string{"LOADING", "BUSY", "MASTERDOWN", "READONLY", "OOM", "NOSCRIPT", "EXECABORT"}

// isStateErr says whether an error reply is one the states give.
func isStateErr(s string) bool {
	code, _, _ := strings.Cut(s, " ")
	for _, c := range stateCodes {
		if code == c {
			return true
		}
	}
	return false
}

// compare says how the server's reply to x (v, or the error reply err)
// differs from the model's answer, or "".
func compare(x Command, want Answer, v any, err error) string {
	if want.Reply != "" {
		if err == nil || err.Error() != want.Reply {
			return fmt.Sprintf("%s = %v, %v; the model says %q", x.Name(), v, err, want.Reply)
		}
		return ""
	}
	if err != nil {
		if isStateErr(err.Error()) {
			return fmt.Sprintf("%s = %v; the model says it runs", x.Name(), err)
		}
		return ""
	}
	if !x.is("exec") {
		return ""
	}
	elems, _ := v.([]any)
	for i, e := range elems {
		w := ""
		if want.Elements != nil {
			w = want.Elements[i]
		}
		got, isErr := e.(redis.Error)
		switch {
		case w != "" && (!isErr || got.Error() != w):
			return fmt.Sprintf("EXEC's element %d = %v; the model says %q", i, e, w)
		case w == "" && isErr && isStateErr(got.Error()):
			return fmt.Sprintf("EXEC's element %d = %v; the model says it runs", i, e)
		}
	}
	if want.Elements != nil && len(elems) != len(want.Elements) {
		return fmt.Sprintf("EXEC = %v; the model says %d elements", v, len(want.Elements))
	}
	return ""
}

func anyArgs(s []string) []any {
	out := make([]any, len(s))
	for i, a := range s {
		out[i] = a
	}
	return out
}

func anys(c Command) []any { return anyArgs(c) }
