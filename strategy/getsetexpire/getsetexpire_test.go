package getsetexpire_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/getsetexpire"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return getsetexpire.New(p) }

func newStamped(p strategy.Pool, c strategy.Clock) (strategy.Strategy, error) {
	return getsetexpire.New(p, getsetexpire.WithClock(c))
}

func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "getsetexpire", newStrategy, strategytest.WrongTypeError)
}

// The stored time, the takeover of a stale one, a client whose clock runs
// ahead, and the release guarded by PTTL. A key gone by the GET reads as
// PHP's false, which is less than any time: on to the GETSET, which finds
// the key still free and wins.
func TestStamped(t *testing.T) {
	strategytest.RunStamped(t, strategytest.StampedSpec{
		Name:         "getsetexpire",
		New:          newStamped,
		Gone:         []string{"SETNX", "GET", "GETSET", "PEXPIRE"},
		GoneAcquires: true,
		Expire:       true,
		Release:      strategytest.ReleaseIfTTL,
	})
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

// The EXPIRE step: once the lock is won, by SETNX or by the takeover, a
// PEXPIRE of the TTL follows as a command of its own; an attempt that
// loses sends none.
func TestExpire(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t0 := strategytest.T0.UnixMilli()
	for _, tc := range []struct {
		name  string
		held  int64 // the time at the key first; 0: no key
		won   bool
		sends []string
	}{
		{name: "Free", won: true, sends: []string{"SETNX", "PEXPIRE"}},
		{name: "Stale", held: t0 - 1, won: true, sends: []string{"SETNX", "GET", "GETSET", "PEXPIRE"}},
		{name: "Live", held: t0 + 1, sends: []string{"SETNX", "GET"}},
		{name: "AtNow", held: t0, sends: []string{"SETNX", "GET"}}, // `get < time()`: a time equal to now is held
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := redistest.Pool(t)
			key := redistest.Key(t)
			if tc.held != 0 {
				strategytest.Do(t, p, "SET", key, strategytest.Stamp(tc.held))
			}
			rp := &strategytest.RecordPool{Pool: p}
			s, err := getsetexpire.New(rp, getsetexpire.WithClock(strategytest.NewManualClock(strategytest.T0).Clock()))
			require.NoError(t, err)

			lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
			assert.Equal(t, tc.sends, rp.Names())
			if !tc.won {
				require.ErrorIs(t, err, strategy.ErrNotAcquired)
				assert.Nil(t, lock)
				assert.Equal(t, int64(-1), strategytest.PTTL(t, p, key), "a lost attempt set an expiry")
				return
			}
			require.NoError(t, err)
			require.NotNil(t, lock)
			cmds := rp.Commands()
			assert.Equal(t, []any{key, strategytest.TTL.Milliseconds()}, cmds[len(cmds)-1].Args, "PEXPIRE key <ttl in ms>")
			strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
		})
	}
}

// A client that dies after its SETNX, before its EXPIRE, leaves a key
// without a Redis expiry. Here the EXPIRE fails instead, for want of a
// connection: the attempt reports the error, not ErrNotAcquired, and the
// key is left as a dead client leaves it. Its stored time still goes
// stale: a later client takes it over with GETSET and sets an expiry.
func TestExpireFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	up := redistest.Pool(t)
	key := redistest.Key(t)
	sp := &strategytest.SwitchPool{Up: up, Dead: strategytest.PoolTo(t, strategytest.ClosedPort(t))}
	rp := between(sp, "SETNX", func() { sp.Down.Store(true) }) // the SETNX has its connection
	s, err := getsetexpire.New(rp, getsetexpire.WithClock(strategytest.NewManualClock(strategytest.T0).Clock()))
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	assert.Nil(t, lock)
	strategytest.RequireOpError(t, err, "getsetexpire", key)
	var ne *net.OpError
	require.ErrorAs(t, err, &ne)
	assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
	assert.Equal(t, []string{"SETNX"}, rp.Names())
	v, ok := strategytest.Get(t, up, key)
	require.True(t, ok, "the SETNX wrote nothing")
	assert.Equal(t, strategytest.Stamp(strategytest.T0.Add(strategytest.TTL).UnixMilli()), v)
	assert.Equal(t, int64(-1), strategytest.PTTL(t, up, key), "the key has an expiry")

	within, err := getsetexpire.New(up, getsetexpire.WithClock(strategytest.NewManualClock(strategytest.T0.Add(strategytest.TTL-time.Millisecond)).Clock()))
	require.NoError(t, err)
	_, err = within.TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "the lock was taken before its stored time passed")

	later := strategytest.T0.Add(strategytest.TTL + time.Millisecond)
	next, err := getsetexpire.New(up, getsetexpire.WithClock(strategytest.NewManualClock(later).Clock()))
	require.NoError(t, err)
	lock, err = next.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err, "the lock left without expiry was not taken over once its time passed")
	require.NotNil(t, lock)
	strategytest.RequireTTLNear(t, up, key, strategytest.TTL)
}

