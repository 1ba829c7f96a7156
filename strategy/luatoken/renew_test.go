package luatoken_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A renewing lock outlives its TTL many times over, and Release ends its
// lease.
func TestAutoRenewKeepsLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newLuatoken(t, p, luatoken.WithAutoRenew(0))

	// Long enough that a renewal delayed by a loaded machine (the test
	// runs with -race, beside others) still lands in time.
	const ttl = 300 * time.Millisecond
	l, lock := tryAcquire(t, s, key, ttl)
	lease := leaseOf(t, l)
	_, fenced := lock.FencingToken()
	assert.False(t, fenced, "a lock without WithFencing has a fencing token")

	for range 5 { // 1.5s: five TTLs
		time.Sleep(ttl)
		v, ok := strategytest.Get(t, p, key)
		require.True(t, ok, "the renewing lock expired")
		require.Equal(t, lock.Token(), v)
		require.NoError(t, lease.Err(), "lease ended: %v", context.Cause(lease))
	}
	left := time.Duration(strategytest.PTTL(t, p, key)) * time.Millisecond
	assert.Greater(t, left, ttl/3, "the key is not kept near its full TTL")
	assert.LessOrEqual(t, left, ttl)

	require.NoError(t, l.Release(ctx))
	require.Error(t, lease.Err(), "Release did not end the lease")
	cause := context.Cause(lease)
	assert.ErrorIs(t, cause, luatoken.ErrReleased)
	assert.NotErrorIs(t, cause, luatoken.ErrLeaseLost)
	assert.NotErrorIs(t, cause, strategy.ErrNotHeld)
	assert.False(t, strategytest.Exists(t, p, key))

	// Refresh after Release: not held.
	require.ErrorIs(t, lock.Refresh(ctx, ttl), strategy.ErrNotHeld)
}

// The lease keeps the values of the acquire context but outlives it.
func TestLeaseOutlivesAcquireContext(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newLuatoken(t, p, luatoken.WithAutoRenew(0))

	type ctxKey struct{}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
	l, err := s.TryAcquire(ctx, key, time.Second)
	require.NoError(t, err)
	cancel()
	lease := leaseOf(t, l)
	time.Sleep(20 * time.Millisecond)
	assert.NoError(t, lease.Err())
	assert.Equal(t, "v", lease.Value(ctxKey{}))
	require.NoError(t, l.Release(context.Background()))
}

// Deleting the key behind the holder's back ends the lease at the next
// renewal, with a cause that says the lock is not held.
func TestLeaseLostOnDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	const ttl, every = 2 * time.Second, 50 * time.Millisecond
	s := newLuatoken(t, p, luatoken.WithAutoRenew(every))

	l, lock := tryAcquire(t, s, key, ttl)
	lease := leaseOf(t, l)
	strategytest.Do(t, p, "DEL", key)
	deleted := time.Now()
	waitDone(t, lease, every+strategytest.Margin, "lease after DEL")
	assert.Less(t, time.Since(deleted), every+strategytest.Margin/2, "the lease ended long after the next renewal")

	cause := context.Cause(lease)
	assert.ErrorIs(t, cause, luatoken.ErrLeaseLost)
	assert.ErrorIs(t, cause, strategy.ErrNotHeld)
	assert.NotErrorIs(t, cause, luatoken.ErrLeaseExpired)
	var le *luatoken.LeaseError
	require.ErrorAs(t, cause, &le)
	assert.Equal(t, key, le.Key)
	strategytest.RequireOpError(t, cause, "luatoken", key)

	// The lock is not held: Refresh says so without asking Redis, and a
	// new holder is not disturbed by the old one.
	_, next := tryAcquire(t, newLuatoken(t, p), key, ttl)
	require.ErrorIs(t, lock.Refresh(ctx, ttl), strategy.ErrNotHeld)
	require.ErrorIs(t, l.Release(ctx), strategy.ErrNotHeld)
	v, _ := strategytest.Get(t, p, key)
	assert.Equal(t, next.Token(), v)
}

