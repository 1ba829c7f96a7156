package process

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/internal/langtest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// sh returns the argv of a shell script.
func sh(script string) []string { return []string{"sh", "-c", script} }

// serveScript answers every acquire with ok h1 and every release with ok,
// after running before (shell) ahead of each answer.
const serveScript = `echo ready
while read -r req rest; do
  case $req in
  acquire) echo "ok h1" ;;
  release) echo ok ;;
  *) echo "error what is $req" ;;
  esac
done`

// begin starts argv for client A and closes it when the test ends.
func begin(t *testing.T, argv []string, opts ...Option) (*Strategy, error) {
	t.Helper()
	s, p, err := newStrategy(newConfig(argv, opts), spec{client: "A", addr: "127.0.0.1:1"})
	if p != nil {
		t.Cleanup(p.close)
	}
	return s, err
}

func TestProtocolHappyPath(t *testing.T) {
	s, err := begin(t, sh(serveScript), WithName("fake"))
	require.NoError(t, err)
	assert.False(t, s.Refresh())
	l, err := s.TryAcquire(context.Background(), "k", 60*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, "k", l.Key())
	assert.Equal(t, "h1", l.(*Lock).Handle())
	_, ok := l.(strategy.Refresher)
	assert.False(t, ok, "a program that did not announce refresh gives no Refresher")
	require.NoError(t, l.Release(context.Background()))
	require.NoError(t, l.Release(context.Background()), "a lock may be released twice")
}

// TestReadyGranularity: granularity=<ms> on the ready line is the step
// the strategy announces (strategy.Granular); without it, none.
func TestReadyGranularity(t *testing.T) {
	s, err := begin(t, sh(`echo 'ready refresh granularity=1000'; cat >/dev/null`))
	require.NoError(t, err)
	assert.True(t, s.Refresh())
	var g strategy.Granular = s
	assert.Equal(t, time.Second, g.Granularity())
	s, err = begin(t, sh(serveScript))
	require.NoError(t, err)
	assert.Zero(t, s.Granularity())
}

func TestProtocolAnswers(t *testing.T) {
	// The program answers the n-th request with the n-th line of answers.
	script := func(answers ...string) []string {
		var b strings.Builder
		b.WriteString("echo 'ready refresh'\n")
		for _, a := range answers {
			b.WriteString("read -r line || exit 0\necho '" + a + "'\n")
		}
		b.WriteString("while read -r line; do :; done\n")
		return sh(b.String())
	}
	ctx := context.Background()
	s, err := begin(t, script("busy", "error SETNX failed: WRONGTYPE", "ok h7", "not-held", "not-held it is gone", "error boom", "ok"), WithName("fake"))
	require.NoError(t, err)
	assert.True(t, s.Refresh())

	_, err = s.TryAcquire(ctx, "k", time.Second)
	assert.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.Equal(t, `fake: "k": locklab: lock not acquired`, err.Error())

	_, err = s.TryAcquire(ctx, "k", time.Second)
	require.Error(t, err)
	assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
	assert.NotErrorIs(t, err, ErrProtocol)
	assert.Equal(t, `fake: acquire "k": SETNX failed: WRONGTYPE`, err.Error())

	l, err := s.TryAcquire(ctx, "k", time.Second)
	require.NoError(t, err)
	rl, ok := l.(strategy.Refresher)
	require.True(t, ok, "a program that announced refresh gives a Refresher")

	err = l.Release(ctx)
	assert.ErrorIs(t, err, strategy.ErrNotHeld)
	assert.Equal(t, `fake: release "k": locklab: lock not held`, err.Error())
	err = l.Release(ctx)
	assert.ErrorIs(t, err, strategy.ErrNotHeld)
	assert.Equal(t, `fake: release "k": locklab: lock not held: it is gone`, err.Error())
	err = rl.Refresh(ctx, time.Second)
	require.Error(t, err)
	assert.NotErrorIs(t, err, strategy.ErrNotHeld)
	assert.Equal(t, `fake: refresh "k": boom`, err.Error())
	assert.NoError(t, rl.Refresh(ctx, time.Second))
}

// protocolError asserts that err is the driver's protocol error and that
// its message has every one of parts.
func protocolError(t *testing.T, err error, parts ...string) {
	t.Helper()
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrProtocol)
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "A", pe.Client)
	for _, p := range parts {
		assert.Contains(t, err.Error(), p)
	}
}

func TestProtocolErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		script string
		parts  []string
	}{
		{"garbage", `echo ready; read -r l; echo 'hello there'; cat >/dev/null`,
			[]string{`request "acquire k 60": it answered "hello there", which is none of ok <handle>, busy, error <message>`}},
		{"exits", `echo ready; read -r l; echo 'PHP Fatal error: Call to undefined method Redis::mutli()' >&2; exit 255`,
			[]string{`request "acquire k 60": it exited before it answered (exit status 255)`, "PHP Fatal error: Call to undefined method Redis::mutli()"}},
		{"ok without a handle", `echo ready; read -r l; echo ok; cat >/dev/null`,
			[]string{`it answered "ok", where the handle after ok must be one word`}},
		{"busy with words", `echo ready; read -r l; echo 'busy now'; cat >/dev/null`,
			[]string{`it answered "busy now", where busy takes nothing after it`}},
		{"bad clock notice", `echo ready; read -r l; echo 'clock soon'; cat >/dev/null`,
			[]string{`it wrote "clock soon", where a clock notice is "clock <unix milliseconds>"`}},
		{"unasked line", `echo ready; echo extra; cat >/dev/null`,
			[]string{`before the request, it wrote "extra" while no request was pending`}},
		{"long line", `echo ready; read -r l; head -c 70000 /dev/zero | tr '\0' x; echo; cat >/dev/null`,
			[]string{"longer than 65536 bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := begin(t, sh(tc.script), WithTimeout(5*time.Second))
			require.NoError(t, err)
			if tc.name == "unasked line" {
				time.Sleep(200 * time.Millisecond) // for the line to be there before the request
			}
			start := time.Now()
			_, err = s.TryAcquire(ctx, "k", 60*time.Millisecond)
			protocolError(t, err, append(tc.parts, "sh -c")...)
			assert.Less(t, time.Since(start), 3*time.Second, "the error came at once, not at the timeout")
			// The program is gone: every later request gets the same error, at once.
			_, err2 := s.TryAcquire(ctx, "k", 60*time.Millisecond)
			assert.Equal(t, err, err2)
		})
	}
}

func TestProtocolStartErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		argv  []string
		parts []string
	}{
		{"no ready", sh(`echo hello`), []string{`at start: its first line is "hello", where the protocol wants "ready"`}},
		{"unknown capability", sh(`echo 'ready refesh'; cat >/dev/null`), []string{`its ready line "ready refesh" announces "refesh", which the protocol does not know (it knows refresh, granularity=<ms>, shared, permits=<n>, weighted, keys=<names> and beside=<names>)`}},
		{"bad granularity", sh(`echo 'ready granularity=1s'; cat >/dev/null`), []string{`its ready line "ready granularity=1s" announces "granularity=1s", where granularity= takes a whole number of milliseconds, 1 or more`}},
		{"exits", sh(`echo 'php: command not found' >&2; exit 127`), []string{"it exited before it wrote its ready line (exit status 127)", "php: command not found"}},
		{"hangs", sh(`sleep 30`), []string{"at start: no ready line within 300ms", "it wrote nothing to standard error"}},
		{"not found", []string{"/nonexistent/locklab-program"}, []string{"it could not be started", "/nonexistent/locklab-program"}},
		{"no command", nil, []string{"no command to run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := begin(t, tc.argv, WithTimeout(300*time.Millisecond))
			protocolError(t, err, tc.parts...)
			assert.Less(t, time.Since(start), 3*time.Second)
		})
	}
}

func TestProtocolHang(t *testing.T) {
	s, err := begin(t, sh(`echo ready; echo 'stuck on purpose' >&2; read -r l; sleep 30`), WithTimeout(300*time.Millisecond), WithName("stuck"))
	require.NoError(t, err)
	start := time.Now()
	_, err = s.TryAcquire(context.Background(), "k", time.Second)
	elapsed := time.Since(start)
	protocolError(t, err, `stuck (client A): request "acquire k 1000": no answer within 300ms`, "stuck on purpose")
	assert.GreaterOrEqual(t, elapsed, 300*time.Millisecond)
	assert.Less(t, elapsed, 3*time.Second)
}

