package luatoken_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/stretchr/testify/require"
)

// newLuatoken builds the strategy on p with opts, failing the test on error.
func newLuatoken(t testing.TB, p strategy.Pool, opts ...luatoken.Option) *luatoken.Strategy {
	t.Helper()
	s, err := luatoken.New(p, opts...)
	require.NoError(t, err)
	return s
}

// tryAcquire takes a free lock and returns it with its *luatoken.Lock.
func tryAcquire(t testing.TB, s *luatoken.Strategy, key string, ttl time.Duration) (strategy.Lock, *luatoken.Lock) {
	t.Helper()
	l, err := s.TryAcquire(context.Background(), key, ttl)
	require.NoError(t, err)
	ll, ok := l.(*luatoken.Lock)
	require.True(t, ok, "TryAcquire returned a %T", l)
	return l, ll
}

// leaseOf returns the lease of a lock that must have one.
func leaseOf(t testing.TB, l strategy.Lock) context.Context {
	t.Helper()
	lease, ok := strategy.Lease(l)
	require.True(t, ok, "%T has no lease", l)
	return lease
}

// fenceOf returns the fencing token of a lock that must have one.
func fenceOf(t testing.TB, l strategy.Lock) int64 {
	t.Helper()
	token, ok := strategy.FencingToken(l)
	require.True(t, ok, "%T has no fencing token", l)
	return token
}

// waitDone waits up to d for ctx to end and reports when it did.
func waitDone(t testing.TB, ctx context.Context, d time.Duration, what string) time.Time {
	t.Helper()
	select {
	case <-ctx.Done():
		return time.Now()
	case <-time.After(d):
		t.Fatalf("%s: not done after %v", what, d)
		return time.Time{}
	}
}

// eventually checks cond every few milliseconds for up to d.
func eventually(t testing.TB, d time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf(format, args...)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// goroutines returns a function that checks, with retries, that the number
// of goroutines is back to what it is now. Tests that use it must not be
// parallel.
func goroutines(t testing.TB) func() {
	t.Helper()
	runtime.GC()
	base := runtime.NumGoroutine()
	return func() {
		t.Helper()
		var n int
		deadline := time.Now().Add(5 * time.Second)
		for {
			n = runtime.NumGoroutine()
			if n <= base || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if n > base {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left behind (%d, was %d):\n%s", n-base, n, base, buf[:runtime.Stack(buf, true)])
		}
	}
}

// stallPool passes connections from Pool; while stalled, every command sent
// on them waits until Resume, ignoring its context, as a connection whose
// network has stopped would without read timeouts. It models the worst
// case for a lease: renewals that neither pass nor fail.
type stallPool struct {
	Pool strategy.Pool

	mu   sync.Mutex
	gate chan struct{} // non-nil while stalled
	n    atomic.Int64  // commands that waited
}

func (p *stallPool) GetContext(ctx context.Context) (redis.Conn, error) {
	c, err := p.Pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	return &stallConn{Conn: c, p: p}, nil
}

// newStallPool returns a stallPool over p, a pool of the test's own (a
// connection that does not stall, to observe the key with), which
// resumes when the test ends, and a key for the test.
func newStallPool(t testing.TB) (sp *stallPool, p *redis.Pool, key string) {
	t.Helper()
	p = redistest.Pool(t)
	sp = &stallPool{Pool: p}
	t.Cleanup(sp.Resume)
	return sp, p, redistest.Key(t)
}

// Stall makes commands wait from now on.
func (p *stallPool) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gate == nil {
		p.gate = make(chan struct{})
	}
}

// Resume lets waiting and later commands through.
func (p *stallPool) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gate != nil {
		close(p.gate)
		p.gate = nil
	}
}

// Stalled returns how many commands have waited.
func (p *stallPool) Stalled() int64 { return p.n.Load() }

func (p *stallPool) wait() {
	p.mu.Lock()
	gate := p.gate
	p.mu.Unlock()
	if gate != nil {
		p.n.Add(1)
		<-gate
	}
}

type stallConn struct {
	redis.Conn
	p *stallPool
}

func (c *stallConn) Do(cmd string, args ...any) (any, error) {
	c.p.wait()
	return c.Conn.Do(cmd, args...)
}

func (c *stallConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	c.p.wait()
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

// counting counts the attempts of a *luatoken.Strategy and keeps its
// Subscribe (the embedded pointer promotes it), so that strategy.Acquire
// still finds a Notifier.
type counting struct {
	*luatoken.Strategy
	n     atomic.Int64
	tried chan int64
}

func (c *counting) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	l, err := c.Strategy.TryAcquire(ctx, key, ttl)
	n := c.n.Add(1)
	if c.tried != nil {
		select {
		case c.tried <- n:
		default:
		}
	}
	return l, err
}

// watchLag watches how late the process runs a goroutine that wakes every
// millisecond, until the test ends or the function it returns is called;
// that function returns the worst lateness seen. On a loaded machine the
// process can go unscheduled for longer than a renewal interval, and a
// lease that ends then has done its job: a test that needs renewals to
// land in time asks first.
func watchLag(t testing.TB) func() time.Duration {
	t.Helper()
	stop := make(chan struct{})
	done := make(chan time.Duration, 1)
	go func() {
		var worst time.Duration
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		last := time.Now()
		for {
			select {
			case <-stop:
				done <- max(worst, time.Since(last)-time.Millisecond)
				return
			case <-tick.C:
				now := time.Now()
				worst = max(worst, now.Sub(last)-time.Millisecond)
				last = now
			}
		}
	}()
	var once sync.Once
	var worst time.Duration
	get := func() time.Duration {
		once.Do(func() { close(stop); worst = <-done })
		return worst
	}
	t.Cleanup(func() { get() })
	return get
}

// skipIfLagged skips a test whose lease ended before a renewal got
// through while the process went unscheduled for longer than bound (a
// part of the renewal interval): the lease may have been right to end.
func skipIfLagged(t testing.TB, cause error, lag func() time.Duration, bound time.Duration) {
	t.Helper()
	if !errors.Is(cause, luatoken.ErrLeaseExpired) {
		return
	}
	if worst := lag(); worst > bound {
		t.Skipf("the process went unscheduled for %v, more than %v: a renewal could not get through in time, and the lease ended as it must: %v", worst.Round(time.Millisecond), bound, cause)
	}
}