// A lock taken over by someone else ends the lease too (the key was
// overwritten, not deleted).
func TestLeaseLostOnOverwrite(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	const every = 50 * time.Millisecond
	s := newLuatoken(t, p, luatoken.WithAutoRenew(every))

	l, _ := tryAcquire(t, s, key, time.Second)
	lease := leaseOf(t, l)
	strategytest.Do(t, p, "SET", key, "someone-else", "PX", 5000)
	waitDone(t, lease, every+strategytest.Margin, "lease after overwrite")
	assert.ErrorIs(t, context.Cause(lease), strategy.ErrNotHeld)
	strategytest.RequireTTLNear(t, p, key, 5*time.Second) // not extended by the old holder
}

// WithMaxHold ends the lease when the cap is reached, and the key is left
// to expire then rather than a full TTL later.
func TestLeaseMaxHold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	const ttl, maxHold = 300 * time.Millisecond, 700 * time.Millisecond
	s := newLuatoken(t, p, luatoken.WithAutoRenew(0), luatoken.WithMaxHold(maxHold))

	lag := watchLag(t)
	start := time.Now()
	l, lock := tryAcquire(t, s, key, ttl)
	lease := leaseOf(t, l)
	ended := waitDone(t, lease, maxHold+strategytest.Margin, "lease at max hold")
	skipIfLagged(t, context.Cause(lease), lag, ttl/4)
	held := ended.Sub(start)
	assert.GreaterOrEqual(t, held, maxHold-5*time.Millisecond, "the lease ended before the maximum hold time")
	assert.Less(t, held, maxHold+strategytest.Margin/2)

	cause := context.Cause(lease)
	assert.ErrorIs(t, cause, luatoken.ErrMaxHold)
	assert.NotErrorIs(t, cause, luatoken.ErrLeaseLost)
	assert.NotErrorIs(t, cause, strategy.ErrNotHeld)

	// Renewals stopped extending the key at the cap: what is left of it is
	// a small part of the TTL (or nothing).
	if left := strategytest.PTTL(t, p, key); left > 0 {
		assert.Less(t, time.Duration(left)*time.Millisecond, ttl/2, "the key outlives the maximum hold time")
	}
	require.ErrorIs(t, lock.Refresh(ctx, ttl), strategy.ErrNotHeld, "Refresh after the lease ended")
	_ = l.Release(ctx) // may find the key expired already
}

// A holder whose renewals cannot get through sees its lease end before the
// key can expire in Redis: when its context is cancelled, the key still
// holds its token, so nobody else can have begun.
func TestLeaseEndsBeforeExpiryWhenStalled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sp, p, key := newStallPool(t)
	const ttl, margin = 400 * time.Millisecond, 80 * time.Millisecond
	every := (ttl - margin) / 3 // the default interval
	s := newLuatoken(t, sp, luatoken.WithAutoRenew(0), luatoken.WithLeaseMargin(margin))

	l, lock := tryAcquire(t, s, key, ttl)
	lease := leaseOf(t, l)
	time.Sleep(ttl / 2) // a renewal or so went through
	require.NoError(t, lease.Err())

	sp.Stall()
	stalled := time.Now()
	ended := waitDone(t, lease, ttl+strategytest.Margin, "lease of a stalled holder")
	// Observe the key at once, on a connection that is not stalled.
	v, ok := strategytest.Get(t, p, key)
	left := strategytest.PTTL(t, p, key)
	require.True(t, ok, "the key expired before the stalled holder's lease ended")
	require.Equal(t, lock.Token(), v)
	assert.Greater(t, left, int64(0))

	// It did not end much before it had to: the last renewal before the
	// stall was at most one interval earlier.
	assert.Greater(t, ended.Sub(stalled), ttl-margin-every-20*time.Millisecond, "the lease ended early")
	assert.Positive(t, sp.Stalled(), "no renewal was stalled")

	cause := context.Cause(lease)
	assert.ErrorIs(t, cause, luatoken.ErrLeaseExpired)
	assert.ErrorIs(t, cause, luatoken.ErrLeaseLost)
	assert.ErrorIs(t, cause, strategy.ErrNotHeld)

	sp.Resume()
	require.NoError(t, l.Release(ctx), "the key still held the token: Release deletes it")
}

