package strategytest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests every read-write lock and every semaphore must pass, beside
// their own: readers share and writers exclude; no more holders than
// permits.

// NewSharedFunc makes a read-write lock on a pool.
type NewSharedFunc func(p strategy.Pool) (strategy.Shared, error)

// RunShared runs the tests of a read-write lock as subtests of t: readers
// of several clients hold together, a writer waits for the last of them
// and then keeps readers out, a read lock is waited for through
// strategy.Reader, and bad input is refused. name is the strategy's name
// as its errors report it. The write lock, a mutex, is RunBasic's.
func RunShared(t *testing.T, name string, newRW NewSharedFunc) {
	s := &shared{name: name, new: newRW}
	t.Run("ReadersShare", s.readersShare)
	t.Run("WaitForRead", s.waitForRead)
	t.Run("BadInput", s.badInput)
}

type shared struct {
	name string
	new  NewSharedFunc
}

func (s *shared) rw(t *testing.T, p strategy.Pool) strategy.Shared {
	t.Helper()
	rw, err := s.new(p)
	require.NoError(t, err)
	require.Equal(t, strategy.ReadWrite, strategy.KindOf(rw))
	return rw
}

func (s *shared) readersShare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	var reads []strategy.Lock
	for i := range 3 {
		l, err := s.rw(t, p).TryAcquireShared(ctx, key, TTL)
		require.NoError(t, err, "reader %d was kept out by readers", i+1)
		assert.Equal(t, key, l.Key())
		reads = append(reads, l)
	}
	w := s.rw(t, p)
	for i, l := range reads {
		_, err := w.TryAcquire(ctx, key, TTL)
		require.ErrorIs(t, err, strategy.ErrNotAcquired, "a writer got in beside %d readers", len(reads)-i)
		assert.Contains(t, err.Error(), s.name)
		require.NoError(t, l.Release(ctx))
	}
	wl, err := w.TryAcquire(ctx, key, TTL)
	require.NoError(t, err, "the writer was kept out once the readers left")
	for _, c := range []strategy.Shared{w, s.rw(t, p)} {
		_, err = c.TryAcquireShared(ctx, key, TTL)
		require.ErrorIs(t, err, strategy.ErrNotAcquired, "a reader got in beside a writer")
	}
	require.NoError(t, wl.Release(ctx))
	l, err := s.rw(t, p).TryAcquireShared(ctx, key, TTL)
	require.NoError(t, err, "a reader was kept out once the writer left")
	require.NoError(t, l.Release(ctx))
}

// waitForRead: Acquire through strategy.Reader waits while a writer
// holds, and gets the read lock once it leaves.
func (s *shared) waitForRead(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	w, err := s.rw(t, p).TryAcquire(context.Background(), key, TTL)
	require.NoError(t, err)
	released := make(chan error, 1)
	timer := time.AfterFunc(50*time.Millisecond, func() { released <- w.Release(context.Background()) })
	defer timer.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &Counting{Strategy: strategy.Reader(s.rw(t, p))}
	l, err := strategy.Acquire(ctx, c, key, TTL, strategy.FixedInterval(5*time.Millisecond))
	require.NoError(t, err)
	require.NoError(t, <-released)
	assert.Greater(t, c.Attempts(), int64(1), "the reader did not wait for the writer")
	require.NoError(t, l.Release(ctx))
}

func (s *shared) badInput(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	refusesBadInput(t, p, key, s.name, s.rw(t, p).TryAcquireShared)
	for _, pool := range []strategy.Pool{nil, (*redis.Pool)(nil)} {
		_, err := s.new(pool)
		require.ErrorIs(t, err, strategy.ErrNilPool)
	}
}

// CountingSpec says how to make a semaphore.
type CountingSpec struct {
	Name string // as its errors report it
	New  func(p strategy.Pool, permits int) (strategy.Counting, error)
	// ErrInvalidPermits is the error of New for fewer than one permit,
	// and of TryAcquireN for an n out of range.
	ErrInvalidPermits error
}

// RunCounting runs the tests of a semaphore as subtests of t: of many
// clients racing, no more than Permits hold at once and a release lets one
// more in; a Weighted semaphore takes n permits all or none; bad input is
// refused, and a key of another type is an error.
func RunCounting(t *testing.T, spec CountingSpec) {
	c := &counting{spec}
	t.Run("Bound", c.bound)
	t.Run("AcquireN", c.acquireN)
	t.Run("BadInput", c.badInput)
	t.Run("WrongType", c.wrongType)
}

