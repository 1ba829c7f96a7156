package locktest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

func check(t *testing.T, f locktest.Factory, p locktest.Property, timeout time.Duration) locktest.Result {
	t.Helper()
	cfg := locktest.Config{Addr: redistest.Shared(t).Addr, New: f, Key: redistest.Key(t), Timeout: timeout}
	return locktest.Check(context.Background(), cfg, p)
}

// join returns the Strings of args joined by sep, as a timeline's text
// writes them.
func join(args []history.Arg, sep string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.String()
	}
	return strings.Join(parts, sep)
}

// commands returns the commands of a timeline, one string each.
func commands(tl []history.Event) string {
	var b strings.Builder
	for _, e := range tl {
		if e.Kind == history.EvCommand {
			b.WriteString(e.Client + " " + join(e.Command, " ") + "\n")
		}
	}
	return b.String()
}

// TestSeededBugs proves the suite has teeth: a few mutants of the corpus
// (TestMutants runs them all) are caught, each with a counterexample that
// shows the bug's effect.
func TestSeededBugs(t *testing.T) {
	tests := []struct {
		name   string
		new    locktest.Factory
		prop   locktest.Property
		reason string // what the verdict must say happened
		shows  string // a command the counterexample must contain
	}{
		{
			name:   "release compares token lengths",
			new:    mutant(t, "release-length-compare").New,
			prop:   locktest.DoubleRelease,
			reason: "then A's second release deleted K, B's lock: C acquired the lock while B still held it",
			shows:  "A EVALSHA",
		},
		{
			name:   "release compares token lengths, late",
			new:    mutant(t, "release-length-compare").New,
			prop:   locktest.SafeRelease,
			reason: "when A resumed, A's release deleted K, B's lock",
			shows:  "A EVALSHA",
		},
		{
			name:   "acquire on a stale read",
			new:    mutant(t, "get-then-set").New,
			prop:   locktest.Exclusion,
			reason: "both clients acquired the same free lock",
			shows:  "B SET K",
		},
		{
			name:   "milliseconds passed as EX seconds",
			new:    mutant(t, "ex-milliseconds").New,
			prop:   locktest.CrashRecovery,
			reason: "could not acquire it",
			shows:  "EX 60",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := check(t, tt.new, tt.prop, 0)
			require.NoError(t, res.Err)
			require.Equal(t, locktest.Breaks, res.Verdict, "%s: %s", tt.prop, res.Reason())
			assert.Contains(t, res.Reason(), tt.reason)
			assert.Contains(t, commands(res.Timeline), tt.shows, "counterexample:\n%s", locktest.FormatTimeline(res.Timeline))
		})
	}
}

// panicky and hanging are strategies that misbehave.
// panicky panics in TryAcquire or, with a pool, in Release: it grants
// the lock after one command through the pool (a lock that sends none is
// refused before its Release is called).
type panicky struct{ pool strategy.Pool }

func (p panicky) TryAcquire(ctx context.Context, _ string, _ time.Duration) (strategy.Lock, error) {
	if p.pool == nil {
		panic("boom in TryAcquire")
	}
	c, err := p.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if _, err := c.Do("PING"); err != nil {
		return nil, err
	}
	return panickyLock{}, nil
}

type panickyLock struct{}

func (panickyLock) Key() string                   { return "k" }
func (panickyLock) Release(context.Context) error { panic("boom in Release") }

type hanging struct{}

func (hanging) TryAcquire(context.Context, string, time.Duration) (strategy.Lock, error) {
	select {} // ignores its context too
}

type silent struct{}

func (silent) TryAcquire(context.Context, string, time.Duration) (strategy.Lock, error) {
	return nil, nil
}

