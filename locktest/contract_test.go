package locktest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/internal/mutants"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/setnxpx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// careless is SET key 1 PX ttl, without NX and without checking its
// arguments; with busy, every error reads as a held lock.
type careless struct {
	p    strategy.Pool
	busy bool
}

func (s careless) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	conn, err := s.p.GetContext(ctx)
	if err == nil {
		defer conn.Close()
		_, err = redis.DoContext(conn, ctx, "SET", key, "1", "PX", ttl.Milliseconds())
	}
	if err != nil {
		if s.busy {
			return nil, fmt.Errorf("%w: %v", strategy.ErrNotAcquired, err)
		}
		return nil, err
	}
	return pipelinedLock{s.p, key}, nil
}

// contract runs Contract and returns the names of the checks that failed.
func contract(t *testing.T, f locktest.Factory) []string {
	t.Helper()
	cfg := locktest.Config{Addr: redistest.Shared(t).Addr, New: f, Key: redistest.Key(t), Timeout: 5 * time.Second}
	var failed []string
	for _, c := range locktest.Contract(context.Background(), cfg) {
		if c.Err != nil {
			t.Logf("%s: %v", c.Name, c.Err)
			failed = append(failed, c.Name)
		}
	}
	return failed
}

// TestContract: a lock that overwrites whatever the key holds fails the
// check of keys of another type; one that reads every error as a held
// lock fails the unreachable check, and so does one that reads every
// error as a grant; a plain correct lock passes, and one
// that hangs is stopped by the watchdog.
func TestContract(t *testing.T) {
	assert.Empty(t, contract(t, func(c locktest.Client) (strategy.Strategy, error) { return setnxpx.New(c.Pool) }))
	assert.Equal(t, []string{"wrong-type"},
		contract(t, func(c locktest.Client) (strategy.Strategy, error) { return careless{p: c.Pool}, nil }))
	assert.Equal(t, []string{"unreachable", "wrong-type"},
		contract(t, func(c locktest.Client) (strategy.Strategy, error) { return careless{p: c.Pool, busy: true}, nil }))
	// A lock that takes any error of its SET for a grant: the outage meets
	// its SET, on the connection it logged in with before, and it grants.
	assert.Equal(t, []string{"unreachable"}, contract(t, mutant(t, "error-taken-for-grant").New))
	cfg := locktest.Config{Addr: redistest.Shared(t).Addr, Key: redistest.Key(t), Timeout: 300 * time.Millisecond,
		New: func(locktest.Client) (strategy.Strategy, error) { return hanging{}, nil }}
	for _, c := range locktest.Contract(context.Background(), cfg) {
		require.Error(t, c.Err, c.Name)
		assert.Contains(t, c.Err.Error(), "watchdog", c.Name)
	}
}

// TestContractOnVariants: the contract raises no false alarm on the
// correct variants of the token lock (a WATCH release, a MULTI acquire, a
// hash-valued key set by a script); and it catches the mutant that
// acquires with SET without NX, which overwrites a key of another type.
func TestContractOnVariants(t *testing.T) {
	for _, v := range mutants.Variants() {
		assert.Empty(t, contract(t, v.New), v.Name)
	}
	m, ok := mutants.Lookup("no-nx")
	require.True(t, ok)
	assert.Equal(t, []string{"wrong-type"}, contract(t, m.New))
}

// lingering is a strategy whose locks wait before they release.
type lingering struct{ s strategy.Strategy }

func (s lingering) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	l, err := s.s.TryAcquire(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	return lingeringLock{l}, nil
}

type lingeringLock struct{ strategy.Lock }

func (l lingeringLock) Release(ctx context.Context) error {
	time.Sleep(100 * time.Millisecond)
	return l.Lock.Release(ctx)
}

// TestContractTakesTurns: the key "" is one key for every run on a
// server, so checks that run at once (in tests, processes or exercises
// side by side) take turns on it, and a key "" left by an earlier run (a
// lock that failed the check, a run that was killed) is cleared first.
// Without the turns, one of four correct locks that hold "" for 100ms
// each is refused and sees the key another wrote.
func TestContractTakesTurns(t *testing.T) {
	srv := redistest.Shared(t)
	conn, err := redis.Dial("tcp", srv.Addr)
	require.NoError(t, err)
	defer conn.Close()
	// Left in a turn of its own, so that no other test's check sees it.
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", srv.Addr) }}
	defer pool.Close()
	_, err = locktest.EmptyKeyTurn(context.Background(), pool, 10*time.Second)
	require.NoError(t, err)
	_, err = conn.Do("SET", "", "left by an earlier run")
	require.NoError(t, err)
	_, err = conn.Do("DEL", locktest.EmptyKeyTurnKey) // gives the turn back, "" kept
	require.NoError(t, err)
	f := func(c locktest.Client) (strategy.Strategy, error) { return lingering{pipelined{c.Pool}}, nil }
	failed := make(chan []string, 4)
	for range 4 {
		go func() { failed <- contract(t, f) }()
	}
	for range 4 {
		assert.Empty(t, <-failed)
	}
	n, err := redis.Int(conn.Do("EXISTS", ""))
	require.NoError(t, err)
	assert.Zero(t, n, `the checks leave no key ""`)
}