// An acquire whose reply comes after the lease deadline it set gives a
// lock whose lease has already ended when TryAcquire returns: the key may
// be someone else's by the time the holder looks, and a holder that checks
// its lease before it works must not find it alive because the timer that
// ends it has not run yet (the explorer caught one entering so, on a
// loaded machine, while the next holder was inside).
func TestLeaseEndedAtALateGrant(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sp, _, key := newStallPool(t)
	const ttl, margin = 200 * time.Millisecond, 20 * time.Millisecond
	s := newLuatoken(t, sp, luatoken.WithAutoRenew(0), luatoken.WithLeaseMargin(margin))

	sp.Stall()
	type got struct {
		l          strategy.Lock
		err, lease error
	}
	done := make(chan got, 1)
	go func() {
		l, err := s.TryAcquire(ctx, key, ttl)
		g := got{l: l, err: err}
		if lease, ok := strategy.Lease(l); ok {
			// At once, on the goroutine the grant returned to.
			g.lease = lease.Err()
		}
		done <- g
	}()
	time.Sleep(ttl) // past the deadline, sent + ttl - margin
	sp.Resume()
	g := <-done
	require.NoError(t, g.err, "the key was free")
	assert.ErrorIs(t, g.lease, context.Canceled, "the lease of a grant that came after its deadline must have ended when TryAcquire returned")
	cause := context.Cause(leaseOf(t, g.l))
	assert.ErrorIs(t, cause, luatoken.ErrLeaseExpired)
	_ = g.l.Release(ctx)
}

// A stall shorter than the lease is ridden out: the stalled renewal goes
// through late, or a retry does, and the lock stays held.
func TestLeaseSurvivesShortStall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sp, p, key := newStallPool(t)
	const ttl = 300 * time.Millisecond
	s := newLuatoken(t, sp, luatoken.WithAutoRenew(0))

	lag := watchLag(t)
	l, lock := tryAcquire(t, s, key, ttl)
	lease := leaseOf(t, l)
	sp.Stall()
	time.Sleep(ttl / 3)
	sp.Resume()
	time.Sleep(2 * ttl)
	if lease.Err() != nil {
		// The stall lasts as long as this goroutine oversleeps, too.
		skipIfLagged(t, context.Cause(lease), lag, ttl/4)
	}
	require.NoError(t, lease.Err(), "lease ended: %v", context.Cause(lease))
	v, _ := strategytest.Get(t, p, key)
	require.Equal(t, lock.Token(), v)
	require.NoError(t, l.Release(ctx))
}

// A renewal that fails for a reason that may pass (here the server is
// unreachable for a while) is retried; the lease ends only at its
// deadline, with ErrLeaseExpired and the last error as the cause.
func TestLeaseRetriesUntilDeadline(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	sp := &strategytest.SwitchPool{Up: p, Dead: strategytest.PoolTo(t, strategytest.ClosedPort(t))}
	// A margin that leaves the test time to look at the key and release it
	// after the lease ended.
	const ttl, margin = 300 * time.Millisecond, 60 * time.Millisecond
	s := newLuatoken(t, sp, luatoken.WithAutoRenew(0), luatoken.WithLeaseMargin(margin))

	l, _ := tryAcquire(t, s, key, ttl)
	lease := leaseOf(t, l)
	sp.Down.Store(true)
	down := time.Now()
	ended := waitDone(t, lease, ttl+strategytest.Margin, "lease with the server down")
	assert.Greater(t, ended.Sub(down), ttl/2, "the lease ended at the first failed renewal")
	cause := context.Cause(lease)
	assert.ErrorIs(t, cause, luatoken.ErrLeaseExpired)
	var le *luatoken.LeaseError
	require.ErrorAs(t, cause, &le)
	require.Error(t, le.Last, "the cause does not carry the last renewal error")
	strategytest.RequireOpError(t, le.Last, "luatoken", key)
	assert.True(t, strategytest.Exists(t, p, key), "the key expired before the lease ended")
	sp.Down.Store(false)
	require.NoError(t, l.Release(context.Background()))
}