// TestBadStrategies: a broken factory or strategy is a failure of the
// property with a clear message, and the suite never hangs.
func TestBadStrategies(t *testing.T) {
	tests := []struct {
		name    string
		new     locktest.Factory
		prop    locktest.Property
		timeout time.Duration
		want    string
	}{
		{"nil factory", nil, locktest.Exclusion, 0, "nil Factory"},
		{"factory returns nil", func(locktest.Client) (strategy.Strategy, error) { return nil, nil }, locktest.Exclusion, 0, "nil Strategy"},
		{"factory fails", func(locktest.Client) (strategy.Strategy, error) { return nil, errors.New("no config") }, locktest.DoubleRelease, 0, "the factory failed: no config"},
		{"factory panics", func(locktest.Client) (strategy.Strategy, error) { panic("boom in factory") }, locktest.DoubleRelease, 0, "boom in factory"},
		{"TryAcquire panics", func(locktest.Client) (strategy.Strategy, error) { return panicky{}, nil }, locktest.Exclusion, 0, "panicked: boom in TryAcquire"},
		{"Release panics", func(c locktest.Client) (strategy.Strategy, error) { return panicky{pool: c.Pool}, nil }, locktest.DoubleRelease, 0, "Release panicked: boom in Release"},
		{"TryAcquire returns nothing", func(locktest.Client) (strategy.Strategy, error) { return silent{}, nil }, locktest.CrashRecovery, 0, "neither a lock nor an error"},
		{"TryAcquire hangs", func(locktest.Client) (strategy.Strategy, error) { return hanging{}, nil }, locktest.SafeRelease, time.Second, "watchdog"},
		{"TryAcquire hangs in a stale-lock scenario", func(locktest.Client) (strategy.Strategy, error) { return hanging{}, nil }, locktest.StaleTakeoverRace, time.Second, "watchdog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res := check(t, tt.new, tt.prop, tt.timeout)
			require.Error(t, res.Err, "verdict %s: %s", res.Verdict, res.Reason())
			assert.Contains(t, res.Err.Error(), tt.want)
			assert.Less(t, time.Since(start), 10*time.Second)
			assert.Contains(t, locktest.Mismatch(res, locktest.Holds), "no verdict")
		})
	}
}

// TestMismatch: the strictness rules, both ways.
func TestMismatch(t *testing.T) {
	holds := locktest.Result{Property: locktest.SafeRelease, Verdict: locktest.Holds, Message: locktest.Message{ID: "late.resumes"}}
	breaks := locktest.Result{Property: locktest.SafeRelease, Verdict: locktest.Breaks, Message: locktest.Message{ID: "freed.while-held"},
		Timeline: []history.Event{{Client: "A", Kind: history.EvCommand, Command: []history.Arg{{Kind: history.ArgText, Text: "DEL"}, {Kind: history.ArgKey, Text: "lock:x"}},
			Reply: []history.Arg{{Kind: history.ArgNumber, Text: "1"}}}}}
	na := locktest.Result{Property: locktest.SafeRelease, Verdict: locktest.NotApplicable, Message: locktest.Message{ID: "key.no-expiry"}}

	assert.Empty(t, locktest.Mismatch(holds, locktest.Holds))
	assert.Empty(t, locktest.Mismatch(breaks, locktest.Breaks))
	assert.Empty(t, locktest.Mismatch(na, locktest.NotApplicable))
	assert.Contains(t, locktest.Mismatch(holds, locktest.Breaks), "expected to break, but A resumes")
	m := locktest.Mismatch(breaks, locktest.Holds)
	assert.Contains(t, m, "verdict = breaks, wanted holds")
	assert.Contains(t, m, "A DEL K -> 1", "an undeclared break shows its counterexample")
	assert.Contains(t, locktest.Mismatch(na, locktest.Holds), "verdict = n/a, wanted holds")
	assert.Contains(t, locktest.Mismatch(holds, locktest.NotApplicable), "verdict = holds, wanted n/a")
}

