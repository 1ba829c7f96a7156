package getset_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/getset"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return getset.New(p) }

func newStamped(p strategy.Pool, c strategy.Clock) (strategy.Strategy, error) {
	return getset.New(p, getset.WithClock(c))
}

func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "getset", newStrategy, strategytest.WrongTypeError)
}

func TestStamped(t *testing.T) {
	strategytest.RunStamped(t, strategytest.StampedSpec{
		Name:          "getset",
		New:           newStamped,
		AcquireBuffer: time.Millisecond,
		Gone:          []string{"SETNX", "GET", "GETSET"},
		GoneAcquires:  true,
		Release:       strategytest.ReleaseIfAhead,
	})
}

// A stale lock is taken over with GETSET.
func TestTakeover(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	t0 := strategytest.T0.UnixMilli()
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(t0-1))
	rp := &strategytest.RecordPool{Pool: p}
	s, err := getset.New(rp, getset.WithClock(strategytest.NewManualClock(strategytest.T0).Clock()))
	require.NoError(t, err)

	lock, err := s.TryAcquire(context.Background(), key, strategytest.TTL)
	require.NoError(t, err)
	require.NotNil(t, lock)
	assert.Equal(t, []string{"SETNX", "GET", "GETSET"}, rp.Names())
}

// Two clients read the same stale time; the one whose GETSET comes second
// gets back the first one's fresh time and loses, as it should. Its GETSET
// still wrote, though: the winner's lock now carries the loser's expiry,
// the flaw documents 003 and 004 admit.
func TestTakeoverRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	clock := strategytest.NewManualClock(strategytest.T0)
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(strategytest.T0.UnixMilli()-1))

	first, err := getset.New(p, getset.WithClock(clock.Clock()))
	require.NoError(t, err)
	later := strategytest.NewManualClock(strategytest.T0.Add(5 * time.Millisecond))
	var (
		once     sync.Once
		firstErr error
	)
	rp := &strategytest.RecordPool{Pool: p, Before: func(c strategytest.Command) {
		if c.Name == "GETSET" {
			// The second client has read the stale time; the first
			// takes the lock over before its GETSET.
			once.Do(func() { _, firstErr = first.TryAcquire(ctx, key, strategytest.TTL) })
		}
	}}
	second, err := getset.New(rp, getset.WithClock(later.Clock()))
	require.NoError(t, err)

	lock, err := second.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, firstErr, "the first client did not take the stale lock over")
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "both clients hold the lock")
	assert.Nil(t, lock)
	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, strategytest.Stamp(later.Now().Add(strategytest.TTL+time.Millisecond).UnixMilli()), v,
		"the loser's GETSET should have overwritten the winner's time")
}
