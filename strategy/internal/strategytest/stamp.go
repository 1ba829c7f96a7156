package strategytest

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ManualClock is a clock that stands still until it is set.
type ManualClock struct{ ns atomic.Int64 }

// NewManualClock returns a clock that reads t.
func NewManualClock(t time.Time) *ManualClock {
	c := &ManualClock{}
	c.Set(t)
	return c
}

// Now returns the time last set.
func (c *ManualClock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

// Set makes the clock read t.
func (c *ManualClock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

// Clock returns c as a strategy.Clock, through strategy.ClockFunc.
func (c *ManualClock) Clock() strategy.Clock { return strategy.ClockFunc(c.Now) }

// T0 is the time the manual clocks of the stamp tests start at.
var T0 = time.Date(2026, 3, 4, 5, 6, 7, 891_000_000, time.UTC)

// NewStampedFunc makes a timestamp strategy (getset, getsetcompare,
// delsetnx, delsetnxcheck, getsetexpire) on a pool, reading time from
// clock.
type NewStampedFunc func(p strategy.Pool, clock strategy.Clock) (strategy.Strategy, error)

// Stamp formats a Unix millisecond time as the timestamp strategies store it.
func Stamp(ms int64) string { return strconv.FormatInt(ms, 10) }

// StampRelease names the release of a timestamp strategy.
type StampRelease int

const (
	// ReleaseIfAhead: GET, and DEL while the stored time is more than the
	// default release buffer (0.003 ms) ahead; ErrNotHeld once it has
	// passed (document 001).
	ReleaseIfAhead StampRelease = iota + 1
	// ReleaseDel: DEL, whoever holds the key; ErrNotHeld when it deleted
	// nothing (document 004).
	ReleaseDel
	// ReleaseInTime: DEL while the holder has held the lock for less than
	// its TTL by its clock; ErrNotHeld otherwise (document 003).
	ReleaseInTime
	// ReleaseIfTTL: PTTL, and DEL unless it answered 0, whoever holds the
	// key and whatever the clock says; ErrNotHeld when the DEL deleted
	// nothing (document 000's code).
	ReleaseIfTTL
)

// StampedSpec says what a timestamp strategy does where the documents
// differ.
type StampedSpec struct {
	Name string // as its errors report it
	New  NewStampedFunc
	// AcquireBuffer is added to every expiry time the lock writes.
	AcquireBuffer time.Duration
	// StaleAtExpiry: a stored time equal to the client's now is stale
	// (document 004); otherwise it is a held lock.
	StaleAtExpiry bool
	// Gone is what an attempt whose GET finds the key gone sends, and
	// GoneAcquires whether it then holds the lock.
	Gone         []string
	GoneAcquires bool
	// Expire: once won, the lock also has Redis expire the key after the
	// TTL (document 000's code); otherwise the key has no Redis expiry.
	Expire  bool
	Release StampRelease
}

// RunStamped runs the tests of the timestamp value that the timestamp
// strategies share: what they store, which stored times they take over, how
// a client whose clock runs ahead breaks in, and how Release goes.
func RunStamped(t *testing.T, spec StampedSpec) {
	s := &stamped{spec}
	t.Run("Value", s.value)
	t.Run("Stale", s.stale)
	t.Run("Live", s.live)
	t.Run("GoneBeforeGet", s.goneBeforeGet)
	t.Run("ClockAhead", s.clockAhead)
	t.Run("BadValue", s.badValue)
	t.Run("Release", s.release)
	t.Run("LateRelease", s.lateRelease)
}

type stamped struct{ StampedSpec }

func (s *stamped) strategy(t *testing.T, p strategy.Pool, c *ManualClock) strategy.Strategy {
	t.Helper()
	st, err := s.New(p, c.Clock())
	require.NoError(t, err)
	return st
}

// expiry is the time a lock taken at now for ttl writes.
func (s *stamped) expiry(now time.Time, ttl time.Duration) int64 {
	return now.Add(ttl + s.AcquireBuffer).UnixMilli()
}

// value: the key holds the client's time plus the TTL (and the acquire
// buffer), in Unix milliseconds, and Redis expires it only where the
// recipe says so.
func (s *stamped) value(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	lock, err := s.strategy(t, p, NewManualClock(T0)).TryAcquire(context.Background(), key, TTL)
	require.NoError(t, err)
	require.NotNil(t, lock)
	v, ok := Get(t, p, key)
	require.True(t, ok)
	assert.Equal(t, Stamp(s.expiry(T0, TTL)), v)
	s.requireExpiry(t, p, key)
}

// requireExpiry checks the Redis expiry of a lock just won: the TTL where
// the recipe sets one, none otherwise.
func (s *stamped) requireExpiry(t *testing.T, p *redis.Pool, key string) {
	t.Helper()
	if s.Expire {
		RequireTTLNear(t, p, key, TTL)
		return
	}
	assert.Equal(t, int64(-1), PTTL(t, p, key))
}

// stale: a stored time before the client's now (or equal to it, where the
// recipe says so) is taken over.
func (s *stamped) stale(t *testing.T) {
	t.Parallel()
	stale := []int64{T0.UnixMilli() - 1, T0.UnixMilli() - time.Hour.Milliseconds(), 1}
	if s.StaleAtExpiry {
		stale = append(stale, T0.UnixMilli())
	}
	for _, held := range stale {
		p := redistest.Pool(t)
		key := redistest.Key(t)
		Do(t, p, "SET", key, Stamp(held))
		lock, err := s.strategy(t, p, NewManualClock(T0)).TryAcquire(context.Background(), key, TTL)
		require.NoError(t, err, "stored time %d", held)
		require.NotNil(t, lock)
		v, _ := Get(t, p, key)
		assert.Equal(t, Stamp(s.expiry(T0, TTL)), v, "stored time %d", held)
		s.requireExpiry(t, p, key)
	}
}

// live: a stored time after the client's now (or equal to it, where the
// recipe says so) is a held lock, and is left as it is.
func (s *stamped) live(t *testing.T) {
	t.Parallel()
	live := []int64{T0.UnixMilli() + 1, T0.UnixMilli() + time.Hour.Milliseconds()}
	if !s.StaleAtExpiry {
		live = append(live, T0.UnixMilli())
	}
	for _, held := range live {
		p := redistest.Pool(t)
		key := redistest.Key(t)
		Do(t, p, "SET", key, Stamp(held))
		lock, err := s.strategy(t, p, NewManualClock(T0)).TryAcquire(context.Background(), key, TTL)
		assert.Nil(t, lock)
		require.ErrorIs(t, err, strategy.ErrNotAcquired, "stored time %d", held)
		v, _ := Get(t, p, key)
		assert.Equal(t, Stamp(held), v, "stored time %d", held)
	}
}

// goneBeforeGet: a key released between the attempt's SETNX and its GET.
// The recipe either gives up, and the next attempt's SETNX takes the key,
// or reads the missing time as 0, long passed, and goes on to its takeover.
func (s *stamped) goneBeforeGet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	Do(t, p, "SET", key, Stamp(T0.UnixMilli()+TTL.Milliseconds()))
	rp := &RecordPool{Pool: p, Before: func(c Command) {
		if c.Name == "GET" {
			Do(t, p, "DEL", key) // the holder releases just then
		}
	}}
	st := s.strategy(t, rp, NewManualClock(T0))
	lock, err := st.TryAcquire(ctx, key, TTL)
	assert.Equal(t, s.Gone, rp.Names())
	if s.GoneAcquires {
		require.NoError(t, err)
		v, _ := Get(t, p, key)
		assert.Equal(t, Stamp(s.expiry(T0, TTL)), v)
		rp.Before = nil
		require.NoError(t, lock.Release(ctx))
		return
	}
	assert.Nil(t, lock)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.False(t, Exists(t, p, key))

	rp.Before = nil
	lock, err = st.TryAcquire(ctx, key, TTL)
	require.NoError(t, err)
	require.NoError(t, lock.Release(ctx))
}

// clockAhead: the recipe's flaw. A client whose clock runs 2×ttl ahead sees
// a live lock as stale and takes it; a client on time does not.
func (s *stamped) clockAhead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	holder, err := s.strategy(t, p, NewManualClock(T0)).TryAcquire(ctx, key, TTL)
	require.NoError(t, err)
	require.NotNil(t, holder)

	_, err = s.strategy(t, p, NewManualClock(T0.Add(TTL/2))).TryAcquire(ctx, key, TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "a client within the TTL took the lock")

	ahead := T0.Add(2 * TTL)
	lock, err := s.strategy(t, p, NewManualClock(ahead)).TryAcquire(ctx, key, TTL)
	require.NoError(t, err, "a client 2×ttl ahead did not take the live lock")
	require.NotNil(t, lock)
	v, _ := Get(t, p, key)
	assert.Equal(t, Stamp(s.expiry(ahead, TTL)), v)
}