func TestProtocolExitWhileIdle(t *testing.T) {
	s, err := begin(t, sh(`echo ready; read -r l; echo 'ok h1'; read -r l; exit 3`))
	require.NoError(t, err)
	l, err := s.TryAcquire(context.Background(), "k", time.Second)
	require.NoError(t, err)
	protocolError(t, l.Release(context.Background()), "exit status 3")
	// The program has exited: the next request is refused, naming how.
	time.Sleep(50 * time.Millisecond)
	protocolError(t, l.Release(context.Background()), "exit status 3")
}

func TestProtocolContext(t *testing.T) {
	s, err := begin(t, sh(`echo ready; read -r l; sleep 30`))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = s.TryAcquire(ctx, "k", time.Second)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second)
}

func TestProtocolBadArguments(t *testing.T) {
	s, err := begin(t, sh(serveScript))
	require.NoError(t, err)
	_, err = s.TryAcquire(context.Background(), "a key", time.Second)
	assert.ErrorIs(t, err, strategy.ErrInvalidKey)
	_, err = s.TryAcquire(context.Background(), "k", time.Microsecond)
	assert.ErrorIs(t, err, strategy.ErrInvalidTTL)
	// Nothing was sent: the program still serves.
	_, err = s.TryAcquire(context.Background(), "k", time.Second)
	assert.NoError(t, err)
}

func TestCrash(t *testing.T) {
	cfg := newConfig(sh(`echo ready; read -r l; sleep 30`), nil)
	s, p, err := newStrategy(cfg, spec{client: "B"})
	require.NoError(t, err)
	defer p.close()
	time.AfterFunc(100*time.Millisecond, p.crash)
	start := time.Now()
	_, err = s.TryAcquire(context.Background(), "k", time.Second)
	assert.ErrorIs(t, err, ErrCrashed)
	assert.NotErrorIs(t, err, ErrProtocol)
	assert.Less(t, time.Since(start), 2*time.Second)
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
		t.Fatal("the crashed program is still running")
	}
	_, err = s.TryAcquire(context.Background(), "k", time.Second)
	assert.ErrorIs(t, err, ErrCrashed)
}

// TestKillsTheGroup: a crash kills what the program started, too.
func TestKillsTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	cfg := newConfig(sh(`sleep 30 & echo $! >`+pidFile+`; echo ready; cat >/dev/null`), nil)
	_, p, err := newStrategy(cfg, spec{client: "A"})
	require.NoError(t, err)
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	child, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	require.True(t, alive(child))
	p.crash()
	p.close()
	assert.Eventually(t, func() bool { return !alive(child) }, 2*time.Second, 10*time.Millisecond, "the child %d outlived the crash", child)
}

// alive reports whether pid is a running process (not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestCloseKillsAProgramThatIgnoresItsInput(t *testing.T) {
	cfg := newConfig(sh(`trap '' TERM; echo ready; exec sleep 30`), []Option{WithGrace(100 * time.Millisecond)})
	_, p, err := newStrategy(cfg, spec{client: "A"})
	require.NoError(t, err)
	start := time.Now()
	p.close()
	assert.Less(t, time.Since(start), 2*time.Second)
	select {
	case <-p.exited:
	default:
		t.Fatal("close returned with the program running")
	}
}

func TestEnvironment(t *testing.T) {
	cfg := newConfig(sh(`echo ready; read -r l; echo "ok $LOCKLAB_CLIENT@$LOCKLAB_REDIS_ADDR+$EXTRA"; cat >/dev/null`), []Option{WithEnv("EXTRA=x")})
	s, p, err := newStrategy(cfg, spec{client: "C", addr: "127.0.0.1:6390"})
	require.NoError(t, err)
	defer p.close()
	l, err := s.TryAcquire(context.Background(), "k", time.Second)
	require.NoError(t, err)
	assert.Equal(t, "C@127.0.0.1:6390+x", l.(*Lock).Handle())
}

func TestClockNotice(t *testing.T) {
	var got []int64
	cfg := newConfig(sh(`echo ready; read -r l; echo 'clock 1700000000123'; read -r g; echo "clock 1700000000456"; read -r g2; echo "ok $g$g2"; cat >/dev/null`), nil)
	s, p, err := newStrategy(cfg, spec{client: "A", clock: func(ms int64) error { got = append(got, ms); return nil }})
	require.NoError(t, err)
	defer p.close()
	l, err := s.TryAcquire(context.Background(), "k", time.Second)
	require.NoError(t, err)
	assert.Equal(t, []int64{1700000000123, 1700000000456}, got)
	assert.Equal(t, "gogo", l.(*Lock).Handle(), "each notice is answered go")
}

