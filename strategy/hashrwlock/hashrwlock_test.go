package hashrwlock_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/hashrwlock"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// short is the lease of holds that must expire during a test.
const short = 100 * time.Millisecond

func newStrategy(p strategy.Pool) (strategy.Strategy, error) { return hashrwlock.New(p) }

func newRW(t *testing.T, p strategy.Pool) *hashrwlock.Strategy {
	t.Helper()
	s, err := hashrwlock.New(p)
	require.NoError(t, err)
	return s
}

// hash reads K's fields.
func hash(t *testing.T, p *redis.Pool, key string) map[string]string {
	t.Helper()
	m, err := redis.StringMap(strategytest.Do(t, p, "HGETALL", key), nil)
	require.NoError(t, err)
	return m
}

// timeoutKey is the n-th timeout key of holder h on key.
func timeoutKey(key string, h *hashrwlock.Holder, n int) string {
	return hashrwlock.TimeoutPrefix(key, h.Name()) + ":" + strconv.Itoa(n)
}

// TestBasic: the write lock is a mutex.
func TestBasic(t *testing.T) {
	strategytest.RunBasic(t, "hashrwlock", newStrategy, strategytest.WrongTypeError)
}

// TestShared: what every read-write lock does.
func TestShared(t *testing.T) {
	strategytest.RunShared(t, "hashrwlock", func(p strategy.Pool) (strategy.Shared, error) { return hashrwlock.New(p) })
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	_, err := hashrwlock.New(p, hashrwlock.WithWatchdogLease(0))
	require.ErrorIs(t, err, strategy.ErrInvalidTTL)
	s := newRW(t, p)
	l, err := s.TryAcquireShared(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.ErrorIs(t, l.(strategy.Refresher).Refresh(ctx, 0), strategy.ErrInvalidTTL)
	assert.Equal(t, strategy.ReadWrite, strategy.KindOf(s.Holder()))
	assert.Equal(t, []string{key}, s.Keys(key))
}

// TestReadModel: each reader has its field in K and its timeout key,
// and K lives the lease; each release drops the reader's timeout key, and
// the last one deletes K.
func TestReadModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)

	var (
		holders []*hashrwlock.Holder
		locks   []strategy.Lock
	)
	for range 3 {
		h := newRW(t, p).Holder()
		l, err := h.TryAcquireShared(ctx, key, strategytest.TTL)
		require.NoError(t, err)
		holders, locks = append(holders, h), append(locks, l)
	}
	want := map[string]string{"mode": "read"}
	for _, h := range holders {
		want[h.Name()] = "1"
		strategytest.RequireTTLNear(t, p, timeoutKey(key, h, 1), strategytest.TTL)
	}
	assert.Equal(t, want, hash(t, p, key))
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
	for i, l := range locks {
		require.NoError(t, l.Release(ctx))
		assert.False(t, strategytest.Exists(t, p, timeoutKey(key, holders[i], 1)), "the released hold's timeout key is left")
	}
	assert.False(t, strategytest.Exists(t, p, key), "the last reader left K")
	require.ErrorIs(t, locks[0].Release(ctx), strategy.ErrNotHeld)
}

// TestReenter: a holder's write lock reenters, adding its lease to K's
// time left; the inner release gives K the watchdog lease.
func TestReenter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, err := hashrwlock.New(p, hashrwlock.WithWatchdogLease(3*strategytest.TTL))
	require.NoError(t, err)
	h := s.Holder()
	outer, err := h.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	inner, err := h.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err, "the holder did not reenter")
	strategytest.RequireTTLNear(t, p, key, 2*strategytest.TTL)
	assert.Equal(t, "2", hash(t, p, key)[h.Name()+":write"])
	require.NoError(t, inner.Release(ctx))
	strategytest.RequireTTLNear(t, p, key, 3*strategytest.TTL)
	_, err = s.TryAcquire(ctx, key, strategytest.TTL) // another thread of the client
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	require.NoError(t, outer.Release(ctx))
	assert.False(t, strategytest.Exists(t, p, key))
}

// TestIssue891Fixed: a holder that reads while it writes; its read unlock
// once deleted K and so the write lock. Now K stays, in mode write.
func TestIssue891Fixed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	h := newRW(t, p).Holder()
	w, err := h.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	r, err := h.TryAcquireShared(ctx, key, strategytest.TTL)
	require.NoError(t, err, "the writer could not read")
	require.NoError(t, r.Release(ctx))
	assert.Equal(t, map[string]string{"mode": "write", h.Name() + ":write": "1"}, hash(t, p, key))
	_, err = newRW(t, p).TryAcquire(ctx, key, strategytest.TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "the read unlock freed the write lock")
	require.NoError(t, w.Release(ctx))
	assert.False(t, strategytest.Exists(t, p, key))
}

