package servererr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/locklab/locklab/redistest"
)

// The scripts the corpus runs: as locks write them, without shebang,
// and others.
const (
	releaseLua = "if redis.call('get', KEYS[1]) == ARGV[1] then\n  return redis.call('del', KEYS[1])\nend\nreturn 0"
	acquireLua = "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end\nreturn 0"
	refreshLua = "if redis.call('get', KEYS[1]) == ARGV[1] then\n  return redis.call('pexpire', KEYS[1], ARGV[2])\nend\nreturn 0"
	// A semaphore's acquire: its first write (ZREMRANGEBYSCORE) does not
	// grow memory, so its ZADD is never refused for memory.
	semLua = "redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1])\nif redis.call('zcard', KEYS[1]) < 2 then\n  redis.call('zadd', KEYS[1], ARGV[1], ARGV[2])\n  return 1\nend\nreturn 0"
	// A write through pcall: refused, the script goes on.
	pcallLua = "local r = redis.pcall('set', KEYS[1], 'v')\nif type(r) == 'table' and r.err then return 'refused: ' .. r.err end\nreturn r"
	// A write that grows no memory, then one that does, which past
	// maxmemory runs all the same.
	delSetLua = "redis.call('del', KEYS[1])\nreturn redis.call('set', KEYS[1], 'v')"
	// Scripts that declare flags.
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
	// queuedScript: pre queues a script, which a state that stops
	// writes would fail as EXEC runs it; the model does not see that.
	queuedScript bool
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
		cmd("SCRIPT", "LOAD", releaseLua),
		cmd("FCALL", "lockset", "1", k, "v"), cmd("FCALL", "lockget", "1", k), cmd("FCALL_RO", "lockget", "1", k),
		cmd("PING"), cmd("ECHO", "x"), cmd("TIME"), cmd("AUTH", "nopassword"), cmd("HELLO", "2"),
		cmd("SELECT", "0"), cmd("CLIENT", "SETNAME", "servererr"), cmd("CLIENT", "GETNAME"),
		cmd("CLIENT", "ID"), cmd("CLIENT", "INFO"), cmd("CLIENT", "TRACKING", "off"),
		cmd("PUBLISH", k, "m"), cmd("WAIT", "0", "0"), cmd("RESET"),
		// The rest of the table.
		cmd("MGET", k, c), cmd("HMGET", h, "f"), cmd("HEXISTS", h, "f"), cmd("ZRANGE", z, "0", "-1"),
		cmd("ZRANK", z, "m"), cmd("ZREMRANGEBYRANK", z, "5", "6"), cmd("EXPIREAT", k, "99999999999"), cmd("DECRBY", c, "2"),
		cmd("SADD", k+":set", "m"), cmd("SREM", k+":set", "n"), cmd("SCARD", k+":set"), cmd("SISMEMBER", k+":set", "m"),
		cmd("SMEMBERS", k+":set"), cmd("LPUSH", k+":l", "a"), cmd("RPUSH", k+":l", "b"), cmd("LREM", k+":l", "0", "c"),
		cmd("LLEN", k+":l"), cmd("LRANGE", k+":l", "0", "-1"), cmd("LPOP", k+":l"), cmd("RPOP", k+":l"),
		cmd("BLPOP", k+":l", "0.01"), cmd("BRPOPLPUSH", k+":l", k+":l2", "0.01"),
		cmd("EVALSHA_RO", sha(readLua), "1", k), cmd("INFO", "server"), cmd("CLIENT", "NO-EVICT", "on"),
		cmd("CLIENT", "SETINFO", "lib-name", "servererr"),
		// Not SCRIPT KILL or FUNCTION KILL: on a busy server they end
		// the state, which the fault layer ends in the model.
	}
	// ECHO after EXEC shows whether the connection left MULTI.
	multi, exec, echo := cmd("MULTI"), cmd("EXEC"), cmd("ECHO", "after")
	// First, while the cache is empty: an EVALSHA queued, which meets
	// NOSCRIPT only when EXEC runs it.
	out := []seq{{name: "multi evalsha refresh exec", post: []Command{multi, cmd("EVALSHA", sha(refreshLua), "1", k, "v", "30000"), exec}}}
	for _, s := range singles {
		out = append(out, seq{name: s.Name(), post: []Command{s}})
	}
	return append(out,
		seq{name: "subscribe", post: []Command{cmd("SUBSCRIBE", k), cmd("UNSUBSCRIBE", k)}},
		seq{name: "psubscribe", post: []Command{cmd("PSUBSCRIBE", k+"*"), cmd("PUNSUBSCRIBE", k+"*")}},
		seq{name: "quit", post: []Command{cmd("QUIT")}},
		seq{name: "multi set get exec", post: []Command{multi, cmd("SET", k, "v"), cmd("GET", k), exec, echo}},
		seq{name: "watch release", post: []Command{cmd("WATCH", k), cmd("GET", k), multi, cmd("DEL", k), exec, echo}},
		seq{name: "multi get exec", post: []Command{multi, cmd("GET", k), exec}},
		seq{name: "multi time exec", post: []Command{multi, cmd("TIME"), exec}},
		seq{name: "multi eval exec", post: []Command{multi, cmd("EVAL", acquireLua, "1", k, "v", "30000"), exec, echo}},
		seq{name: "multi evalsha exec", post: []Command{multi, cmd("EVALSHA", sha(releaseLua), "1", k, "v"), exec, echo}},
		seq{name: "multi discard", post: []Command{multi, cmd("SET", k, "v"), cmd("DISCARD")}},
		seq{name: "multi watch exec", post: []Command{multi, cmd("WATCH", k), cmd("PING"), exec}},
		seq{name: "queued set, then exec", pre: []Command{multi, cmd("SET", k, "v")}, post: []Command{exec}},
		seq{name: "queued get, then exec", pre: []Command{multi, cmd("GET", k)}, post: []Command{exec}},
		seq{name: "queued time, then exec", pre: []Command{multi, cmd("TIME")}, post: []Command{exec}},
		// Scripts whose path depends on the data: the server refuses
		// a write only if the script gets there.
		seq{name: "release, token matches", pre: []Command{cmd("SET", k+":r1", "tok")}, post: []Command{cmd("EVAL", releaseLua, "1", k+":r1", "tok"), cmd("GET", k+":r1")}},
		seq{name: "release, token differs", pre: []Command{cmd("SET", k+":r2", "tok")}, post: []Command{cmd("EVAL", releaseLua, "1", k+":r2", "other"), cmd("GET", k+":r2")}},
		seq{name: "refresh, token matches", pre: []Command{cmd("SET", k+":r3", "tok")}, post: []Command{cmd("EVALSHA", sha(refreshLua), "1", k+":r3", "tok", "60000"), cmd("GET", k+":r3")}},
		seq{name: "semaphore acquire", post: []Command{cmd("EVAL", semLua, "1", k+":s", "5", "m"), cmd("ZCARD", k+":s")}},
		seq{name: "pcall of a write", post: []Command{cmd("EVAL", pcallLua, "1", k+":p"), cmd("GET", k+":p")}},
		seq{name: "a write that grows no memory first", post: []Command{cmd("EVAL", delSetLua, "1", k+":d"), cmd("GET", k+":d")}},
		seq{name: "watched, then release", pre: []Command{cmd("WATCH", k), cmd("GET", k)}, post: []Command{multi, cmd("DEL", k), exec}},
		// What the model cannot do: a script queued before the state
		// began meets it as EXEC runs it, and the server behind a
		// fault layer has queued it as it was. Last, on keys of their
		// own, so that what they leave differing touches nothing else.
		seq{name: "queued eval, then exec", pre: []Command{multi, cmd("EVAL", acquireLua, "1", k+":q1", "v", "30000")}, post: []Command{exec}, queuedScript: true},
		seq{name: "queued evalsha, then exec", pre: []Command{multi, cmd("EVALSHA", sha(acquireLua), "1", k+":q2", "v", "30000")}, post: []Command{exec}, queuedScript: true},
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
		do(t, c, "DEBUG", "POPULATE", "40000", "servererr-fill")
		do(t, c, "CONFIG", "SET", "loading-process-events-interval-bytes", "1024")
		do(t, c, "CONFIG", "SET", "key-load-delay", "500")
		done := make(chan error, 1)
		go func() { _, err := c.Do("DEBUG", "RELOAD"); done <- err }()
		waitFor(t, "loading", func() bool { return info(t, srv, "persistence", "loading") == "1" })
		return func() {
			if info(t, srv, "persistence", "loading") != "1" {
				t.Errorf("the server had ended loading before the corpus was done")
			}
			// The rest loads at full speed.
			p := dial(t, srv)
			do(t, p, "CONFIG", "SET", "key-load-delay", "0")
			p.Close()
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
	{state: DiskError, extra: []string{"--enable-protected-configs", "yes"}, begin: func(t *testing.T, srv *redistest.Server) func() {
		// A background save into a directory removed under the
		// server fails.
		dir := filepath.Join(t.TempDir(), "gone")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		c := dial(t, srv)
		do(t, c, "CONFIG", "SET", "dir", dir)
		do(t, c, "CONFIG", "SET", "save", "3600 1")
		if err := os.Remove(dir); err != nil {
			t.Fatal(err)
		}
		do(t, c, "BGSAVE")
		waitFor(t, "a failed save", func() bool { return info(t, srv, "persistence", "rdb_last_bgsave_status") == "err" })
		return func() {
			if s := info(t, srv, "persistence", "rdb_last_bgsave_status"); s != "err" {
				t.Errorf("rdb_last_bgsave_status = %q, wanted err", s)
			}
			do(t, c, "CONFIG", "SET", "save", "")
			c.Close()
		}
	}},
	{state: NoReplicas, begin: func(t *testing.T, srv *redistest.Server) func() {
		c := dial(t, srv)
		do(t, c, "CONFIG", "SET", "min-replicas-to-write", "1")
		return func() {
			do(t, c, "CONFIG", "SET", "min-replicas-to-write", "0")
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

// TestStatesOnServer checks the model against a real server in each
// state. Two servers get the same corpus: one put in the state, and a
// twin that never is, behind the model acting as a fault layer would
// (an error reply in the server's place, DISCARD for an aborted EXEC, a
// command instead of another). Each reply must be the same from both:
// the same error, or the same value (for commands whose value changes
// from run to run, TIME, PTTL..., whether it is an error).
func TestStatesOnServer(t *testing.T) {
	for _, r := range append([]rig{{}}, rigs...) {
		name := "none"
		if r.state != 0 {
			name = r.state.String()
		}
		t.Run(name, func(t *testing.T) { testState(t, r) })
	}
}

func start(t *testing.T, extra ...string) *redistest.Server {
	t.Helper()
	srv, err := redistest.StartProcess(context.Background(), extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func testState(t *testing.T, r rig) {
	srv, twin := start(t, r.extra...), start(t)
	v, err := ParseVersion(srv.Version)
	if err != nil {
		t.Fatal(err)
	}
	model := &Server{Version: v}
	// What every run starts with: the scripts and the library loaded.
	for _, s := range []*redistest.Server{srv, twin} {
		c := dial(t, s)
		for _, x := range []Command{cmd("SCRIPT", "LOAD", releaseLua), cmd("SCRIPT", "LOAD", acquireLua),
			cmd("SCRIPT", "LOAD", refreshLua), cmd("SCRIPT", "LOAD", readLua), cmd("FUNCTION", "LOAD", "REPLACE", library)} {
			do(t, c, anyArgs(x)...)
			if s == twin {
				model.NewConn().Answer(x)
			}
		}
		c.Close()
	}

	seqs := corpus("servererr")
	conns := make([]redis.Conn, len(seqs))
	twins := make([]redis.Conn, len(seqs))
	models := make([]*Conn, len(seqs))
	for i, s := range seqs {
		conns[i], twins[i], models[i] = dial(t, srv), dial(t, twin), model.NewConn()
		defer conns[i].Close()
		defer twins[i].Close()
		for _, x := range s.pre {
			if _, err := conns[i].Do(x[0], anyArgs(x[1:])...); err != nil {
				t.Fatalf("%s: before the state, %v: %v", s.name, x, err)
			}
			if _, err := faultLayer(twins[i], models[i].Answer(x), x); err != nil {
				t.Fatalf("%s: before the state, on the twin, %v: %v", s.name, x, err)
			}
		}
	}
	if r.state != 0 {
		end := r.begin(t, srv)
		model.Begin(r.state)
		defer end()
	}
	stepped := 0
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
		queued := slices.Clone(s.pre)
		for _, x := range s.post {
			got, err := c.Receive()
			if e := (redis.Error("")); err != nil && !errors.As(err, &e) {
				t.Fatalf("%s: %v: %v", s.name, x, err)
			}
			a := models[i].Answer(x)
			if a.Reply != "" || a.Instead != nil {
				stepped++
			}
			want, werr := faultLayer(twins[i], a, x)
			if e := (redis.Error("")); werr != nil && !errors.As(werr, &e) {
				t.Fatalf("%s: on the twin, %v: %v", s.name, x, werr)
			}
			queued = append(queued, x)
			if s.queuedScript && stopsWrites(r.state) {
				t.Logf("%s: %s: not compared (the model's limit): the server in the state gives %s, the twin %s", s.name, x.Name(), show(reply{got, err}), show(reply{want, werr}))
				continue
			}
			if msg := same(queued, reply{got, err}, reply{want, werr}); msg != "" {
				t.Errorf("%s: %s: the server in the state gives %s, the twin behind the model %s", s.name, x.Name(), msg, show(reply{want, werr}))
			}
		}
	}
	t.Logf("%s: the model answered %d commands, or sent others instead", srv, stepped)
}

// stopsWrites says whether a script that writes meets s as it runs.
func stopsWrites(s State) bool {
	return s == OOM || s == MasterDown || s == DiskError || s == NoReplicas
}

// faultLayer does with x, on c, what a answers: an error reply in the
// server's place (and DISCARD to the server for an aborted EXEC), or x
// or the command instead of it, sent.
func faultLayer(c redis.Conn, a Answer, x Command) (any, error) {
	if a.Reply != "" {
		if a.Discard {
			if _, err := c.Do("DISCARD"); err != nil {
				return nil, fmt.Errorf("DISCARD: %w", err)
			}
		}
		return nil, redis.Error(a.Reply)
	}
	if a.Instead != nil {
		x = a.Instead
	}
	return c.Do(x[0], anyArgs(x[1:])...)
}

// reply is a reply as redigo reads it: a value, or an error reply.
type reply struct {
	v   any
	err error
}

func show(r reply) string {
	if r.err != nil {
		return fmt.Sprintf("error %q", r.err)
	}
	return fmt.Sprintf("%q", fmt.Sprint(readable(r.v)))
}

// readable is v with its bulk strings as strings.
func readable(v any) any {
	switch v := v.(type) {
	case []byte:
		return string(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = readable(e)
		}
		return out
	}
	return v
}

// volatile are the commands whose value changes from one server or run
// to another.
var volatile = []string{"time", "client|id", "client|info", "hello", "pttl", "ttl", "info"}

// where is the end of a script's error naming the script and its line:
// a script behind the shim names the shim's.
var where = regexp.MustCompile(` script: [0-9a-f]{40}, on @user_script:[0-9]+\.$`)

// same says how got differs from want, the replies to the last command
// of sent (those before it, to tell what an EXEC ran), or "".
func same(sent []Command, got, want reply) string {
	x := sent[len(sent)-1]
	if got.err != nil || want.err != nil {
		if got.err == nil || want.err == nil ||
			where.ReplaceAllString(got.err.Error(), "") != where.ReplaceAllString(want.err.Error(), "") {
			return show(got)
		}
		return ""
	}
	if x.is(volatile...) {
		return ""
	}
	if !x.is("exec") {
		if !reflect.DeepEqual(got.v, want.v) {
			return show(got)
		}
		return ""
	}
	// EXEC: each element against the command it answers.
	var ran []Command
	for i := len(sent) - 2; i >= 0 && !sent[i].is("multi"); i-- {
		ran = append([]Command{sent[i]}, ran...)
	}
	g, _ := got.v.([]any)
	w, _ := want.v.([]any)
	if len(g) != len(w) || (got.v == nil) != (want.v == nil) {
		return show(got)
	}
	for i := range g {
		ge, gIsErr := g[i].(redis.Error)
		we, wIsErr := w[i].(redis.Error)
		if gIsErr || wIsErr {
			if !gIsErr || !wIsErr || where.ReplaceAllString(ge.Error(), "") != where.ReplaceAllString(we.Error(), "") {
				return show(got)
			}
			continue
		}
		if i < len(ran) && ran[i].is(volatile...) {
			continue
		}
		if !reflect.DeepEqual(g[i], w[i]) {
			return show(got)
		}
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
