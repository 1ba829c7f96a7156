package redlock_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/redlock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ttl = 10 * time.Second

// drift is the default drift allowance of a TTL.
func drift(ttl time.Duration) time.Duration {
	return time.Duration(redlock.DefaultDriftFactor*float64(ttl)) + 2*time.Millisecond
}

func TestAcquireRelease(t *testing.T) {
	m := sharedMasters(t)
	ctx := context.Background()
	key := redistest.Key(t)
	s, other := newRedlock(t, m.Nodes), newRedlock(t, m.Nodes)
	assert.Equal(t, 3, s.Quorum())

	l, err := s.TryAcquire(ctx, key, ttl)
	require.NoError(t, err)
	lock := l.(*redlock.Lock)
	assert.Equal(t, key, lock.Key())
	assert.Equal(t, repeat(lock.Token(), 5), values(t, m.Nodes, key), "the token on every node")
	for _, n := range m.Nodes {
		left := pttl(t, n, key)
		assert.LessOrEqual(t, left, ttl, n.Name)
		assert.Greater(t, left, ttl-time.Second, n.Name)
	}

	// Neither the holder's strategy nor another gets it, and the failed
	// attempts leave the holder's keys as they were.
	for _, c := range []*redlock.Strategy{s, other} {
		l2, err := c.TryAcquire(ctx, key, ttl)
		require.ErrorIs(t, err, strategy.ErrNotAcquired)
		assert.Nil(t, l2)
		assert.Contains(t, err.Error(), "locked 0 of 5 nodes, quorum 3")
	}
	assert.Equal(t, repeat(lock.Token(), 5), values(t, m.Nodes, key))

	require.NoError(t, lock.Release(ctx))
	assert.Equal(t, repeat("", 5), values(t, m.Nodes, key), "Release left keys")
	require.ErrorIs(t, lock.Release(ctx), strategy.ErrNotHeld, "a second Release")

	l, err = other.TryAcquire(ctx, key, ttl)
	require.NoError(t, err, "the released lock cannot be taken again")
	require.NoError(t, l.Release(ctx))
}