// Two clients read the same stale time; the one whose GETSET comes second
// gets back the first one's fresh time and loses, as it should, and sends
// no EXPIRE. Its GETSET still wrote, though, and GETSET, like SET,
// discards the key's expiry: the winner's lock now carries the loser's
// time and no Redis expiry at all. Its release still deletes it: PTTL
// answers -1, which PHP reads as true.
func TestTakeoverRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(strategytest.T0.UnixMilli()-1))

	first, err := getsetexpire.New(p, getsetexpire.WithClock(strategytest.NewManualClock(strategytest.T0).Clock()))
	require.NoError(t, err)
	var (
		winner   strategy.Lock
		firstErr error
	)
	rp := between(p, "GETSET", func() {
		// The second client has read the stale time; the first takes
		// the lock over, and sets its expiry, before its GETSET.
		winner, firstErr = first.TryAcquire(ctx, key, strategytest.TTL)
		strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
	})
	later := strategytest.NewManualClock(strategytest.T0.Add(5 * time.Millisecond))
	second, err := getsetexpire.New(rp, getsetexpire.WithClock(later.Clock()))
	require.NoError(t, err)

	lock, err := second.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, firstErr, "the first client did not take the stale lock over")
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "both clients hold the lock")
	assert.Nil(t, lock)
	assert.Equal(t, []string{"SETNX", "GET", "GETSET"}, rp.Names())
	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, strategytest.Stamp(later.Now().Add(strategytest.TTL).UnixMilli()), v,
		"the loser's GETSET should have overwritten the winner's time")
	assert.Equal(t, int64(-1), strategytest.PTTL(t, p, key), "the loser's GETSET should have discarded the winner's expiry")

	require.NoError(t, winner.Release(ctx))
	assert.False(t, strategytest.Exists(t, p, key), "a PTTL of -1 should not stop the release")
}

// A stale lock released between the attempt's GET and its GETSET: GETSET
// finds no key and returns nothing, PHP's false, which is less than any
// time, and the attempt wins. Rightly: GETSET wrote its time on a free key
// in one atomic step, and any other client now finds it. (Package
// getsetcompare, which compares GETSET's answer with GET's, loses here.)
func TestTakeoverOnReleasedKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	strategytest.Do(t, p, "SET", key, strategytest.Stamp(strategytest.T0.UnixMilli()-1))
	rp := between(p, "GETSET", func() { strategytest.Do(t, p, "DEL", key) })
	clock := strategytest.NewManualClock(strategytest.T0)
	s, err := getsetexpire.New(rp, getsetexpire.WithClock(clock.Clock()))
	require.NoError(t, err)

	lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err, "GETSET on a free key should win")
	require.NotNil(t, lock)
	assert.Equal(t, []string{"SETNX", "GET", "GETSET", "PEXPIRE"}, rp.Names())
	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, strategytest.Stamp(strategytest.T0.Add(strategytest.TTL).UnixMilli()), v)
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)

	other, err := getsetexpire.New(p, getsetexpire.WithClock(clock.Clock()))
	require.NoError(t, err)
	_, err = other.TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "a second client got the lock too")
	require.NoError(t, lock.Release(ctx))
}

// expireNext makes key expire one millisecond after the server's present
// one, in a script so that both are read at the same instant, and returns
// that present millisecond.
var expireNext = redis.NewScript(1, `
local t = redis.call('TIME')
local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('PEXPIREAT', KEYS[1], ms + 1)
return ms`)

// serverMs returns the server's clock in Unix milliseconds.
func serverMs(t *testing.T, p *redis.Pool) int64 {
	t.Helper()
	v, err := redis.Int64s(strategytest.Do(t, p, "TIME"), nil)
	require.NoError(t, err)
	return v[0]*1000 + v[1]/1000
}

// The release's guard, `if ($redis->ttl($lockKey))`, is false only for a
// TTL of 0: here PTTL answers 0 in the key's last millisecond, when its
// time has come and Redis has not yet removed it, and the release then
// leaves the key to expire. One millisecond later the key is gone, PTTL
// answers -2, which PHP reads as true, and the DEL deletes nothing. Which
// millisecond the release's PTTL meets is up to timing, so the test tries
// until it has seen the first case, checking each outcome as it comes.
func TestReleaseLastMillisecond(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	rp := &strategytest.RecordPool{Pool: p}
	s, err := getsetexpire.New(rp)
	require.NoError(t, err)
	var left, gone int
	for range 200 {
		strategytest.Do(t, p, "DEL", key)
		lock, err := s.TryAcquire(ctx, key, strategytest.TTL)
		require.NoError(t, err)
		c := p.Get()
		ms, err := redis.Int64(expireNext.Do(c, key))
		c.Close()
		require.NoError(t, err)
		for serverMs(t, p) <= ms {
		}
		rp.Reset()
		err = lock.Release(ctx)
		switch names := rp.Names(); {
		case len(names) == 1 && names[0] == "PTTL":
			require.NoError(t, err, "a release that left the key in its last millisecond")
			left++
		default:
			require.Equal(t, []string{"PTTL", "DEL"}, names)
			require.ErrorIs(t, err, strategy.ErrNotHeld, "the DEL after PTTL -2 deleted something")
			gone++
		}
		if left > 0 && gone > 0 {
			break
		}
	}
	t.Logf("releases that met PTTL 0: %d; that met -2: %d", left, gone)
	assert.Positive(t, left, "no release met PTTL 0 and left the key")
}
