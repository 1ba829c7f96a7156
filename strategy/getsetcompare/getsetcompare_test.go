package getsetcompare_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/getsetcompare"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return getsetcompare.New(p) }

func newStamped(p strategy.Pool, c strategy.Clock) (strategy.Strategy, error) {
	return getsetcompare.New(p, getsetcompare.WithClock(c))
}

func new003(p strategy.Pool, c strategy.Clock) (strategy.Strategy, error) {
	return getsetcompare.New(p, getsetcompare.WithClock(c), getsetcompare.Document003())
}

func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "getsetcompare", newStrategy, strategytest.WrongTypeError)
}

func TestBasic003(t *testing.T) {
	strategytest.RunBasic(t, "getsetcompare", func(p strategy.Pool) (strategy.Strategy, error) {
		return getsetcompare.New(p, getsetcompare.Document003())
	}, strategytest.WrongTypeError)
}

// Document 004: a time equal to now is stale, and the release is a plain DEL.
func TestStamped(t *testing.T) {
	strategytest.RunStamped(t, strategytest.StampedSpec{
		Name:          "getsetcompare",
		New:           newStamped,
		StaleAtExpiry: true,
		Gone:          []string{"SETNX", "GET", "GETSET"},
		GoneAcquires:  true,
		Release:       strategytest.ReleaseDel,
	})
}

// Document 003: a time equal to now is held, and the release counts the
// holder's own time.
func TestStamped003(t *testing.T) {
	strategytest.RunStamped(t, strategytest.StampedSpec{
		Name:         "getsetcompare",
		New:          new003,
		Gone:         []string{"SETNX", "GET", "GETSET"},
		GoneAcquires: true,
		Release:      strategytest.ReleaseInTime,
	})
}

// WithElapsedRelease alone changes the release and nothing else: a time
// equal to now stays stale, as in document 004.
func TestElapsedRelease(t *testing.T) {
	strategytest.RunStamped(t, strategytest.StampedSpec{
		Name: "getsetcompare",
		New: func(p strategy.Pool, c strategy.Clock) (strategy.Strategy, error) {
			return getsetcompare.New(p, getsetcompare.WithClock(c), getsetcompare.WithElapsedRelease())
		},
		StaleAtExpiry: true,
		Gone:          []string{"SETNX", "GET", "GETSET"},
		GoneAcquires:  true,
		Release:       strategytest.ReleaseInTime,
	})
}

// A stale lock is taken over with GETSET.
func TestTakeover(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(strategytest.T0.UnixMilli()-1))
	rp := &strategytest.RecordPool{Pool: p}
	s, err := getsetcompare.New(rp, getsetcompare.WithClock(strategytest.NewManualClock(strategytest.T0).Clock()))
	require.NoError(t, err)

	lock, err := s.TryAcquire(context.Background(), key, strategytest.TTL)
	require.NoError(t, err)
	require.NotNil(t, lock)
	assert.Equal(t, []string{"SETNX", "GET", "GETSET"}, rp.Names())
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

// Two clients read the same stale time; the one whose GETSET comes second
// gets back the first one's fresh time, not the time its GET read, and
// loses. Its GETSET still wrote, though: the winner's lock now carries the
// loser's expiry, the flaw documents 003 (问题2) and 004 admit.
func TestTakeoverRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(strategytest.T0.UnixMilli()-1))

	first, err := getsetcompare.New(p, getsetcompare.WithClock(strategytest.NewManualClock(strategytest.T0).Clock()))
	require.NoError(t, err)
	var firstErr error
	rp := between(p, "GETSET", func() {
		// The second client has read the stale time; the first takes
		// the lock over before its GETSET.
		_, firstErr = first.TryAcquire(ctx, key, strategytest.TTL)
	})
	later := strategytest.NewManualClock(strategytest.T0.Add(5 * time.Millisecond))
	second, err := getsetcompare.New(rp, getsetcompare.WithClock(later.Clock()))
	require.NoError(t, err)

	lock, err := second.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, firstErr, "the first client did not take the stale lock over")
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "both clients hold the lock")
	assert.Nil(t, lock)
	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, strategytest.Stamp(later.Now().Add(strategytest.TTL).UnixMilli()), v,
		"the loser's GETSET should have overwritten the winner's time")
}

// What tells this package from getset: the takeover compares GETSET's old
// value with the time GET read, not with the clock. When the key changed
// in between to another time that has passed too, getset's test (old <
// now) would win; this one loses.
func TestTakeoverCompares(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	t0 := strategytest.T0.UnixMilli()
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(t0-10))
	rp := between(p, "GETSET", func() {
		// A client whose clock runs behind took the stale lock over
		// with a time that has passed by this client's clock.
		strategytest.Do(t, p, "SET", key, strategytest.Stamp(t0-5))
	})
	s, err := getsetcompare.New(rp, getsetcompare.WithClock(strategytest.NewManualClock(strategytest.T0).Clock()))
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	assert.Nil(t, lock)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "GETSET returned another time than GET, and the attempt won")
	assert.Equal(t, []string{"SETNX", "GET", "GETSET"}, rp.Names())
}

// A stale lock released between the attempt's GET and its GETSET: GETSET
// finds no key, its old value (none) is not the time GET read, and the
// attempt loses, as document 004's `$t2 != $t1` says. Its GETSET wrote a
// live time all the same: the free lock now looks held by nobody's lock
// until that time passes.
func TestTakeoverOnReleasedKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(strategytest.T0.UnixMilli()-1))
	rp := between(p, "GETSET", func() { strategytest.Do(t, p, "DEL", key) })
	clock := strategytest.NewManualClock(strategytest.T0)
	s, err := getsetcompare.New(rp, getsetcompare.WithClock(clock.Clock()))
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	assert.Nil(t, lock)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	v, ok := strategytest.Get(t, p, key)
	require.True(t, ok, "the losing GETSET wrote nothing")
	assert.Equal(t, strategytest.Stamp(strategytest.T0.Add(strategytest.TTL).UnixMilli()), v)

	other, err := getsetcompare.New(p, getsetcompare.WithClock(clock.Clock()))
	require.NoError(t, err)
	_, err = other.TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "nobody holds the lock, yet it is taken")
}

// Document 003's release refuses a release it knows is late, but its check
// and its DEL are two steps: a holder whose DEL goes out after the lock
// passed to another client deletes that client's lock.
func TestElapsedReleaseRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	clock := strategytest.NewManualClock(strategytest.T0)
	next, err := getsetcompare.New(p, getsetcompare.WithClock(clock.Clock()), getsetcompare.Document003())
	require.NoError(t, err)
	var nextErr error
	rp := between(p, "DEL", func() {
		// The holder checked its time and is about to DEL; meanwhile
		// its time runs out and another client takes the lock over.
		clock.Set(strategytest.T0.Add(strategytest.TTL + time.Millisecond))
		_, nextErr = next.TryAcquire(ctx, key, strategytest.TTL)
	})
	s, err := getsetcompare.New(rp, getsetcompare.WithClock(clock.Clock()), getsetcompare.Document003())
	require.NoError(t, err)
	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)

	require.NoError(t, lock.Release(ctx), "the release that checked in time should have deleted")
	require.NoError(t, nextErr, "the next client did not take the stale lock over")
	assert.False(t, strategytest.Exists(t, p, key), "the late DEL should have deleted the next holder's lock")
}