// badValue: a key that does not hold a timestamp is an error, not a lock
// to take or to wait for, and is left as it is.
func (s *stamped) badValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	Do(t, p, "SET", key, "not-a-time")
	st := s.strategy(t, p, NewManualClock(T0))

	lock, err := st.TryAcquire(ctx, key, TTL)
	assert.Nil(t, lock)
	require.ErrorIs(t, err, strategy.ErrBadValue)
	assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
	assert.Equal(t, "GET", RequireOpError(t, err, s.Name, key).Op)
	assert.Contains(t, err.Error(), "not-a-time")

	c := &Counting{Strategy: st}
	_, err = strategy.Acquire(ctx, c, key, TTL, strategy.FixedInterval(time.Millisecond))
	require.ErrorIs(t, err, strategy.ErrBadValue)
	assert.Equal(t, int64(1), c.Attempts())

	v, _ := Get(t, p, key)
	assert.Equal(t, "not-a-time", v)

	// A key of another type: the same error, not Redis's WRONGTYPE alone.
	hash := key + ":hash"
	Do(t, p, "HSET", hash, "owner", "someone")
	_, err = st.TryAcquire(ctx, hash, TTL)
	require.ErrorIs(t, err, strategy.ErrBadValue)
	assert.Contains(t, err.Error(), "not a string")
	Do(t, p, "DEL", hash)
}