func TestFaketimeOffset(t *testing.T) {
	assert.Equal(t, "+10.000000s", faketimeOffset(10*time.Second))
	assert.Equal(t, "+0.120000s", faketimeOffset(120*time.Millisecond))
	assert.Equal(t, "-1.500250s", faketimeOffset(-1500250*time.Microsecond))
	env := faketimeEnv("/lib/ft.so", time.Second, []string{"LD_PRELOAD=/other.so"})
	assert.Contains(t, env, "LD_PRELOAD=/lib/ft.so:/other.so")
	assert.Contains(t, env, "FAKETIME=+1.000000s")
}

// TestSkew runs PHP's microtime() and Python's time.time() under the
// driver's libfaketime and checks that each reads the real time plus the
// skew, to the millisecond the driver's clock notices carry.
func TestSkew(t *testing.T) {
	langtest.Need(t, langtest.Faketime)
	for _, tc := range []struct {
		name string
		need string
		argv []string
	}{
		{"php", langtest.PHP, []string{"php", "testdata/clock.php"}},
		{"python", "", []string{langtest.Python, "testdata/clock.py"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.need != "" {
				langtest.Need(t, tc.need)
			}
			for _, skew := range []time.Duration{0, 120 * time.Millisecond, 10 * time.Second, -2500 * time.Millisecond} {
				var before, after time.Time
				var read int64
				cfg := newConfig(tc.argv, nil)
				s, p, err := newStrategy(cfg, spec{client: "A", addr: "127.0.0.1:1", skew: skew, clock: func(ms int64) error {
					after, read = time.Now(), ms
					return nil
				}})
				require.NoError(t, err)
				before = time.Now()
				_, err = s.TryAcquire(context.Background(), "k", time.Second)
				p.close()
				require.ErrorIs(t, err, strategy.ErrNotAcquired)
				lo, hi := before.Add(skew).UnixMilli(), after.Add(skew).UnixMilli()
				assert.True(t, lo <= read && read <= hi+1, "skew %v: the program read %d, outside [%d, %d] (off by %dms)", skew, read, lo, hi, read-lo)
			}
		})
	}
}

// TestPHPRecipe drives a PHP recipe against a real Redis: two clients, a
// lock, a busy answer, releases.
func TestPHPRecipe(t *testing.T) {
	langtest.Need(t, langtest.PHP)
	srv := redistest.Shared(t)
	key := redistest.Key(t)
	ctx := context.Background()
	start := func(name, file string) *Strategy {
		cfg := newConfig([]string{"php", "../../recipes/php/" + file}, nil)
		s, p, err := newStrategy(cfg, spec{client: name, addr: srv.Addr})
		require.NoError(t, err)
		t.Cleanup(p.close)
		return s
	}
	a, b := start("A", "setnxpx.php"), start("B", "setnxpx.php")
	la, err := a.TryAcquire(ctx, key, 5*time.Second)
	require.NoError(t, err)
	_, err = b.TryAcquire(ctx, key, 5*time.Second)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)

	conn, err := srv.Dial(ctx)
	require.NoError(t, err)
	defer conn.Close()
	pttl, err := redis.Int64(conn.Do("PTTL", key))
	require.NoError(t, err)
	assert.InDelta(t, 5000, pttl, 1000, "SET NX PX with the TTL asked, in milliseconds")
	v, err := redis.String(conn.Do("GET", key))
	require.NoError(t, err)
	assert.Equal(t, "1", v)

	require.NoError(t, la.Release(ctx))
	err = la.Release(ctx)
	assert.ErrorIs(t, err, strategy.ErrNotHeld)
	assert.Contains(t, err.Error(), "任务完成，释放锁失败", "the document's message")
	lb, err := b.TryAcquire(ctx, key, 5*time.Second)
	require.NoError(t, err)
	require.NoError(t, lb.Release(ctx))

	// An error reply is an error, though phpredis answers it with false.
	_, err = conn.Do("HSET", key, "f", "v")
	require.NoError(t, err)
	err = lb.Release(ctx) // DEL deletes a hash as well: no error to see here
	require.NoError(t, err)
	_, err = conn.Do("HSET", key, "f", "v")
	require.NoError(t, err)
	tl := start("C", "tokengetdel.php")
	_, err = tl.TryAcquire(ctx, key, time.Second) // SET NX on a hash: taken
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	gs := start("D", "getset.php")
	_, err = gs.TryAcquire(ctx, key, time.Second) // SETNX fails, GET answers WRONGTYPE
	require.Error(t, err)
	assert.Contains(t, err.Error(), "WRONGTYPE")
	assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
	_, err = conn.Do("DEL", key)
	require.NoError(t, err)
}