func TestExpect(t *testing.T) {
	e := locktest.Expect{Breaks: []locktest.Property{locktest.ClockSkew}, NotApplicable: []locktest.Property{locktest.CrashMidAcquire}}
	assert.Equal(t, locktest.Breaks, e.Verdict(locktest.ClockSkew))
	assert.Equal(t, locktest.NotApplicable, e.Verdict(locktest.CrashMidAcquire))
	assert.Equal(t, locktest.Holds, e.Verdict(locktest.Exclusion))
}

func TestParseProperty(t *testing.T) {
	for _, p := range locktest.Properties() {
		got, err := locktest.ParseProperty(string(p))
		require.NoError(t, err)
		assert.Equal(t, p, got)
	}
	_, err := locktest.ParseProperty("mutual-exclusion")
	assert.ErrorContains(t, err, `unknown property "mutual-exclusion"`)
}

// TestPropertyFiles: the properties their files register come in their
// places, topology properties last, each with floors (Floor) where
// holding waits at least as long as any verdict.
func TestPropertyFiles(t *testing.T) {
	all := locktest.AllProperties()
	assert.Equal(t, append(locktest.Properties(), locktest.TopologyProperties()...), all)
	for _, tm := range []locktest.Timing{{}, {Short: time.Second, Slack: 1500 * time.Millisecond}} {
		for _, p := range all {
			anyV, holds := p.Floor(tm, locktest.Breaks), p.Floor(tm, locktest.Holds)
			assert.LessOrEqual(t, anyV, holds, "%s: the floor of any verdict is above that of holds", p)
			assert.Equal(t, anyV, p.Floor(tm, locktest.NotApplicable), p)
			assert.Zero(t, p.Floor(tm, locktest.NoVerdict), p)
		}
	}
	assert.Equal(t, 60*time.Millisecond, locktest.CrashRecovery.Floor(locktest.Timing{}, locktest.Holds), "the defaults of a zero Timing")
	assert.Zero(t, locktest.Property("no-such").Floor(locktest.Timing{}, locktest.Holds))
}