// Release stops the renewals: nothing is sent for the lock afterwards, and
// no goroutine is left. Not parallel: it counts goroutines.
func TestReleaseStopsRenewal(t *testing.T) {
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	rp := &strategytest.RecordPool{Pool: p}
	const ttl, every = time.Second, 20 * time.Millisecond
	s := newLuatoken(t, rp, luatoken.WithAutoRenew(every), luatoken.WithFencing())
	check := goroutines(t)

	var locks []strategy.Lock
	for i := range 10 {
		l, _ := tryAcquire(t, s, key+":"+string(rune('a'+i)), ttl)
		locks = append(locks, l)
	}
	time.Sleep(3 * every)
	for _, l := range locks {
		require.NoError(t, l.Release(ctx))
		assert.ErrorIs(t, context.Cause(leaseOf(t, l)), luatoken.ErrReleased)
	}
	check()
	rp.Reset()
	time.Sleep(3 * every)
	assert.Empty(t, rp.Names(), "commands sent after Release")
}

// Without WithMaxHold, a renewing lock whose Release is never called is
// not renewed for ever: its lease ends at the default maximum hold time
// (shortened here from DefaultMaxHold), and the key expires soon after.
// Not parallel: it changes the default.
func TestLeaseDefaultMaxHold(t *testing.T) {
	const ttl, maxHold = 300 * time.Millisecond, 700 * time.Millisecond
	luatoken.SetDefaultMaxHold(t, maxHold)
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newLuatoken(t, p, luatoken.WithAutoRenew(0))

	start := time.Now()
	l, _ := tryAcquire(t, s, key, ttl)
	ended := waitDone(t, leaseOf(t, l), maxHold+strategytest.Margin, "lease at the default max hold")
	held := ended.Sub(start)
	assert.GreaterOrEqual(t, held, maxHold-5*time.Millisecond, "the lease ended before the maximum hold time")
	assert.Less(t, held, maxHold+strategytest.Margin/2)
	assert.ErrorIs(t, context.Cause(leaseOf(t, l)), luatoken.ErrMaxHold)
	// Nobody releases it: renewals stopped extending the key at the cap,
	// and what is left of it is a small part of the TTL (or nothing).
	if left := strategytest.PTTL(t, p, key); left > 0 {
		assert.Less(t, time.Duration(left)*time.Millisecond, ttl/2, "the key outlives the maximum hold time")
	}
}

// A lease that ends by itself leaves no goroutine behind either. Not
// parallel: it counts goroutines.
func TestLeaseEndLeavesNoGoroutine(t *testing.T) {
	p := redistest.Pool(t)
	key := redistest.Key(t)
	check := goroutines(t)
	s := newLuatoken(t, p, luatoken.WithAutoRenew(10*time.Millisecond), luatoken.WithMaxHold(50*time.Millisecond))
	l, _ := tryAcquire(t, s, key, time.Second)
	waitDone(t, leaseOf(t, l), strategytest.Margin, "lease at max hold")
	check()
	require.NoError(t, l.Release(context.Background()))
}