// TestPHPRefresh: luatoken.php announces refresh.
func TestPHPRefresh(t *testing.T) {
	langtest.Need(t, langtest.PHP)
	srv := redistest.Shared(t)
	key := redistest.Key(t)
	ctx := context.Background()
	var reads atomic.Int64
	cfg := newConfig([]string{"php", "../../recipes/php/luatoken.php"}, nil)
	s, p, err := newStrategy(cfg, spec{client: "A", addr: srv.Addr, clock: func(int64) error { reads.Add(1); return nil }})
	require.NoError(t, err)
	defer p.close()
	require.True(t, s.Refresh())
	l, err := s.TryAcquire(ctx, key, 100*time.Millisecond)
	require.NoError(t, err)
	rl, ok := l.(strategy.Refresher)
	require.True(t, ok)
	require.NoError(t, rl.Refresh(ctx, 5*time.Second))
	conn, err := srv.Dial(ctx)
	require.NoError(t, err)
	defer conn.Close()
	pttl, err := redis.Int64(conn.Do("PTTL", key))
	require.NoError(t, err)
	assert.Greater(t, pttl, int64(4000))
	require.NoError(t, l.Release(ctx))
	err = rl.Refresh(ctx, 5*time.Second)
	assert.ErrorIs(t, err, strategy.ErrNotHeld)
	assert.Zero(t, reads.Load(), "luatoken reads no clock")
}

// TestRedisPy drives the redis-py adapter against a real Redis.
func TestRedisPy(t *testing.T) {
	langtest.Need(t, langtest.RedisPy)
	srv := redistest.Shared(t)
	key := redistest.Key(t)
	ctx := context.Background()
	start := func(name string) *Strategy {
		cfg := newConfig([]string{langtest.Python, "../../recipes/python/redis_py_lock.py"}, nil)
		s, p, err := newStrategy(cfg, spec{client: name, addr: srv.Addr})
		require.NoError(t, err)
		t.Cleanup(p.close)
		return s
	}
	a, b := start("A"), start("B")
	require.True(t, a.Refresh())
	la, err := a.TryAcquire(ctx, key, 200*time.Millisecond)
	require.NoError(t, err)
	_, err = b.TryAcquire(ctx, key, time.Second)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	require.NoError(t, la.(strategy.Refresher).Refresh(ctx, 5*time.Second))
	require.NoError(t, la.Release(ctx))
	err = la.Release(ctx)
	assert.ErrorIs(t, err, strategy.ErrNotHeld)
	assert.Contains(t, err.Error(), "Cannot release an unlocked lock")
	lb, err := b.TryAcquire(ctx, key, 50*time.Millisecond)
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond)
	err = lb.Release(ctx)
	assert.ErrorIs(t, err, strategy.ErrNotHeld, "the lock expired")
	assert.Contains(t, err.Error(), "no longer owned")
}

// kindScript serves a read-write lock or a semaphore, as its ready line
// says: it answers each acquire with its verb and its arguments.
const kindScript = `echo "ready $KIND"
while read -r req rest; do
  case $req in
  acquire|acquire-shared|acquire-n) echo "ok $req:$(echo $rest | tr ' ' ':')" ;;
  release) echo ok ;;
  *) echo "error what is $req" ;;
  esac
done`