// TestResultJSON: a result keeps its error and elapsed time (to the
// microsecond, in ms as lockcheck writes it) through JSON, and a check
// without a verdict says so in its verdict.
func TestResultJSON(t *testing.T) {
	res := check(t, func(locktest.Client) (strategy.Strategy, error) { return nil, errors.New("no config") }, locktest.Exclusion, 0)
	require.Error(t, res.Err)
	assert.Equal(t, locktest.NoVerdict, res.Verdict)
	assert.Positive(t, res.Elapsed)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"verdict":"error"`)
	assert.Contains(t, string(b), `"error":"W: the factory failed: no config"`)
	assert.Contains(t, string(b), `"message":{"id":"fail.factory"`, "why there is no verdict, as a message")
	assert.Contains(t, string(b), `"elapsed_ms":`)
	assert.NotContains(t, string(b), `"elapsed_ns"`)
	var back locktest.Result
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, res.Elapsed.Truncate(time.Microsecond), back.Elapsed)
	assert.EqualError(t, back.Err, res.Err.Error())
	assert.Equal(t, res.Message, back.Message)
	assert.Equal(t, res.Property, back.Property)
}

// plainConnPool hands out connections that hide DoContext, as a careless
// wrapper would.
// TestUnreachable: an Addr where no Redis answers, or none at all, is
// refused up front with a message that says so, and no verdict.
func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	newLock := func(locktest.Client) (strategy.Strategy, error) { return silent{}, nil }
	res := locktest.Check(context.Background(), locktest.Config{Addr: addr, Key: redistest.Key(t), New: newLock}, locktest.Exclusion)
	require.Error(t, res.Err)
	assert.Contains(t, res.Err.Error(), "no connection to Redis")
	assert.Equal(t, locktest.NoVerdict, res.Verdict)

	res = locktest.Check(context.Background(), locktest.Config{Key: redistest.Key(t), New: newLock}, locktest.Exclusion)
	require.Error(t, res.Err)
	assert.Contains(t, res.Err.Error(), "no Addr")
}

// secondsLock is a correct token lock that can only express whole seconds:
// it rounds every TTL up with EX.
type secondsLock struct{ p strategy.Pool }

type secondsHeld struct {
	p          strategy.Pool
	key, token string
}

var compareAndDelete = redis.NewScript(1, `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

func (s secondsLock) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	c, err := s.p.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	token := fmt.Sprint(time.Now().UnixNano())
	secs := (ttl + time.Second - 1) / time.Second
	if _, err := redis.String(c.Do("SET", key, token, "NX", "EX", int64(secs))); err == redis.ErrNil {
		return nil, strategy.ErrNotAcquired
	} else if err != nil {
		return nil, err
	}
	return &secondsHeld{s.p, key, token}, nil
}

func (l *secondsHeld) Key() string { return l.key }

func (l *secondsHeld) Release(ctx context.Context) error {
	c, err := l.p.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	n, err := redis.Int(compareAndDelete.Do(c, l.key, l.token))
	if err == nil && n == 0 {
		err = strategy.ErrNotHeld
	}
	return err
}

// TestTimeScale: a lock that rounds TTLs up to seconds is named for what it
// does at the default scale, with the figures read from K, and gets true
// verdicts at a scale of seconds.
func TestTimeScale(t *testing.T) {
	newLock := func(c locktest.Client) (strategy.Strategy, error) { return secondsLock{c.Pool}, nil }
	res := check(t, newLock, locktest.CrashRecovery, 0)
	require.NoError(t, res.Err)
	require.Equal(t, locktest.Breaks, res.Verdict, res.Reason())
	assert.Regexp(t, `K still had [0-9.]+ms to live 560ms after a TTL of 60ms was asked: its expiry was set longer than asked`, res.Reason())

	cfg := locktest.Config{Addr: redistest.Shared(t).Addr, New: newLock, Key: redistest.Key(t),
		Timing: locktest.Timing{Short: time.Second, Slack: 1500 * time.Millisecond}}
	for p, want := range map[locktest.Property]locktest.Verdict{
		locktest.CrashRecovery: locktest.Holds,
		locktest.SafeRelease:   locktest.Holds,
		locktest.HolderOverrun: locktest.Breaks,
	} {
		res := locktest.Check(context.Background(), cfg, p)
		require.NoError(t, res.Err, p)
		assert.Equal(t, want, res.Verdict, "%s at a scale of seconds: %s", p, res.Reason())
	}
}

// TestSickServer: a server that stalls (DEBUG SLEEP) in every run of a
// check yields no verdict but says why; one stall in the first run only is
// run again and yields the declared verdict.
func TestSickServer(t *testing.T) {
	ctx := context.Background()
	srv, err := redistest.StartProcess(ctx, "--enable-debug-command", "yes")
	if errors.Is(err, redistest.ErrNoRedisServer) {
		t.Skip("redis-server is not on PATH (make setup installs it)")
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	pool := srv.NewPool()
	t.Cleanup(func() { _ = pool.Close() })
	e, ok := catalog.Lookup("luatoken-renew-fence")
	require.True(t, ok)
	sleep := func(secs string) {
		c := pool.Get()
		defer c.Close()
		_, err := c.Do("DEBUG", "SLEEP", secs)
		assert.NoError(t, err, "DEBUG SLEEP")
	}
	cfg := locktest.Config{Addr: srv.Addr, New: e.New, Key: redistest.Key(t)}

	stop := make(chan struct{})
	stalled := make(chan struct{})
	go func() {
		defer close(stalled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(150 * time.Millisecond):
				sleep("0.3")
			}
		}
	}()
	res := locktest.Check(ctx, cfg, locktest.RenewedOverrun)
	close(stop)
	<-stalled
	require.ErrorIs(t, res.Err, locktest.ErrInconclusive, "verdict %s: %s", res.Verdict, res.Reason())
	assert.Equal(t, locktest.NoVerdict, res.Verdict)
	assert.Contains(t, res.Err.Error(), "the server stalled")

	cfg.Key += ":once"
	go func() {
		time.Sleep(100 * time.Millisecond)
		sleep("1")
	}()
	res = locktest.Check(ctx, cfg, locktest.RenewedOverrun)
	require.NoError(t, res.Err)
	assert.Equal(t, e.Expect.Verdict(locktest.RenewedOverrun), res.Verdict, res.Reason())
	assert.Greater(t, res.Elapsed, time.Second, "the stalled first run, then a clean one")
}

// TestEvictingServer: on a server that evicts keys while a check runs
// (maxmemory-policy allkeys-lru, another client writing), a lock can lose
// its key through no fault of its own; the check yields no verdict and
// says why, rather than giving the server's verdict as the lock's (in
// issue 23, luatoken's exclusion broke on such a server).
func TestEvictingServer(t *testing.T) {
	ctx := context.Background()
	srv, err := redistest.StartEvicting(ctx)
	if errors.Is(err, redistest.ErrNoRedisServer) {
		t.Skip("redis-server is not on PATH (make setup installs it)")
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	e, ok := catalog.Lookup("luatoken")
	require.True(t, ok)
	cfg := locktest.Config{Addr: srv.Addr, New: e.New, Key: redistest.Key(t)}

	res := locktest.Check(ctx, cfg, locktest.Exclusion)
	require.ErrorIs(t, res.Err, locktest.ErrInconclusive, "verdict %s: %s", res.Verdict, res.Reason())
	assert.ErrorIs(t, res.Err, locktest.ErrEvicted)
	assert.Equal(t, locktest.NoVerdict, res.Verdict)
	assert.Regexp(t, `each of the 3 runs of the check was disturbed; the last: the server evicted \d+ keys? during the check \(maxmemory-policy allkeys-lru\): `+
		`a verdict would be the server's, not the lock's$`, res.Err.Error())
	t.Log(res.Err)
}

// TestResultJSONTimeline: a counterexample goes through JSON whole, in
// lockcheck's names: t0 in Unix ms, each event's command and reply as
// typed values, its message as data.
func TestResultJSONTimeline(t *testing.T) {
	text := func(s string) history.Arg { return history.Arg{Kind: history.ArgText, Text: s} }
	acquired := locktest.Message{ID: "event.acquired"}
	res := locktest.Result{Property: locktest.Exclusion, Verdict: locktest.Breaks, Message: locktest.Message{ID: "freed.while-held"},
		Key: "lock:x", Start: time.UnixMilli(1700000000123), Elapsed: 1001 * time.Microsecond,
		Tokens: map[string][]string{"A": {"a1"}},
		Timeline: []history.Event{
			{At: time.Millisecond, Client: "A", Kind: history.EvCommand,
				Command: []history.Arg{text("SET"), {Kind: history.ArgKey, Text: "lock:x"}, {Kind: history.ArgToken, Text: "a1", Client: "A"}},
				Reply:   []history.Arg{text("OK")}},
			{At: 2 * time.Millisecond, Client: "A", Kind: history.EvAcquired, Msg: &acquired},
		}}
	b, err := json.Marshal(res)
	require.NoError(t, err)
	s := string(b)
	assert.Contains(t, s, `"start_unix_ms":1700000000123`)
	assert.Contains(t, s, `"elapsed_ms":1.001`)
	assert.Contains(t, s, `"command":[{"kind":"text","text":"SET"},{"kind":"key","text":"lock:x"},{"kind":"token","text":"a1","client":"A"}]`)
	assert.Contains(t, s, `"reply":[{"kind":"text","text":"OK"}]`)
	assert.Contains(t, s, `"msg":{"id":"event.acquired"}`)
	for _, gone := range []string{`"text":"now`, `"args"`, `"reply_args"`, `"text_args"`, `"elapsed_ns"`} {
		assert.NotContains(t, s, gone)
	}
	var back locktest.Result
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, res, back)
}
