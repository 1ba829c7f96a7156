package delsetnxcheck_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/delsetnxcheck"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return delsetnxcheck.New(p) }

func newStamped(p strategy.Pool, c strategy.Clock) (strategy.Strategy, error) {
	return delsetnxcheck.New(p, delsetnxcheck.WithClock(c))
}

func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "delsetnxcheck", newStrategy, strategytest.WrongTypeError)
}

// A time equal to now is stale (`if ($t > time())`); a key gone before the
// GET reads as a stale time, and the DEL that finds nothing gives up; the
// release is a plain DEL.
func TestStamped(t *testing.T) {
	strategytest.RunStamped(t, strategytest.StampedSpec{
		Name:          "delsetnxcheck",
		New:           newStamped,
		StaleAtExpiry: true,
		Gone:          []string{"SETNX", "GET", "DEL"},
		Release:       strategytest.ReleaseDel,
	})
}

// A stale lock is taken over with DEL, then SETNX.
func TestTakeover(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(strategytest.T0.UnixMilli()-1))
	rp := &strategytest.RecordPool{Pool: p}
	s, err := delsetnxcheck.New(rp, delsetnxcheck.WithClock(strategytest.NewManualClock(strategytest.T0).Clock()))
	require.NoError(t, err)

	lock, err := s.TryAcquire(context.Background(), key, strategytest.TTL)
	require.NoError(t, err)
	require.NotNil(t, lock)
	assert.Equal(t, []string{"SETNX", "GET", "DEL", "SETNX"}, rp.Names())
}

// between returns a pool on p that runs f once, just before the first
// command named cmd that a client on it sends.
func between(p strategy.Pool, cmd string, f func()) *strategytest.RecordPool {
	var once sync.Once
	return &strategytest.RecordPool{Pool: p, Before: func(c strategytest.Command) {
		if c.Name == cmd {
			once.Do(f)
		}
	}}
}

// What tells this package from delsetnx: two waiters read the same stale
// time and the first one's DEL comes before the second's; the second DEL
// deletes nothing, and the second waiter gives up before its SETNX.
func TestDelDeletesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(strategytest.T0.UnixMilli()-1))
	rp := between(p, "DEL", func() {
		// The other waiter's DEL, before its SETNX.
		strategytest.Do(t, p, "DEL", key)
	})
	s, err := delsetnxcheck.New(rp, delsetnxcheck.WithClock(strategytest.NewManualClock(strategytest.T0).Clock()))
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	assert.Nil(t, lock)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "a DEL that deleted nothing went on to SETNX")
	assert.Equal(t, []string{"SETNX", "GET", "DEL"}, rp.Names())
	assert.False(t, strategytest.Exists(t, p, key), "the attempt that gave up wrote the key")
}

// The race the document describes under 存在问题: two waiters read the same
// stale time; the first DELs it and SETNXes its own; the second's DEL then
// deletes the first one's fresh lock, so it counts 1 and the check lets the
// second waiter on to its SETNX, which wins. Both hold the lock.
func TestTakeoverRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(strategytest.T0.UnixMilli()-1))

	first, err := delsetnxcheck.New(p, delsetnxcheck.WithClock(strategytest.NewManualClock(strategytest.T0).Clock()))
	require.NoError(t, err)
	var (
		firstLock strategy.Lock
		firstErr  error
	)
	rp := between(p, "DEL", func() {
		// The second client has read the stale time; the first takes
		// the lock over before the second's DEL.
		firstLock, firstErr = first.TryAcquire(ctx, key, strategytest.TTL)
	})
	later := strategytest.NewManualClock(strategytest.T0.Add(5 * time.Millisecond))
	second, err := delsetnxcheck.New(rp, delsetnxcheck.WithClock(later.Clock()))
	require.NoError(t, err)

	lock, err := second.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, firstErr, "the first client did not take the stale lock over")
	require.NotNil(t, firstLock)
	require.NoError(t, err, "the second client's DEL should have deleted the first one's lock")
	require.NotNil(t, lock)
	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, strategytest.Stamp(later.Now().UnixMilli()+strategytest.TTL.Milliseconds()), v)
}

// The break without any fault that the document does not see: the holder
// releases between a waiter's SETNX and its GET, so the GET reads no time,
// which PHP's `$t > time()` finds stale; a third client's SETNX then takes
// the free lock before the waiter's DEL, which deletes that fresh lock
// (count 1, so the check lets it on), and the waiter's SETNX wins too.
func TestReleaseBeforeGet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	clock := strategytest.NewManualClock(strategytest.T0)
	newClient := func(p strategy.Pool) *delsetnxcheck.Strategy {
		s, err := delsetnxcheck.New(p, delsetnxcheck.WithClock(clock.Clock()))
		require.NoError(t, err)
		return s
	}
	holder, err := newClient(p).TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)

	var (
		third    strategy.Lock
		thirdErr error
	)
	rp := &strategytest.RecordPool{Pool: p}
	rp.Before = func(c strategytest.Command) {
		switch {
		case c.Name == "GET":
			require.NoError(t, holder.Release(ctx))
		case c.Name == "DEL" && third == nil && thirdErr == nil:
			third, thirdErr = newClient(p).TryAcquire(ctx, key, strategytest.TTL)
		}
	}
	lock, err := newClient(rp).TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, thirdErr)
	require.NotNil(t, third, "the third client did not take the free lock")
	require.NoError(t, err, "the waiter's DEL should have deleted the third client's lock")
	require.NotNil(t, lock)
	assert.Equal(t, []string{"SETNX", "GET", "DEL", "SETNX"}, rp.Names())
}