// Racing clients: at most one wins each round, the losers leave nothing
// behind, and with Acquire every client gets its turn, one at a time.
func TestContention(t *testing.T) {
	m := sharedMasters(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const clients = 8
	ss := make([]*redlock.Strategy, clients)
	for i := range ss {
		ss[i] = newRedlock(t, m.Nodes, redlock.WithRetryDelay(5*time.Millisecond))
	}

	for round := range 10 {
		key := redistest.Key(t)
		locks := make([]strategy.Lock, clients)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, s := range ss {
			wg.Go(func() {
				<-start
				l, err := s.TryAcquire(ctx, key, ttl)
				if err != nil {
					assert.ErrorIs(t, err, strategy.ErrNotAcquired)
					return
				}
				locks[i] = l
			})
		}
		close(start)
		wg.Wait()
		var won []*redlock.Lock
		for _, l := range locks {
			if l != nil {
				won = append(won, l.(*redlock.Lock))
			}
		}
		require.LessOrEqual(t, len(won), 1, "round %d: more than one winner", round)
		want := repeat("", 5)
		if len(won) == 1 {
			// The losers deleted their tokens: a majority holds the
			// winner's, the rest nothing.
			holding := 0
			for _, v := range values(t, m.Nodes, key) {
				switch v {
				case won[0].Token():
					holding++
				case "":
				default:
					t.Errorf("round %d: a loser's token %q is left", round, v)
				}
			}
			assert.GreaterOrEqual(t, holding, 3, "round %d", round)
			require.NoError(t, won[0].Release(ctx))
		}
		assert.Equal(t, want, values(t, m.Nodes, key), "round %d: keys left", round)
	}

	// Waiting: everyone gets in, never two at once.
	key := redistest.Key(t)
	var inside, entered atomic.Int32
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() {
			for range 3 {
				l, err := s.Acquire(ctx, key, ttl)
				if !assert.NoError(t, err) {
					return
				}
				if n := inside.Add(1); n != 1 {
					t.Errorf("%d clients inside at once", n)
				}
				entered.Add(1)
				time.Sleep(time.Millisecond)
				inside.Add(-1)
				assert.NoError(t, l.Release(ctx))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(3*clients), entered.Load())
}

// With two of five masters down the lock is still taken on the three
// others; with three down it is not, and the two left hold nothing.
func TestQuorum(t *testing.T) {
	m := ownMasters(t, 5)
	ctx := context.Background()
	s := newRedlock(t, m.Nodes)
	key := redistest.Key(t)

	require.NoError(t, m.Nodes[1].Kill())
	require.NoError(t, m.Nodes[3].Kill())
	l, err := s.TryAcquire(ctx, key, ttl)
	require.NoError(t, err, "two of five masters down")
	tok := l.(*redlock.Lock).Token()
	assert.Equal(t, []string{tok, "down", tok, "down", tok}, values(t, m.Nodes, key))
	require.NoError(t, l.Release(ctx), "Release with two masters down")
	assert.Equal(t, []string{"", "down", "", "down", ""}, values(t, m.Nodes, key))

	require.NoError(t, m.Nodes[4].Kill())
	l, err = s.TryAcquire(ctx, key, ttl)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "three of five masters down")
	assert.Nil(t, l)
	assert.Contains(t, err.Error(), "locked 2 of 5 nodes, quorum 3")
	var ne *net.OpError
	assert.ErrorAs(t, err, &ne, "the error keeps why the nodes failed")
	assert.Equal(t, []string{"", "down", "", "down", "down"}, values(t, m.Nodes, key), "the failed attempt left keys")

	// Every master down: Redis cannot be reached, which is not a taken lock.
	require.NoError(t, m.Nodes[0].Kill())
	require.NoError(t, m.Nodes[2].Kill())
	_, err = s.TryAcquire(ctx, key, ttl)
	require.Error(t, err)
	assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
	assert.ErrorAs(t, err, &ne)

	// Back up (empty, without persistence), the lock is taken again.
	for _, n := range m.Nodes {
		require.NoError(t, n.Start(ctx))
	}
	l, err = s.TryAcquire(ctx, key, ttl)
	require.NoError(t, err)
	require.NoError(t, l.Release(ctx))
}

// Masters that hold another client's token count against the quorum, and
// neither a failed attempt nor a Release touches them.
func TestForeignToken(t *testing.T) {
	m := sharedMasters(t)
	ctx := context.Background()
	s := newRedlock(t, m.Nodes)

	key := redistest.Key(t)
	set(t, m.Nodes[0], key, "other", ttl)
	set(t, m.Nodes[4], key, "other", ttl)
	l, err := s.TryAcquire(ctx, key, ttl)
	require.NoError(t, err, "two of five held by another")
	tok := l.(*redlock.Lock).Token()
	assert.Equal(t, []string{"other", tok, tok, tok, "other"}, values(t, m.Nodes, key))
	require.NoError(t, l.Release(ctx))
	assert.Equal(t, []string{"other", "", "", "", "other"}, values(t, m.Nodes, key), "Release deleted another's key")

	key = redistest.Key(t)
	for _, i := range []int{0, 2, 4} {
		set(t, m.Nodes[i], key, "other", ttl)
	}
	_, err = s.TryAcquire(ctx, key, ttl)
	require.ErrorIs(t, err, strategy.ErrNotAcquired, "three of five held by another")
	assert.Contains(t, err.Error(), "locked 2 of 5 nodes, quorum 3")
	assert.Equal(t, []string{"other", "", "other", "", "other"}, values(t, m.Nodes, key))
	for _, i := range []int{0, 2, 4} {
		assert.Greater(t, pttl(t, m.Nodes[i], key), ttl-time.Second, "another's TTL changed")
	}
}

// steppingClock advances by step at every reading.
type steppingClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

func TestValidity(t *testing.T) {
	m := sharedMasters(t)
	ctx := context.Background()

	t.Run("RealClock", func(t *testing.T) {
		l, err := newRedlock(t, m.Nodes).TryAcquire(ctx, redistest.Key(t), ttl)
		require.NoError(t, err)
		defer l.Release(ctx)
		lock := l.(*redlock.Lock)
		v1 := lock.Validity()
		assert.Less(t, v1, ttl-drift(ttl), "the attempt took no time")
		assert.Greater(t, v1, ttl-drift(ttl)-time.Second)
		time.Sleep(50 * time.Millisecond)
		v2 := lock.Validity()
		assert.LessOrEqual(t, v2, v1-50*time.Millisecond, "Validity did not count down")
	})

	// TryAcquire reads the clock before the first SET and after the last
	// reply: with a clock that steps at each reading, the attempt took one
	// step, and Validity's own reading one more.
	const short = time.Second
	for _, step := range []time.Duration{100 * time.Millisecond, 400 * time.Millisecond} {
		t.Run("Step"+step.String(), func(t *testing.T) {
			clock := &steppingClock{now: time.Now(), step: step}
			l, err := newRedlock(t, m.Nodes, redlock.WithClock(clock)).TryAcquire(ctx, redistest.Key(t), short)
			require.NoError(t, err)
			defer l.Release(ctx)
			assert.Equal(t, short-drift(short)-2*step, l.(*redlock.Lock).Validity())
		})
	}

	// An attempt that takes longer than the TTL less the drift allowance
	// fails, with every key it set deleted.
	t.Run("TooSlow", func(t *testing.T) {
		key := redistest.Key(t)
		clock := &steppingClock{now: time.Now(), step: short - drift(short)}
		_, err := newRedlock(t, m.Nodes, redlock.WithClock(clock)).TryAcquire(ctx, key, short)
		require.ErrorIs(t, err, strategy.ErrNotAcquired)
		assert.Contains(t, err.Error(), "locked 5 of 5 nodes, but the attempt took")
		assert.Equal(t, repeat("", 5), values(t, m.Nodes, key))
	})

	// A master that does not answer costs the attempt the node timeout.
	t.Run("SilentNode", func(t *testing.T) {
		const timeout = 300 * time.Millisecond
		ps := append(pools(t, m.Nodes[:4]), strategytest.PoolTo(t, strategytest.SilentServer(t)))
		s, err := redlock.New(ps, redlock.WithNodeTimeout(timeout))
		require.NoError(t, err)
		start := time.Now()
		l, err := s.TryAcquire(ctx, redistest.Key(t), ttl)
		elapsed := time.Since(start)
		require.NoError(t, err, "four of five masters answer")
		defer func() {
			// Release waits for the silent master until its context ends.
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			require.NoError(t, l.Release(ctx))
		}()
		assert.GreaterOrEqual(t, elapsed, timeout)
		assert.Less(t, elapsed, timeout+time.Second)
		assert.LessOrEqual(t, l.(*redlock.Lock).Validity(), ttl-drift(ttl)-timeout)
	})
}

func TestRefresh(t *testing.T) {
	m := sharedMasters(t)
	ctx := context.Background()
	s := newRedlock(t, m.Nodes)

	key := redistest.Key(t)
	l, err := s.TryAcquire(ctx, key, time.Second)
	require.NoError(t, err)
	lock := l.(*redlock.Lock)
	require.NoError(t, lock.Refresh(ctx, ttl))
	for _, n := range m.Nodes {
		assert.Greater(t, pttl(t, n, key), ttl-time.Second, n.Name)
	}
	assert.Greater(t, lock.Validity(), ttl-drift(ttl)-time.Second)
	require.NoError(t, lock.Release(ctx))
	require.ErrorIs(t, lock.Refresh(ctx, ttl), strategy.ErrNotHeld, "Refresh after Release")
	assert.Equal(t, repeat("", 5), values(t, m.Nodes, key), "Refresh after Release brought keys back")

	// Taken over on a majority: Refresh fails and extends nobody's key.
	key = redistest.Key(t)
	l, err = s.TryAcquire(ctx, key, ttl)
	require.NoError(t, err)
	lock = l.(*redlock.Lock)
	for _, i := range []int{1, 2, 3} {
		set(t, m.Nodes[i], key, "other", time.Second)
	}
	err = lock.Refresh(ctx, 2*ttl)
	require.ErrorIs(t, err, strategy.ErrNotHeld)
	assert.Contains(t, err.Error(), "extended on 2 of 5 nodes, quorum 3")
	for _, i := range []int{1, 2, 3} {
		assert.LessOrEqual(t, pttl(t, m.Nodes[i], key), time.Second, "another's key was extended")
	}
	require.NoError(t, lock.Release(ctx))
	assert.Equal(t, []string{"", "other", "other", "other", ""}, values(t, m.Nodes, key))

	// Once its validity has ended, a lock is not refreshed, even where its
	// keys are still there.
	key = redistest.Key(t)
	clock := &steppingClock{now: time.Now(), step: 700 * time.Millisecond}
	l, err = newRedlock(t, m.Nodes, redlock.WithClock(clock)).TryAcquire(ctx, key, 2*time.Second)
	require.NoError(t, err)
	// The attempt took one step of 700ms: its validity ends 1978ms after
	// the first reading; Validity reads 2100ms on, Refresh 2800ms on.
	lock = l.(*redlock.Lock)
	assert.Greater(t, lock.Validity(), time.Duration(0))
	err = lock.Refresh(ctx, ttl)
	require.ErrorIs(t, err, strategy.ErrNotHeld)
	assert.Contains(t, err.Error(), "validity ended")
	for _, n := range m.Nodes {
		assert.LessOrEqual(t, pttl(t, n, key), 2*time.Second, "a late Refresh extended %s", n.Name)
	}
	require.NoError(t, lock.Release(ctx))
}

func TestBadInput(t *testing.T) {
	m := sharedMasters(t)
	ctx := context.Background()
	_, err := redlock.New(nil)
	require.ErrorIs(t, err, strategy.ErrNilPool)
	_, err = redlock.New([]strategy.Pool{m.Nodes[0].NewPool(), nil})
	require.ErrorIs(t, err, strategy.ErrNilPool)
	for _, o := range []redlock.Option{
		redlock.WithDriftFactor(-0.1), redlock.WithDriftFactor(1), redlock.WithClock(nil),
		redlock.WithNodeTimeout(0), redlock.WithRetryDelay(-time.Second),
	} {
		_, err = redlock.New(pools(t, m.Nodes), o)
		require.ErrorIs(t, err, redlock.ErrInvalidOption)
	}

	s := newRedlock(t, m.Nodes)
	_, err = s.TryAcquire(ctx, "", ttl)
	require.ErrorIs(t, err, strategy.ErrInvalidKey)
	key := redistest.Key(t)
	for _, d := range []time.Duration{0, time.Millisecond, 2 * time.Millisecond} {
		_, err = s.TryAcquire(ctx, key, d)
		require.ErrorIs(t, err, strategy.ErrInvalidTTL, "ttl %v", d)
	}
	assert.Equal(t, repeat("", 5), values(t, m.Nodes, key))
	l, err := s.TryAcquire(ctx, key, ttl)
	require.NoError(t, err)
	defer l.Release(ctx)
	for _, d := range []time.Duration{0, 2 * time.Millisecond} {
		require.ErrorIs(t, l.(*redlock.Lock).Refresh(ctx, d), strategy.ErrInvalidTTL, "refresh %v", d)
	}
}

// Acquire waits for a held lock to expire, and gives up with its context.
func TestAcquireWaits(t *testing.T) {
	m := sharedMasters(t)
	ctx := context.Background()
	key := redistest.Key(t)
	holder := newRedlock(t, m.Nodes)
	waiter := newRedlock(t, m.Nodes, redlock.WithRetryDelay(10*time.Millisecond))

	_, err := holder.TryAcquire(ctx, key, 300*time.Millisecond)
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = waiter.Acquire(short, key, ttl)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	require.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)

	long, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	l, err := waiter.Acquire(long, key, ttl)
	require.NoError(t, err, "the holder's lock did not expire")
	require.NoError(t, l.Release(ctx))
}