// TestKinds: the ready line says which kind of lock a program serves,
// and the strategy is of that kind, its acquires the verbs of docs/exec.md.
func TestKinds(t *testing.T) {
	ctx := context.Background()
	start := func(kind string) (strategy.Strategy, error) {
		s, err := begin(t, sh(kindScript), WithEnv("KIND="+kind))
		if err != nil {
			return nil, err
		}
		return s.kind(), nil
	}
	handle := func(l strategy.Lock, err error) string {
		t.Helper()
		require.NoError(t, err)
		return l.(*Lock).Handle()
	}

	s, err := start("shared")
	require.NoError(t, err)
	require.Equal(t, strategy.ReadWrite, strategy.KindOf(s))
	assert.Equal(t, "acquire:k:60", handle(s.TryAcquire(ctx, "k", 60*time.Millisecond)))
	assert.Equal(t, "acquire-shared:k:60", handle(s.(strategy.Shared).TryAcquireShared(ctx, "k", 60*time.Millisecond)))

	s, err = start("permits=3 weighted")
	require.NoError(t, err)
	require.Equal(t, strategy.Semaphore, strategy.KindOf(s))
	w := s.(strategy.Weighted)
	assert.Equal(t, 3, w.Permits())
	assert.Equal(t, "acquire-n:k:2:60", handle(w.TryAcquireN(ctx, "k", 2, 60*time.Millisecond)))
	_, err = w.TryAcquireN(ctx, "k", 4, 60*time.Millisecond)
	assert.ErrorContains(t, err, "n = 4: want 1 to 3")

	s, err = start("permits=2")
	require.NoError(t, err)
	_, weighted := s.(strategy.Weighted)
	assert.False(t, weighted, "without weighted, no TryAcquireN")
	assert.Equal(t, 2, s.(strategy.Counting).Permits())

	s, err = start("")
	require.NoError(t, err)
	assert.Equal(t, strategy.Mutex, strategy.KindOf(s))

	for kind, want := range map[string]string{
		"permits=0":        "permits= takes a whole number, 1 or more",
		"shared permits=2": "both shared and permits=",
		"weighted":         "weighted without permits=<n>",
	} {
		_, err := start(kind)
		assert.ErrorContains(t, err, want, kind)
	}
}

// TestReadyKeys: keys= and beside= on the ready line name the lock's keys,
// K standing for the run's key: the strategy, of whatever kind, is then a
// strategy.Keyed and a strategy.SideKeyed that return them; without them,
// both return nil (the lock is at K). A name without K, a * in keys=, an
// empty name or one named twice is refused.
func TestReadyKeys(t *testing.T) {
	s, err := begin(t, sh(`echo 'ready shared keys=K,K:readers beside={K}*,K:writer-intent'; cat >/dev/null`))
	require.NoError(t, err)
	st := s.kind()
	require.Equal(t, strategy.ReadWrite, strategy.KindOf(st))
	k, ok := st.(strategy.Keyed)
	require.True(t, ok, "a read-write program's strategy is Keyed")
	assert.Equal(t, []string{"orders:1", "orders:1:readers"}, k.Keys("orders:1"))
	side, ok := st.(strategy.SideKeyed)
	require.True(t, ok, "and SideKeyed")
	assert.Equal(t, []string{"{orders:1}*", "orders:1:writer-intent"}, side.SideKeys("orders:1"))

	s, err = begin(t, sh(`echo 'ready permits=2 keys={K}:time,{K}:weight'; cat >/dev/null`))
	require.NoError(t, err)
	assert.Equal(t, []string{"{k}:time", "{k}:weight"}, s.kind().(strategy.Keyed).Keys("k"))
	assert.Nil(t, s.SideKeys("k"))

	s, err = begin(t, sh(serveScript))
	require.NoError(t, err)
	assert.Nil(t, s.Keys("k"), "no keys=: the lock is at K")
	assert.Nil(t, s.SideKeys("k"))

	for ready, want := range map[string]string{
		"keys=":               "keys= takes names separated by commas, none of them empty",
		"keys=K,,K:x":         "keys= takes names separated by commas, none of them empty",
		"beside=lock:counter": "each name of beside= holds K, the run's key (lock:counter does not)",
		"keys=K*":             "keys= names keys the suite reads, which a * cannot stand in (beside= takes patterns)",
		"keys=K,K":            "keys= names K twice",
	} {
		_, err := begin(t, sh(`echo 'ready `+ready+`'; cat >/dev/null`), WithTimeout(300*time.Millisecond))
		protocolError(t, err, fmt.Sprintf("its ready line %q announces %q, where %s", "ready "+ready, ready, want))
	}
}