type counting struct{ CountingSpec }

func (c *counting) sem(t *testing.T, p strategy.Pool, permits int) strategy.Counting {
	t.Helper()
	s, err := c.New(p, permits)
	require.NoError(t, err)
	require.Equal(t, strategy.Semaphore, strategy.KindOf(s))
	require.Equal(t, permits, s.Permits())
	return s
}

func (c *counting) bound(t *testing.T) {
	t.Parallel()
	const permits, clients = 3, 30
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		held  []strategy.Lock
		start = make(chan struct{})
	)
	for range clients {
		s := c.sem(t, p, permits)
		wg.Go(func() {
			<-start
			l, err := s.TryAcquire(ctx, key, TTL)
			if err != nil {
				assert.ErrorIs(t, err, strategy.ErrNotAcquired)
				return
			}
			mu.Lock()
			held = append(held, l)
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	require.Len(t, held, permits, "holders of a semaphore of %d permits", permits)
	_, err := c.sem(t, p, permits).TryAcquire(ctx, key, TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "a holder beyond the permits")
	assert.Contains(t, err.Error(), c.Name)

	require.NoError(t, held[0].Release(ctx))
	l, err := c.sem(t, p, permits).TryAcquire(ctx, key, TTL)
	require.NoError(t, err, "a released permit is not free again")
	assert.Equal(t, key, l.Key())
}

func (c *counting) acquireN(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s, ok := c.sem(t, p, 3).(strategy.Weighted)
	if !ok {
		t.Skip("not a Weighted semaphore")
	}
	two, err := s.TryAcquireN(ctx, key, 2, TTL)
	require.NoError(t, err)
	_, err = s.TryAcquireN(ctx, key, 2, TTL)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "2 permits of the 1 left")
	one, err := s.TryAcquireN(ctx, key, 1, TTL)
	require.NoError(t, err, "a failed TryAcquireN took permits")
	require.NoError(t, two.Release(ctx))
	two, err = s.TryAcquireN(ctx, key, 2, TTL)
	require.NoError(t, err, "the release gave back fewer than 2 permits")
	require.NoError(t, two.Release(ctx))
	require.NoError(t, one.Release(ctx))
}

func (c *counting) badInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	for _, permits := range []int{0, -1} {
		_, err := c.New(p, permits)
		require.ErrorIs(t, err, c.ErrInvalidPermits, "permits %d", permits)
	}
	for _, pool := range []strategy.Pool{nil, (*redis.Pool)(nil)} {
		_, err := c.New(pool, 1)
		require.ErrorIs(t, err, strategy.ErrNilPool)
	}
	s := c.sem(t, p, 2)
	if w, ok := s.(strategy.Weighted); ok {
		for _, n := range []int{0, -1, 3} {
			_, err := w.TryAcquireN(ctx, key, n, TTL)
			require.ErrorIs(t, err, c.ErrInvalidPermits, "n %d", n)
		}
	}
	refusesBadInput(t, p, key, c.Name, s.TryAcquire)
}

// refusesBadInput checks that acquire refuses an empty key and TTLs below
// a millisecond, and writes nothing at key.
func refusesBadInput(t *testing.T, p *redis.Pool, key, name string, acquire func(context.Context, string, time.Duration) (strategy.Lock, error)) {
	t.Helper()
	ctx := context.Background()
	_, err := acquire(ctx, "", TTL)
	require.ErrorIs(t, err, strategy.ErrInvalidKey)
	assert.Contains(t, err.Error(), name)
	for _, ttl := range []time.Duration{0, -time.Second, time.Millisecond - 1} {
		_, err = acquire(ctx, key, ttl)
		require.ErrorIs(t, err, strategy.ErrInvalidTTL, "ttl %v", ttl)
	}
	assert.False(t, Exists(t, p, key), "bad input wrote the lock")
}

// wrongType: a key of another type (a list) is an error, not a full
// semaphore, and is left as it is.
func (c *counting) wrongType(t *testing.T) {
	t.Parallel()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	Do(t, p, "RPUSH", key, "x")
	_, err := c.sem(t, p, 1).TryAcquire(context.Background(), key, TTL)
	RequireOpError(t, err, c.Name, key)
	var re redis.Error
	require.ErrorAs(t, err, &re)
	assert.Contains(t, re.Error(), "WRONGTYPE")
	assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
	items, err := redis.Strings(Do(t, p, "LRANGE", key, 0, -1), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"x"}, items)
}
