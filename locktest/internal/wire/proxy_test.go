package wire_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest/internal/wire"
	"github.com/locklab/locklab/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// log records what the hooks see, one line per call.
type log struct {
	mu    sync.Mutex
	lines []string
	cmds  []*wire.Command
}

func (l *log) hooks() wire.Hooks {
	return wire.Hooks{
		After: func(cmd *wire.Command, reply wire.Value, err error) {
			l.mu.Lock()
			defer l.mu.Unlock()
			line := fmt.Sprintf("%d#%d %s -> %s", cmd.Conn.ID, cmd.Seq, cmd, reply)
			if cmd.InMulti {
				line += " (multi)"
			}
			if err != nil {
				line += " !" + err.Error()
			}
			l.lines = append(l.lines, line)
			l.cmds = append(l.cmds, cmd)
		},
		Push: func(c *wire.Conn, v wire.Value) {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.lines = append(l.lines, fmt.Sprintf("%d push %s", c.ID, v))
		},
	}
}

func (l *log) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// waitLines waits until n lines are logged: After runs just before the
// client gets its reply, but a command failed on a closed connection may
// be logged a moment after the client saw the failure.
func (l *log) waitLines(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		lines := l.get()
		if len(lines) >= n || time.Now().After(deadline) {
			return lines
		}
		time.Sleep(time.Millisecond)
	}
}