// TestIssue2144FixedAtAcquire: a reader with a short lease no longer cuts
// K's expiry when it acquires: K lives the longest lease.
func TestIssue2144FixedAtAcquire(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	_, err := newRW(t, p).TryAcquireShared(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	_, err = newRW(t, p).TryAcquireShared(ctx, key, short)
	require.NoError(t, err)
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
}

// TestIssue1604Fixed: a reader's refresh renews its timeout keys, not K
// alone.
func TestIssue1604Fixed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	h := newRW(t, p).Holder()
	var locks []strategy.Lock
	for range 2 {
		l, err := h.TryAcquireShared(ctx, key, short)
		require.NoError(t, err)
		locks = append(locks, l)
	}
	require.NoError(t, locks[0].(strategy.Refresher).Refresh(ctx, strategytest.TTL))
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
	for n := 1; n <= 2; n++ {
		strategytest.RequireTTLNear(t, p, timeoutKey(key, h, n), strategytest.TTL)
	}
}

// TestPR7098Fixed: a live reader's refresh renews its own timeout keys,
// not a crashed reader's; once the crashed reader's lease is over, the
// live reader's release deletes K and a writer gets in.
func TestPR7098Fixed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	crashed := newRW(t, p).Holder()
	_, err := crashed.TryAcquireShared(ctx, key, short)
	require.NoError(t, err)
	live, err := newRW(t, p).TryAcquireShared(ctx, key, short)
	require.NoError(t, err)
	require.NoError(t, live.(strategy.Refresher).Refresh(ctx, strategytest.TTL))
	assert.LessOrEqual(t, strategytest.PTTL(t, p, timeoutKey(key, crashed, 1)), short.Milliseconds(),
		"the live reader renewed the crashed reader's timeout key")
	strategytest.WaitGone(t, p, timeoutKey(key, crashed, 1))
	assert.Contains(t, hash(t, p, key), crashed.Name(), "the crashed reader's field is still in K")
	require.NoError(t, live.Release(ctx))
	assert.False(t, strategytest.Exists(t, p, key), "the last live reader left K")
}

// TestPR7251Fixed: a refresh after the final release finds the holder's
// field gone and renews nothing, though K lives on for another reader.
func TestPR7251Fixed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	_, err := newRW(t, p).TryAcquireShared(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	gone, err := newRW(t, p).TryAcquireShared(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	require.NoError(t, gone.Release(ctx))
	require.ErrorIs(t, gone.(strategy.Refresher).Refresh(ctx, time.Hour), strategy.ErrNotHeld)
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
}

// TestRefreshCutsOtherReaders is a break of the current model, issue
// 2144's shape in the watchdog: a reader's refresh sets K to live its own
// lease, below another reader's. The refreshing reader crashes; K expires
// while the other reader's lease still runs, and a writer gets in beside
// it (reader-lease-independence).
func TestRefreshCutsOtherReaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	a := newRW(t, p).Holder()
	_, err := a.TryAcquireShared(ctx, key, strategytest.TTL) // A reads, for 10 s
	require.NoError(t, err)
	b, err := newRW(t, p).TryAcquireShared(ctx, key, short) // B reads, renewed by its watchdog
	require.NoError(t, err)
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
	require.NoError(t, b.(strategy.Refresher).Refresh(ctx, short)) // then B crashes
	assert.LessOrEqual(t, strategytest.PTTL(t, p, key), short.Milliseconds(), "the refresh did not cut K")

	strategytest.WaitGone(t, p, key)
	w, err := newRW(t, p).TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err, "no writer got in while A reads")
	assert.Greater(t, strategytest.PTTL(t, p, timeoutKey(key, a, 1)), int64(0), "A's lease is over")
	require.NoError(t, w.Release(ctx))
}

// TestReadUnlockCutsWriteLease is a break of the current model: a holder
// writes for 10 s and reads twice with a short lease; releasing one read
// sets K's expiry to the other read's lease, and another writer gets in
// while the write lease still runs (rw-exclusion).
func TestReadUnlockCutsWriteLease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	h := newRW(t, p).Holder()
	granted := time.Now()
	_, err := h.TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err)
	var reads []strategy.Lock
	for range 2 {
		r, err := h.TryAcquireShared(ctx, key, short)
		require.NoError(t, err)
		reads = append(reads, r)
	}
	strategytest.RequireTTLNear(t, p, key, strategytest.TTL)
	require.NoError(t, reads[1].Release(ctx))
	assert.LessOrEqual(t, strategytest.PTTL(t, p, key), short.Milliseconds(), "the read unlock did not cut K")

	strategytest.WaitGone(t, p, key)
	other, err := newRW(t, p).TryAcquire(ctx, key, strategytest.TTL)
	require.NoError(t, err, "no other writer got in")
	assert.Less(t, time.Since(granted), strategytest.TTL, "the first write lease is over")
	require.NoError(t, other.Release(ctx))
}