// Renewal settings that cannot work are refused: in New for values that
// are wrong in themselves, in TryAcquire for an interval that does not fit
// the TTL, before anything is sent.
func TestAutoRenewInvalid(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)

	for name, opts := range map[string][]luatoken.Option{
		"negative interval": {luatoken.WithAutoRenew(-time.Second)},
		"zero max hold":     {luatoken.WithAutoRenew(0), luatoken.WithMaxHold(0)},
		"negative max hold": {luatoken.WithAutoRenew(0), luatoken.WithMaxHold(-time.Second)},
		"max hold alone":    {luatoken.WithMaxHold(time.Second)},
		"negative margin":   {luatoken.WithAutoRenew(0), luatoken.WithLeaseMargin(-time.Millisecond)},
	} {
		_, err := luatoken.New(p, opts...)
		require.ErrorIs(t, err, luatoken.ErrInvalidOption, name)
		assert.Equal(t, 1, strings.Count(err.Error(), "luatoken:"), "the package named once: %v", err)
	}

	rp := &strategytest.RecordPool{Pool: p}
	for _, c := range []struct {
		every, ttl time.Duration
	}{
		{time.Second, time.Second},                      // interval equal to the TTL
		{2 * time.Second, time.Second},                  // longer
		{99 * time.Millisecond, 100 * time.Millisecond}, // past the lease deadline (margin 3ms)
		{0, time.Millisecond},                           // a third of 1ms: the margin alone is longer
		{0, 2 * time.Millisecond},
	} {
		s := newLuatoken(t, rp, luatoken.WithAutoRenew(c.every))
		_, err := s.TryAcquire(context.Background(), key, c.ttl)
		require.ErrorIs(t, err, strategy.ErrInvalidTTL, "every %v, ttl %v", c.every, c.ttl)
		if c.every == 0 { // no interval set: the error names the TTL, never a derived interval
			assert.NotContains(t, err.Error(), "interval")
			assert.Contains(t, err.Error(), "a TTL of "+c.ttl.String()+" is too short to renew")
		}
	}
	// 1.5ms: the derived interval would be negative.
	_, err := newLuatoken(t, rp, luatoken.WithAutoRenew(0)).TryAcquire(context.Background(), key, 1500*time.Microsecond)
	require.ErrorIs(t, err, strategy.ErrInvalidTTL)
	assert.NotContains(t, err.Error(), "-")
	assert.Empty(t, rp.Names(), "commands sent for invalid settings")
	assert.False(t, strategytest.Exists(t, p, key))

	// The boundary: an interval just inside the lease works.
	s := newLuatoken(t, p, luatoken.WithAutoRenew(96*time.Millisecond))
	l, err := s.TryAcquire(context.Background(), key, 100*time.Millisecond)
	require.NoError(t, err)
	require.NoError(t, l.Release(context.Background()))
}

// Refresh of a renewing lock moves the lease deadline: a holder that
// refreshed to a long TTL keeps its lease through a stall that outlasts the
// renewal TTL.
func TestRefreshMovesLeaseDeadline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sp, _, key := newStallPool(t)
	const ttl = 150 * time.Millisecond
	s := newLuatoken(t, sp, luatoken.WithAutoRenew(0))

	l, lock := tryAcquire(t, s, key, ttl)
	lease := leaseOf(t, l)
	require.NoError(t, lock.Refresh(ctx, 2*time.Second))
	sp.Stall()
	time.Sleep(3 * ttl)
	require.NoError(t, lease.Err(), "lease ended though Refresh gave the key 2s: %v", context.Cause(lease))
	sp.Resume()
	require.NoError(t, l.Release(ctx))
}

// The causes are told apart with errors.Is, and described.
func TestLeaseErrorMessages(t *testing.T) {
	t.Parallel()
	lost := &luatoken.LeaseError{Key: "k", Err: luatoken.ErrLeaseExpired, Last: errors.New("i/o timeout")}
	assert.Equal(t, `luatoken: lease on "k" lost: luatoken: lease expired before a renewal got through (last renewal: i/o timeout)`, lost.Error())
	assert.ErrorIs(t, lost, luatoken.ErrLeaseLost)
	released := &luatoken.LeaseError{Key: "k", Err: luatoken.ErrReleased}
	assert.Equal(t, `luatoken: lease on "k" ended: luatoken: lock released`, released.Error())
	assert.NotErrorIs(t, released, luatoken.ErrLeaseLost)
}