// Release and Refresh wait for a master that does not answer until their
// context ends; the masters that answer are released, or extended, at once.
func TestSilentNodeAfterAcquire(t *testing.T) {
	m := sharedMasters(t)
	key := redistest.Key(t)
	up := m.Nodes[4].NewPool()
	t.Cleanup(func() { up.Close() })
	sp := &strategytest.SwitchPool{Up: up, Dead: strategytest.PoolTo(t, strategytest.SilentServer(t))}
	s, err := redlock.New(append(pools(t, m.Nodes[:4]), sp))
	require.NoError(t, err)
	l, err := s.TryAcquire(context.Background(), key, ttl)
	require.NoError(t, err)
	sp.Down.Store(true)

	const timeout = 300 * time.Millisecond
	for _, op := range []struct {
		name string
		do   func(context.Context) error
		want []string
	}{
		{"Refresh", func(ctx context.Context) error { return l.(*redlock.Lock).Refresh(ctx, 2*ttl) }, repeat(l.(*redlock.Lock).Token(), 5)},
		{"Release", l.Release, repeat("", 5)},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		start := time.Now()
		err := op.do(ctx)
		elapsed := time.Since(start)
		cancel()
		require.NoError(t, err, "%s with four of five masters answering", op.name)
		assert.GreaterOrEqual(t, elapsed, timeout, "%s did not wait for the silent master", op.name)
		assert.Less(t, elapsed, timeout+time.Second, "%s outlived its context", op.name)
		assert.Equal(t, op.want[:4], values(t, m.Nodes[:4], key), op.name)
	}
	// The master that could not be reached keeps the key until its TTL.
	assert.Equal(t, l.(*redlock.Lock).Token(), values(t, m.Nodes, key)[4])
}

// Masters that answer too late for the node timeout count as masters not
// locked: the attempt fails with ErrNotAcquired, so that Acquire tries
// again. When the caller's context ends first, no master was reached, and
// the error is the context's.
func TestNodeTimeout(t *testing.T) {
	ctx := context.Background()
	silent := make([]strategy.Pool, 3)
	for i := range silent {
		silent[i] = strategytest.PoolTo(t, strategytest.SilentServer(t))
	}
	s, err := redlock.New(silent, redlock.WithNodeTimeout(100*time.Millisecond))
	require.NoError(t, err)

	_, err = s.TryAcquire(ctx, redistest.Key(t), ttl)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	assert.Contains(t, err.Error(), "locked 0 of 3 nodes, quorum 2")
	assert.True(t, strategytest.IsTimeout(err), "not a timeout: %v", err)

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = s.TryAcquire(short, redistest.Key(t), ttl)
	require.Error(t, err)
	assert.True(t, strategytest.IsTimeout(err), "not a timeout: %v", err)
	assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
}