func wantLines(t *testing.T, l *log, want ...string) {
	t.Helper()
	got := l.waitLines(t, len(want))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the hooks saw:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func start(t testing.TB, hooks wire.Hooks) *wire.Proxy {
	t.Helper()
	srv := redistest.Shared(t)
	p, err := wire.Listen(wire.Config{Addr: srv.Addr, Hooks: hooks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t testing.TB, p *wire.Proxy) redis.Conn {
	t.Helper()
	c, err := redis.Dial("tcp", p.Addr(), redis.DialReadTimeout(10*time.Second), redis.DialWriteTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// direct is a connection straight to Redis, to look behind the proxy.
func direct(t testing.TB) redis.Conn {
	t.Helper()
	c := redistest.Pool(t).Get()
	t.Cleanup(func() { c.Close() })
	return c
}

// must returns v, and panics (failing the test) when err is not nil.
func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("unexpected error: %v", err))
	}
	return v
}

func TestPlainCommands(t *testing.T) {
	var l log
	c := dial(t, start(t, l.hooks()))
	key := redistest.Key(t)
	if got := must(redis.String(c.Do("SET", key, "v1"))); got != "OK" {
		t.Fatalf("SET = %q", got)
	}
	if got := must(redis.String(c.Do("GET", key))); got != "v1" {
		t.Fatalf("GET = %q", got)
	}
	if got := must(redis.Int(c.Do("INCR", key+":n"))); got != 1 {
		t.Fatalf("INCR = %d", got)
	}
	if _, err := c.Do("INCR", key); err == nil || !strings.Contains(err.Error(), "not an integer") {
		t.Fatalf("INCR of a string: err = %v", err)
	}
	if got := must(redis.Int(c.Do("DEL", key, key+":n"))); got != 2 {
		t.Fatalf("DEL = %d", got)
	}
	if _, err := redis.String(c.Do("GET", key)); err != redis.ErrNil {
		t.Fatalf("GET of a deleted key: err = %v", err)
	}
	wantLines(t, &l,
		"1#1 SET "+key+" v1 -> OK",
		"1#2 GET "+key+" -> v1",
		"1#3 INCR "+key+":n -> 1",
		"1#4 INCR "+key+" -> error: ERR value is not an integer or out of range",
		"1#5 DEL "+key+" "+key+":n -> 2",
		"1#6 GET "+key+" -> (nil)",
	)
}

func TestPipeline(t *testing.T) {
	var l log
	c := dial(t, start(t, l.hooks()))
	key := redistest.Key(t)
	const n = 100
	for i := range n {
		if err := c.Send("RPUSH", key, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range n {
		if got := must(redis.Int(c.Receive())); got != i+1 {
			t.Fatalf("reply %d = %d, want %d", i, got, i+1)
		}
		want = append(want, fmt.Sprintf("1#%d RPUSH %s %d -> %d", i+1, key, i, i+1))
	}
	items := must(redis.Ints(c.Do("LRANGE", key, 0, -1)))
	for i, v := range items {
		if v != i {
			t.Fatalf("the list is %v: commands were reordered", items)
		}
	}
	c.Do("DEL", key)
	want = append(want, "1#101 LRANGE "+key+" 0 -1 -> [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99]",
		"1#102 DEL "+key+" -> 1")
	wantLines(t, &l, want...)
}

func TestMultiExec(t *testing.T) {
	var l log
	c := dial(t, start(t, l.hooks()))
	key := redistest.Key(t)
	must(c.Do("MULTI"))
	if got := must(redis.String(c.Do("INCR", key))); got != "QUEUED" {
		t.Fatalf("INCR in MULTI = %q", got)
	}
	must(c.Do("INCRBY", key, 10))
	if got := must(redis.Ints(c.Do("EXEC"))); len(got) != 2 || got[0] != 1 || got[1] != 11 {
		t.Fatalf("EXEC = %v", got)
	}
	// The same, pipelined, with a DISCARD.
	c.Send("MULTI")
	c.Send("INCR", key)
	c.Send("DISCARD")
	c.Send("GET", key)
	c.Flush()
	for range 3 {
		must(c.Receive())
	}
	if got := must(redis.Int(c.Receive())); got != 11 {
		t.Fatalf("GET after DISCARD = %d", got)
	}
	c.Do("DEL", key)
	wantLines(t, &l,
		"1#1 MULTI -> OK",
		"1#2 INCR "+key+" -> QUEUED (multi)",
		"1#3 INCRBY "+key+" 10 -> QUEUED (multi)",
		"1#4 EXEC -> [1, 11]",
		"1#5 MULTI -> OK",
		"1#6 INCR "+key+" -> QUEUED (multi)",
		"1#7 DISCARD -> OK",
		"1#8 GET "+key+" -> 11",
		"1#9 DEL "+key+" -> 1",
	)
}

func TestScriptNoscriptFallback(t *testing.T) {
	var l log
	c := dial(t, start(t, l.hooks()))
	key := redistest.Key(t)
	// A script Redis cannot have cached: its body names this run's key.
	body := fmt.Sprintf("-- %s\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])", key)
	s := redis.NewScript(1, body)
	if got := must(redis.Int(s.Do(c, key, 5))); got != 5 {
		t.Fatalf("first run = %d", got)
	}
	if got := must(redis.Int(s.Do(c, key, 5))); got != 10 {
		t.Fatalf("second run = %d", got)
	}
	c.Do("DEL", key)
	lines := l.waitLines(t, 4)
	var names []string
	for _, cmd := range l.cmds {
		names = append(names, cmd.Name())
	}
	if strings.Join(names, " ") != "EVALSHA EVAL EVALSHA DEL" {
		t.Fatalf("commands: %v\n%s", names, strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[0], "-> error: NOSCRIPT") || !strings.HasSuffix(lines[1], "-> 5") || !strings.HasSuffix(lines[2], "-> 10") {
		t.Fatalf("replies:\n%s", strings.Join(lines, "\n"))
	}
}

func TestPubSub(t *testing.T) {
	var l log
	p := start(t, l.hooks())
	ch := redistest.Key(t)
	psc := redis.PubSubConn{Conn: dial(t, p)}
	if err := psc.Subscribe(ch, ch+":b"); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if s, ok := psc.Receive().(redis.Subscription); !ok || s.Count != i+1 {
			t.Fatalf("subscription %d: %v", i, s)
		}
	}
	pub := direct(t)
	if n := must(redis.Int(pub.Do("PUBLISH", ch, "hello"))); n != 1 {
		t.Fatalf("PUBLISH reached %d subscribers", n)
	}
	switch m := psc.Receive().(type) {
	case redis.Message:
		if m.Channel != ch || string(m.Data) != "hello" {
			t.Fatalf("message %q on %q", m.Data, m.Channel)
		}
	default:
		t.Fatalf("got %v, want a message", m)
	}
	if err := psc.Ping("p"); err != nil {
		t.Fatal(err)
	}
	if pong, ok := psc.Receive().(redis.Pong); !ok || pong.Data != "p" {
		t.Fatalf("PING: %v", pong)
	}
	if err := psc.Unsubscribe(); err != nil { // both channels: two replies
		t.Fatal(err)
	}
	for range 2 {
		if _, ok := psc.Receive().(redis.Subscription); !ok {
			t.Fatal("no unsubscription")
		}
	}
	c := psc.Conn
	if got := must(redis.String(c.Do("ECHO", "after"))); got != "after" {
		t.Fatalf("ECHO = %q", got)
	}
	// Redis ends the subscriptions of an UNSUBSCRIBE without arguments in
	// an order of its own: put them in the order they were made.
	lines := l.waitLines(t, 5)
	if len(lines) == 5 {
		swapped := fmt.Sprintf("1#3 UNSUBSCRIBE -> [[unsubscribe, %s:b, 1], [unsubscribe, %s, 0]]", ch, ch)
		if lines[3] == swapped {
			l.mu.Lock()
			l.lines[3] = fmt.Sprintf("1#3 UNSUBSCRIBE -> [[unsubscribe, %s, 1], [unsubscribe, %s:b, 0]]", ch, ch)
			l.mu.Unlock()
		}
	}
	wantLines(t, &l,
		fmt.Sprintf("1#1 SUBSCRIBE %s %s:b -> [[subscribe, %s, 1], [subscribe, %s:b, 2]]", ch, ch, ch, ch),
		fmt.Sprintf("1 push [message, %s, hello]", ch),
		"1#2 PING p -> [pong, p]",
		fmt.Sprintf("1#3 UNSUBSCRIBE -> [[unsubscribe, %s, 1], [unsubscribe, %s:b, 0]]", ch, ch),
		"1#4 ECHO after -> after",
	)
}

// resp is a bare RESP client, for RESP3, which redigo cannot read. It
// reads replies with a redigo-independent parser: a second proxy-free
// connection reads the same commands' bytes to compare.
type resp struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dialRESP(t *testing.T, addr string) *resp {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	return &resp{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (r *resp) send(args ...string) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := r.nc.Write([]byte(b.String())); err != nil {
		r.t.Fatal(err)
	}
}

// frame reads one reply's bytes, whatever its type, by counting the
// elements it announces (a map's twice) and reading bulk payloads whole.
func (r *resp) frame() string {
	var b strings.Builder
	var read func(n int)
	read = func(n int) {
		for range n {
			line, err := r.br.ReadString('\n')
			if err != nil {
				r.t.Fatal(err)
			}
			b.WriteString(line)
			var size int
			switch line[0] {
			case '$', '=', '!':
				fmt.Sscanf(line[1:], "%d", &size)
				if size >= 0 {
					buf := make([]byte, size+2)
					if _, err := r.br.Read(buf); err != nil {
						r.t.Fatal(err)
					}
					b.Write(buf)
				}
			case '*', '~', '>':
				fmt.Sscanf(line[1:], "%d", &size)
				read(size)
			case '%':
				fmt.Sscanf(line[1:], "%d", &size)
				read(2 * size)
			}
		}
	}
	read(1)
	return b.String()
}

func TestRESP3(t *testing.T) {
	var l log
	p := start(t, l.hooks())
	key := redistest.Key(t)
	c := dialRESP(t, p.Addr())
	d := dialRESP(t, redistest.Shared(t).Addr)
	// The same commands through the proxy and straight to Redis: the bytes
	// the client reads must be the same.
	for _, r := range []*resp{c, d} {
		r.send("HELLO", "3")
		if hello := r.frame(); !strings.HasPrefix(hello, "%") || !strings.Contains(hello, "proto\r\n:3\r\n") {
			t.Fatalf("HELLO 3 = %q", hello)
		}
	}
	for _, cmd := range [][]string{
		{"ZADD", key, "1.5", "m"},
		{"ZSCORE", key, "m"},
		{"GET", key + ":none"},
		{"CONFIG", "GET", "maxmemory-policy"},
		{"SMEMBERS", key + ":none"},
		{"DEL", key},
	} {
		c.send(cmd...)
		if cmd[1] == key { // the direct connection works on a key of its own
			cmd = append([]string{cmd[0], key + ":direct"}, cmd[2:]...)
		}
		d.send(cmd...)
		if got, want := c.frame(), d.frame(); got != want {
			t.Fatalf("%v through the proxy = %q, straight = %q", cmd, got, want)
		}
	}
	// RESP3 pub/sub: the confirmation is a push answering SUBSCRIBE, the
	// message a push answering nothing.
	c.send("SUBSCRIBE", key)
	if got := c.frame(); !strings.HasPrefix(got, ">3\r\n") {
		t.Fatalf("SUBSCRIBE = %q", got)
	}
	d.send("PUBLISH", key, "hi")
	d.frame()
	if got := c.frame(); got != fmt.Sprintf(">3\r\n$7\r\nmessage\r\n$%d\r\n%s\r\n$2\r\nhi\r\n", len(key), key) {
		t.Fatalf("message = %q", got)
	}
	c.send("PING")
	if got := c.frame(); got != "+PONG\r\n" {
		t.Fatalf("PING while subscribed in RESP3 = %q", got)
	}
	lines := l.waitLines(t, 10)
	want := []string{
		"1#1 HELLO 3 -> {server: redis",
		"1#2 ZADD " + key + " 1.5 m -> 1",
		"1#3 ZSCORE " + key + " m -> 1.5",
		"1#4 GET " + key + ":none -> (nil)",
		"1#5 CONFIG GET maxmemory-policy -> {maxmemory-policy: noeviction}",
		"1#6 SMEMBERS " + key + ":none -> set[]",
		"1#7 DEL " + key + " -> 1",
		"1#8 SUBSCRIBE " + key + " -> push[subscribe, " + key + ", 1]",
		"1 push push[message, " + key + ", hi]",
		"1#9 PING -> PONG",
	}
	if len(lines) != len(want) {
		t.Fatalf("the hooks saw:\n%s", strings.Join(lines, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Fatalf("line %d: %q, want %q...", i, lines[i], want[i])
		}
	}
	if m := l.cmds[0]; m.Name() != "HELLO" {
		t.Fatalf("first command %v", m)
	}
}

func TestBeforeBlocks(t *testing.T) {
	key := redistest.Key(t)
	reached := make(chan struct{})
	release := make(chan struct{})
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, s)
	}
	p := start(t, wire.Hooks{
		Before: func(ctx context.Context, cmd *wire.Command) error {
			if cmd.Name() != "SET" {
				return nil
			}
			close(reached)
			select {
			case <-release:
				note("released")
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	})
	c := dial(t, p)
	done := make(chan error, 1)
	go func() {
		_, err := c.Do("SET", key, "v")
		note("SET returned")
		done <- err
	}()
	<-reached
	d := direct(t)
	time.Sleep(50 * time.Millisecond)
	if n := must(redis.Int(d.Do("EXISTS", key))); n != 0 {
		t.Fatal("the held SET reached Redis")
	}
	select {
	case err := <-done:
		t.Fatalf("SET returned while held: %v", err)
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := must(redis.Int(d.Do("EXISTS", key))); n != 1 {
		t.Fatal("the released SET did not reach Redis")
	}
	d.Do("DEL", key)
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(order, ", ") != "released, SET returned" {
		t.Fatalf("order: %v", order)
	}
}

func TestBeforeFails(t *testing.T) {
	key := redistest.Key(t)
	var l log
	hooks := l.hooks()
	hooks.Before = func(ctx context.Context, cmd *wire.Command) error {
		if len(cmd.Args) > 1 && strings.HasSuffix(string(cmd.Args[1]), ":fail") {
			return errors.New("injected failure: the command was not sent")
		}
		return nil
	}
	c := dial(t, start(t, hooks))
	_, err := c.Do("SET", key+":fail", "v")
	if err == nil || err.Error() != "ERR injected failure: the command was not sent" {
		t.Fatalf("err = %v", err)
	}
	// In a pipeline, the error comes in its turn.
	c.Send("SET", key+":a", "1")
	c.Send("SET", key+":fail", "2")
	c.Send("SET", key+":b", "3")
	c.Flush()
	var replies []string
	for range 3 {
		v, err := c.Receive()
		replies = append(replies, fmt.Sprintf("%v %v", v, err))
	}
	if got := strings.Join(replies, "; "); got != "OK <nil>; <nil> ERR injected failure: the command was not sent; OK <nil>" {
		t.Fatalf("replies: %s", got)
	}
	d := direct(t)
	if n := must(redis.Int(d.Do("EXISTS", key+":fail", key+":a", key+":b"))); n != 2 {
		t.Fatalf("EXISTS = %d, want 2: the failed SET must not reach Redis", n)
	}
	d.Do("DEL", key+":a", key+":b")
	lines := l.waitLines(t, 4)
	if len(lines) != 4 || !strings.Contains(lines[2], ":fail 2 -> error: ERR injected") {
		t.Fatalf("the hooks saw:\n%s", strings.Join(lines, "\n"))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cmds[0].Sent || !l.cmds[1].Sent || l.cmds[2].Sent || !l.cmds[3].Sent {
		t.Fatal("Sent is wrong")
	}
}

func TestCrashAfterReply(t *testing.T) {
	key := redistest.Key(t)
	var l log
	hooks := l.hooks()
	var p *wire.Proxy
	logAfter := hooks.After
	hooks.After = func(cmd *wire.Command, reply wire.Value, err error) {
		logAfter(cmd, reply, err)
		if cmd.Name() == "INCR" {
			p.Crash()
		}
	}
	p = start(t, hooks)
	c := dial(t, p)
	c2 := dial(t, p) // another connection of the same client
	must(c2.Do("PING"))
	if got := must(redis.Int(c.Do("INCR", key))); got != 1 {
		t.Fatalf("INCR = %d", got)
	}
	if _, err := c.Do("INCR", key); err == nil {
		t.Fatal("a command after the crash succeeded")
	}
	if _, err := c2.Do("PING"); err == nil {
		t.Fatal("the client's other connection survived the crash")
	}
	// A crashed client connects no more.
	if c3, err := redis.Dial("tcp", p.Addr()); err == nil {
		if _, err := c3.Do("PING"); err == nil {
			t.Fatal("a new connection after the crash works")
		}
		c3.Close()
	}
	d := direct(t)
	if got := must(redis.Int(d.Do("GET", key))); got != 1 {
		t.Fatalf("the key is %d: a command after the crash reached Redis", got)
	}
	d.Do("DEL", key)
}

// TestCrashedCalledOnce: Config.Crashed is called once per Crash, after
// the reply whose After crashed the client reached it; a second Crash
// does nothing.
func TestCrashedCalledOnce(t *testing.T) {
	key := redistest.Key(t)
	var p *wire.Proxy
	var mu sync.Mutex
	calls := 0
	gotReply := make(chan struct{})
	replied := false
	crashed := func() {
		mu.Lock()
		defer mu.Unlock()
		calls++
		select {
		case <-gotReply:
			replied = true
		case <-time.After(5 * time.Second):
		}
	}
	p, err := wire.Listen(wire.Config{Addr: redistest.Shared(t).Addr, Crashed: crashed, Hooks: wire.Hooks{
		After: func(cmd *wire.Command, reply wire.Value, err error) {
			if cmd.Name() == "INCR" {
				p.Crash()
			}
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := dial(t, p)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if got := must(redis.Int(c.Do("INCR", key))); got != 1 {
			t.Errorf("INCR = %d", got)
		}
		close(gotReply)
	}()
	<-done
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := calls
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	p.Crash()
	mu.Lock()
	defer mu.Unlock()
	if calls != 1 {
		t.Fatalf("Crashed was called %d times, want 1", calls)
	}
	if !replied {
		t.Fatal("Crashed was called before the client had its reply")
	}
	direct(t).Do("DEL", key)
}

func TestCloseLeaksNothing(t *testing.T) {
	srv := redistest.Shared(t)
	redistest.Pool(t) // its own goroutines, if any, start before the count
	settle()
	before := runtime.NumGoroutine()
	held := make(chan struct{})
	p, err := wire.Listen(wire.Config{Addr: srv.Addr, Hooks: wire.Hooks{
		Before: func(ctx context.Context, cmd *wire.Command) error {
			if cmd.Name() == "BLPOP" {
				return nil
			}
			if cmd.Name() == "ECHO" {
				close(held)
				<-ctx.Done() // held until the proxy closes
				return ctx.Err()
			}
			return nil
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var conns []redis.Conn
	for range 4 {
		c, err := redis.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	must(conns[0].Do("PING"))
	psc := redis.PubSubConn{Conn: conns[1]}
	psc.Subscribe(redistest.Key(t))
	psc.Receive()
	errs := make(chan error, 2)
	go func() { _, err := conns[2].Do("ECHO", "x"); errs <- err }()
	go func() { _, err := conns[3].Do("BLPOP", redistest.Key(t), 0); errs <- err }()
	<-held
	time.Sleep(20 * time.Millisecond) // BLPOP on its way
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-errs; err == nil {
			t.Fatal("a command under way when the proxy closed succeeded")
		}
	}
	if _, err := conns[0].Do("PING"); err == nil {
		t.Fatal("a connection survived Close")
	}
	for _, c := range conns {
		c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		settle()
		after := runtime.NumGoroutine()
		if after <= before+1 {
			break
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after Close:\n%s", before, after, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func settle() {
	for range 3 {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkProxyRoundTrip measures one GET round trip straight to Redis
// and through the proxy with hooks that record, as locktest's would.
func BenchmarkProxyRoundTrip(b *testing.B) {
	key := redistest.Key(b)
	run := func(b *testing.B, c redis.Conn) {
		for b.Loop() {
			if _, err := c.Do("GET", key); err != nil {
				b.Fatal(err)
			}
		}
	}
	var direct float64
	b.Run("direct", func(b *testing.B) {
		c := must(redistest.Shared(b).Dial(context.Background()))
		defer c.Close()
		run(b, c)
		direct = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("proxy", func(b *testing.B) {
		var l log
		hooks := l.hooks()
		hooks.Before = func(ctx context.Context, cmd *wire.Command) error { return nil }
		hooks.After = func(cmd *wire.Command, reply wire.Value, err error) { _ = reply.String() }
		c := dial(b, start(b, hooks))
		run(b, c)
		if direct > 0 {
			// Beside this run's ns/op: the direct round trip, and what the
			// proxy adds to it.
			proxied := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(direct, "direct-ns/op")
			b.ReportMetric(proxied-direct, "added-ns/op")
		}
	})
}

// TestAfterBeforeNext: a command sent once its predecessor's reply came
// passes Before only after that reply's After returned, however slow, so
// that what After decides (a crash, a pause) applies to the next command.
func TestAfterBeforeNext(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s)
	}
	c := dial(t, start(t, wire.Hooks{
		Before: func(ctx context.Context, cmd *wire.Command) error {
			note(fmt.Sprintf("before %d", cmd.Seq))
			return nil
		},
		After: func(cmd *wire.Command, reply wire.Value, err error) {
			time.Sleep(20 * time.Millisecond)
			note(fmt.Sprintf("after %d", cmd.Seq))
		},
	}))
	var want []string
	for i := 1; i <= 5; i++ {
		must(c.Do("PING"))
		want = append(want, fmt.Sprintf("before %d", i), fmt.Sprintf("after %d", i))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		got := strings.Join(seen, ", ")
		mu.Unlock()
		if got == strings.Join(want, ", ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("hooks ran as: %s", got)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLost: Config.Lost hears of a connection the server cut (CLIENT KILL
// of the proxy's connection), and not of one the client closed itself,
// by hanging up or by QUIT.
func TestLost(t *testing.T) {
	var mu sync.Mutex
	var lost []error
	p, err := wire.Listen(wire.Config{Addr: redistest.Shared(t).Addr, Lost: func(err error) {
		mu.Lock()
		defer mu.Unlock()
		lost = append(lost, err)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(lost)
	}

	// The client hangs up, or says QUIT: nothing lost.
	c := dial(t, p)
	must(c.Do("PING"))
	c.Close()
	q := dial(t, p)
	must(q.Do("QUIT"))
	if _, err := q.Do("PING"); err == nil {
		t.Fatal("a connection answers after QUIT")
	}
	// The server cuts a connection: lost.
	c2 := dial(t, p)
	id := must(redis.Int64(c2.Do("CLIENT", "ID")))
	if _, err := direct(t).Do("CLIENT", "KILL", "ID", id); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for count() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if _, err := c2.Do("PING"); err == nil {
		t.Fatal("the cut connection still answers")
	}
	if n := count(); n != 1 {
		t.Fatalf("Lost was called %d times, want 1 (the cut connection only)", n)
	}
}

// TestTracking: client-side caching through the proxy. A RESP3 client
// turns tracking on (default mode, then BCAST with a prefix and NOLOOP);
// a key it read, or one under its prefix, changed by another client, gets
// it an invalidation push, which answers no command and which the Push
// hook sees; its own write does not, with NOLOOP.
func TestTracking(t *testing.T) {
	var l log
	p := start(t, l.hooks())
	key := redistest.Key(t)
	c := dialRESP(t, p.Addr())
	d := dialRESP(t, redistest.Shared(t).Addr)
	for _, r := range []*resp{c, d} {
		r.send("HELLO", "3")
		r.frame()
	}
	invalidate := func(k string) string {
		return fmt.Sprintf(">2\r\n$10\r\ninvalidate\r\n*1\r\n$%d\r\n%s\r\n", len(k), k)
	}
	c.send("CLIENT", "TRACKING", "ON")
	if got := c.frame(); got != "+OK\r\n" {
		t.Fatalf("CLIENT TRACKING ON = %q", got)
	}
	c.send("GET", key)
	c.frame()
	d.send("SET", key, "v")
	d.frame()
	if got := c.frame(); got != invalidate(key) {
		t.Fatalf("after another client's SET = %q", got)
	}
	c.send("CLIENT", "TRACKING", "OFF")
	c.frame()
	c.send("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", key+":", "NOLOOP")
	if got := c.frame(); got != "+OK\r\n" {
		t.Fatalf("CLIENT TRACKING ON BCAST NOLOOP = %q", got)
	}
	c.send("SET", key+":own", "v") // NOLOOP: no push for its own write
	c.frame()
	d.send("SET", key+":b", "v")
	d.frame()
	if got := c.frame(); got != invalidate(key+":b") {
		t.Fatalf("BCAST after another client's SET = %q", got)
	}
	c.send("PING")
	if got := c.frame(); got != "+PONG\r\n" {
		t.Fatalf("PING = %q", got)
	}
	lines := l.waitLines(t, 9)
	var pushes []string
	for _, line := range lines {
		if strings.Contains(line, " push ") {
			pushes = append(pushes, line)
		}
	}
	want := []string{"1 push push[invalidate, [" + key + "]]", "1 push push[invalidate, [" + key + ":b]]"}
	if len(pushes) != len(want) || pushes[0] != want[0] || pushes[1] != want[1] {
		t.Fatalf("the Push hook saw %q, want %q; all:\n%s", pushes, want, strings.Join(lines, "\n"))
	}
	d.send("DEL", key, key+":b", key+":own")
	d.frame()
}
