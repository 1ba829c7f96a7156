package strategytest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/require"
)

// Margin is how much later than its deadline a call may return and still
// pass: generous, so that a loaded machine running with -race does not fail
// the timing checks, yet far below the seconds a call that ignored its
// context would take.
const Margin = time.Second

// TTL is the TTL of locks that must not expire during a test.
const TTL = 10 * time.Second

// Do sends one command to the shared server on a connection of its own and
// fails the test on an error.
func Do(tb testing.TB, p *redis.Pool, cmd string, args ...any) any {
	tb.Helper()
	c, err := p.GetContext(context.Background())
	require.NoError(tb, err)
	defer c.Close()
	reply, err := c.Do(cmd, args...)
	require.NoError(tb, err, "%s %v", cmd, args)
	return reply
}

// Get returns the string at key and whether the key exists.
func Get(tb testing.TB, p *redis.Pool, key string) (string, bool) {
	tb.Helper()
	v, err := redis.String(Do(tb, p, "GET", key), nil)
	if errors.Is(err, redis.ErrNil) {
		return "", false
	}
	require.NoError(tb, err)
	return v, true
}

// Exists reports whether key exists.
func Exists(tb testing.TB, p *redis.Pool, key string) bool {
	tb.Helper()
	n, err := redis.Int(Do(tb, p, "EXISTS", key), nil)
	require.NoError(tb, err)
	return n == 1
}

// PTTL returns PTTL key: milliseconds left, -1 for no expiry, -2 for no key.
func PTTL(tb testing.TB, p *redis.Pool, key string) int64 {
	tb.Helper()
	n, err := redis.Int64(Do(tb, p, "PTTL", key), nil)
	require.NoError(tb, err)
	return n
}

// ZScore returns the score of member in the sorted set at key, and false
// when it is not there.
func ZScore(tb testing.TB, p *redis.Pool, key, member string) (int64, bool) {
	tb.Helper()
	v, err := redis.Int64(Do(tb, p, "ZSCORE", key, member), nil)
	if errors.Is(err, redis.ErrNil) {
		return 0, false
	}
	require.NoError(tb, err)
	return v, true
}

// ZCard returns the number of members of the sorted set at key.
func ZCard(tb testing.TB, p *redis.Pool, key string) int {
	tb.Helper()
	n, err := redis.Int(Do(tb, p, "ZCARD", key), nil)
	require.NoError(tb, err)
	return n
}

// ServerMillis returns the server's time (TIME) in Unix milliseconds.
func ServerMillis(tb testing.TB, p *redis.Pool) int64 {
	tb.Helper()
	t, err := redis.Int64s(Do(tb, p, "TIME"), nil)
	require.NoError(tb, err)
	return t[0]*1000 + t[1]/1000
}

// RequireTTLNear checks that key expires in ttl, give or take the time the
// test took since it set it (at most Margin).
func RequireTTLNear(tb testing.TB, p *redis.Pool, key string, ttl time.Duration) {
	tb.Helper()
	left := time.Duration(PTTL(tb, p, key)) * time.Millisecond
	require.LessOrEqual(tb, left, ttl, "PTTL of %s", key)
	require.Greater(tb, left, ttl-Margin, "PTTL of %s", key)
}

// WaitGone waits until key has expired, for up to Margin plus the TTL
// still left on it. It is for tests of expiry, on keys with TTLs of tens of
// milliseconds.
func WaitGone(tb testing.TB, p *redis.Pool, key string) {
	tb.Helper()
	left := PTTL(tb, p, key)
	require.NotEqual(tb, int64(-1), left, "%s has no TTL: it would never expire", key)
	deadline := time.Now().Add(time.Duration(max(left, 0))*time.Millisecond + Margin)
	for Exists(tb, p, key) {
		require.True(tb, time.Now().Before(deadline), "%s did not expire", key)
		time.Sleep(2 * time.Millisecond)
	}
}

// PoolTo returns a pool that dials addr, closed at cleanup.
func PoolTo(tb testing.TB, addr string) *redis.Pool {
	p := &redis.Pool{
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", addr,
				redis.DialConnectTimeout(redistest.ConnectTimeout),
				redis.DialReadTimeout(redistest.ReadTimeout),
				redis.DialWriteTimeout(redistest.WriteTimeout))
		},
		MaxIdle: 8,
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// SilentServer returns the address of a server that accepts connections and
// never answers: every command waits until its context ends.
func SilentServer(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	tb.Cleanup(func() {
		l.Close()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// SwitchPool passes connections from Up, or, while Down is set, from Dead.
// It takes a lock's Redis away and gives it back.
type SwitchPool struct {
	Up, Dead strategy.Pool
	Down     atomic.Bool
}

// GetContext implements strategy.Pool.
func (s *SwitchPool) GetContext(ctx context.Context) (redis.Conn, error) {
	if s.Down.Load() {
		return s.Dead.GetContext(ctx)
	}
	return s.Up.GetContext(ctx)
}

// Command is one command sent through a RecordPool.
type Command struct {
	Name string
	Args []any
}

func (c Command) String() string { return fmt.Sprint(c.Name, c.Args) }

// RecordPool passes connections from Pool and records every command sent on
// them, in order. Before, when set, is called before each command is sent;
// tests use it to act at an exact step of an algorithm.
type RecordPool struct {
	Pool   strategy.Pool
	Before func(Command)

	mu   sync.Mutex
	cmds []Command
}

// GetContext implements strategy.Pool.
func (r *RecordPool) GetContext(ctx context.Context) (redis.Conn, error) {
	c, err := r.Pool.GetContext(ctx)
	if err != nil {
		return c, err
	}
	return &recordConn{Conn: c, r: r}, nil
}

// Commands returns the commands sent so far.
func (r *RecordPool) Commands() []Command {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Command(nil), r.cmds...)
}

// Names returns the names of the commands sent so far.
func (r *RecordPool) Names() []string {
	var names []string
	for _, c := range r.Commands() {
		names = append(names, c.Name)
	}
	return names
}

// Reset forgets the commands sent so far.
func (r *RecordPool) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cmds = nil
}

func (r *RecordPool) record(cmd string, args []any) {
	c := Command{Name: cmd, Args: append([]any(nil), args...)}
	if r.Before != nil {
		r.Before(c)
	}
	r.mu.Lock()
	r.cmds = append(r.cmds, c)
	r.mu.Unlock()
}

// recordConn records the commands sent with Do and DoContext; it supports
// what the strategies use (DoContext, and scripts through it).
type recordConn struct {
	redis.Conn
	r *RecordPool
}

func (c *recordConn) Do(cmd string, args ...any) (any, error) {
	c.r.record(cmd, args)
	return c.Conn.Do(cmd, args...)
}

func (c *recordConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	c.r.record(cmd, args)
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c *recordConn) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(c.Conn, ctx)
}

func (c *recordConn) DoWithTimeout(timeout time.Duration, cmd string, args ...any) (any, error) {
	c.r.record(cmd, args)
	return redis.DoWithTimeout(c.Conn, timeout, cmd, args...)
}

func (c *recordConn) ReceiveWithTimeout(timeout time.Duration) (any, error) {
	return redis.ReceiveWithTimeout(c.Conn, timeout)
}