// release: when Release deletes the key, when it leaves it, and when it
// reports ErrNotHeld, by the recipe's release.
func (s *stamped) release(t *testing.T) {
	t.Parallel()
	expiry := T0.Add(TTL + s.AcquireBuffer)
	type releaseCase struct {
		name    string
		at      time.Time // the clock when releasing
		gone    bool      // the key is deleted first
		persist bool      // the key's Redis expiry is removed first
		deleted bool
		err     error
	}
	var cases []releaseCase
	switch s.Release {
	case ReleaseIfAhead:
		cases = []releaseCase{
			{name: "Held", at: T0, deleted: true},
			{name: "OneMsAhead", at: expiry.Add(-time.Millisecond), deleted: true},
			{name: "AtExpiry", at: expiry},
			{name: "Expired", at: expiry.Add(time.Millisecond), err: strategy.ErrNotHeld},
			{name: "Gone", at: T0, gone: true, err: strategy.ErrNotHeld},
		}
	case ReleaseDel:
		cases = []releaseCase{
			{name: "Held", at: T0, deleted: true},
			{name: "Expired", at: expiry.Add(time.Hour), deleted: true},
			{name: "Gone", at: T0, gone: true, err: strategy.ErrNotHeld},
		}
	case ReleaseInTime:
		cases = []releaseCase{
			{name: "Held", at: T0, deleted: true},
			{name: "JustInTime", at: T0.Add(TTL - time.Millisecond), deleted: true},
			{name: "AtTTL", at: T0.Add(TTL), err: strategy.ErrNotHeld},
			{name: "Late", at: T0.Add(time.Hour), err: strategy.ErrNotHeld},
			{name: "Gone", at: T0, gone: true, err: strategy.ErrNotHeld},
		}
	case ReleaseIfTTL:
		cases = []releaseCase{
			{name: "Held", at: T0, deleted: true},
			{name: "Expired", at: expiry.Add(time.Hour), deleted: true},  // the release reads no clock
			{name: "NoExpiry", at: T0, persist: true, deleted: true},     // PTTL -1
			{name: "Gone", at: T0, gone: true, err: strategy.ErrNotHeld}, // PTTL -2, then a DEL that deletes nothing
		}
	default:
		t.Fatalf("unknown StampRelease %d", s.Release)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			p := redistest.Pool(t)
			key := redistest.Key(t)
			clock := NewManualClock(T0)
			lock, err := s.strategy(t, p, clock).TryAcquire(ctx, key, TTL)
			require.NoError(t, err)
			if tc.gone {
				Do(t, p, "DEL", key)
			}
			if tc.persist {
				Do(t, p, "PERSIST", key)
			}
			clock.Set(tc.at)
			err = lock.Release(ctx)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				RequireOpError(t, err, s.Name, key)
			} else {
				require.NoError(t, err)
			}
			v, ok := Get(t, p, key)
			switch {
			case tc.gone || tc.deleted:
				assert.False(t, ok, "the key is still there")
			default:
				assert.True(t, ok, "the key was deleted")
				assert.Equal(t, Stamp(expiry.UnixMilli()), v)
			}
		})
	}
}

// lateRelease: a holder that releases after its time ran out, once another
// client took the lock over. A release that reads the stored time, or none,
// deletes the new holder's lock: it cannot tell whose lock is there. Only
// the release that counts its own time (document 003) leaves it.
func (s *stamped) lateRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	clock := NewManualClock(T0)
	st := s.strategy(t, p, clock)
	old, err := st.TryAcquire(ctx, key, TTL)
	require.NoError(t, err)

	clock.Set(T0.Add(TTL + s.AcquireBuffer + time.Millisecond))
	next, err := st.TryAcquire(ctx, key, TTL)
	require.NoError(t, err, "the expired lock was not taken over")
	require.NotNil(t, next)

	if s.Release == ReleaseInTime {
		require.ErrorIs(t, old.Release(ctx), strategy.ErrNotHeld, "the late release did not count its time")
		assert.True(t, Exists(t, p, key), "the late release deleted the new holder's lock")
		return
	}
	require.NoError(t, old.Release(ctx), "the late release saw the new holder's lock as its own")
	assert.False(t, Exists(t, p, key), "the late release should have deleted the new holder's lock")
	third, err := st.TryAcquire(ctx, key, TTL)
	require.NoError(t, err, "a third client should now get the lock while the second holds it")
	require.NotNil(t, third)
}
