package delsetnx_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/delsetnx"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return delsetnx.New(p) }

func newStamped(p strategy.Pool, c strategy.Clock) (strategy.Strategy, error) {
	return delsetnx.New(p, delsetnx.WithClock(c))
}

func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "delsetnx", newStrategy, strategytest.WrongTypeError)
}

func TestStamped(t *testing.T) {
	strategytest.RunStamped(t, strategytest.StampedSpec{
		Name:    "delsetnx",
		New:     newStamped,
		Gone:    []string{"SETNX", "GET"},
		Release: strategytest.ReleaseIfAhead,
	})
}

// A stale lock is taken over with DEL, then SETNX.
func TestTakeover(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(strategytest.T0.UnixMilli()-1))
	rp := &strategytest.RecordPool{Pool: p}
	s, err := delsetnx.New(rp, delsetnx.WithClock(strategytest.NewManualClock(strategytest.T0).Clock()))
	require.NoError(t, err)

	lock, err := s.TryAcquire(context.Background(), key, strategytest.TTL)
	require.NoError(t, err)
	require.NotNil(t, lock)
	assert.Equal(t, []string{"SETNX", "GET", "DEL", "SETNX"}, rp.Names())
}

// The race document 000 describes: two clients read the same stale time;
// the first DELs it and SETNXes its own; the second's DEL then deletes the
// first one's fresh lock, and its SETNX wins. Both hold the lock.
func TestTakeoverRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(strategytest.T0.UnixMilli()-1))

	first, err := delsetnx.New(p, delsetnx.WithClock(strategytest.NewManualClock(strategytest.T0).Clock()))
	require.NoError(t, err)
	var (
		once      sync.Once
		firstLock strategy.Lock
		firstErr  error
	)
	rp := &strategytest.RecordPool{Pool: p, Before: func(c strategytest.Command) {
		if c.Name == "DEL" {
			// The second client has read the stale time; the first takes
			// the lock over before the second's DEL.
			once.Do(func() { firstLock, firstErr = first.TryAcquire(ctx, key, strategytest.TTL) })
		}
	}}
	later := strategytest.NewManualClock(strategytest.T0.Add(5 * time.Millisecond))
	second, err := delsetnx.New(rp, delsetnx.WithClock(later.Clock()))
	require.NoError(t, err)

	lock, err := second.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, firstErr, "the first client did not take the stale lock over")
	require.NotNil(t, firstLock)
	require.NoError(t, err, "the second client's DEL should have deleted the first one's lock")
	require.NotNil(t, lock)
	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, strategytest.Stamp(later.Now().UnixMilli()+strategytest.TTL.Milliseconds()), v)
}
