package luatoken_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/strategytest"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fallback is the retry of waiters that must be woken by a release: its
// poll would come far too late to pass the tests.
var fallback = strategy.FixedInterval(10 * time.Second)

type acquired struct {
	lock strategy.Lock
	err  error
	at   time.Time
}

// startWaiter runs strategy.Acquire on key in a goroutine, and returns once
// its first attempt has failed.
func startWaiter(t *testing.T, ctx context.Context, c *counting, key string, r strategy.Retry) <-chan acquired {
	t.Helper()
	c.tried = make(chan int64, 16)
	done := make(chan acquired, 1)
	go func() {
		l, err := strategy.Acquire(ctx, c, key, strategytest.TTL, r)
		done <- acquired{l, err, time.Now()}
	}()
	// Acquire tries, finds the lock taken, subscribes and tries once more:
	// after that second attempt the waiter is subscribed.
	for want := int64(1); want <= 2; want++ {
		select {
		case n := <-c.tried:
			require.Equal(t, want, n)
		case a := <-done:
			t.Fatalf("the waiter returned before its attempt %d: %v", want, a.err)
		case <-time.After(strategytest.Margin):
			t.Fatalf("the waiter made no attempt %d", want)
		}
	}
	return done
}

// numsub returns PUBSUB NUMSUB of key's release channel.
func numsub(t testing.TB, p *redis.Pool, key string) int {
	t.Helper()
	vs, err := redis.Values(strategytest.Do(t, p, "PUBSUB", "NUMSUB", luatoken.ChannelName(key)), nil)
	require.NoError(t, err)
	n, err := redis.Int(vs[1], nil)
	require.NoError(t, err)
	return n
}

// A waiter is woken by the release, not by its poll: three attempts, and it
// holds the lock within milliseconds of the release. It works on pools that
// wrap their connections too (and so lack read timeouts).
func TestNotifyWakesWaiter(t *testing.T) {
	t.Parallel()
	for _, wrapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("wrapped=%v", wrapped), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			p := redistest.Pool(t)
			key := redistest.Key(t)
			var pool strategy.Pool = p
			if wrapped {
				pool = &stallPool{Pool: p}
			}
			s := newLuatoken(t, pool, luatoken.WithNotify())
			holder, _ := tryAcquire(t, s, key, strategytest.TTL)

			c := &counting{Strategy: s}
			done := startWaiter(t, ctx, c, key, fallback)
			assert.Equal(t, 1, numsub(t, p, key), "the waiter is not subscribed")
			time.Sleep(20 * time.Millisecond) // let it settle in its wait

			released := time.Now()
			require.NoError(t, holder.Release(ctx))
			var a acquired
			select {
			case a = <-done:
			case <-time.After(2 * time.Second):
				t.Fatal("the waiter was not woken by the release")
			}
			require.NoError(t, a.err)
			wake := a.at.Sub(released)
			t.Logf("woken %v after the release", wake)
			assert.Less(t, wake, 250*time.Millisecond)
			// One attempt finds the lock taken, one follows the
			// subscription, one follows the release.
			assert.Equal(t, int64(3), c.n.Load(), "attempts")
			require.NoError(t, a.lock.Release(ctx))

			eventually(t, strategytest.Margin, func() bool { return numsub(t, p, key) == 0 }, "still subscribed after Acquire returned")
			eventually(t, strategytest.Margin, func() bool { n, running := luatoken.HubState(s); return n == 0 && !running },
				"the hub still tracks channels or runs")
		})
	}
}

// Release publishes the key on its channel, once, and only when it deleted
// the lock.
func TestNotifyPublishes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newLuatoken(t, p, luatoken.WithNotify())

	c, err := p.GetContext(ctx)
	require.NoError(t, err)
	defer c.Close()
	psc := redis.PubSubConn{Conn: c}
	require.NoError(t, psc.Subscribe(luatoken.ChannelName(key)))
	require.IsType(t, redis.Subscription{}, psc.Receive())

	l, _ := tryAcquire(t, s, key, strategytest.TTL)
	require.NoError(t, l.Release(ctx))
	require.ErrorIs(t, l.Release(ctx), strategy.ErrNotHeld) // publishes nothing
	require.NoError(t, psc.Ping("end"))

	m, ok := psc.Receive().(redis.Message)
	require.True(t, ok)
	assert.Equal(t, luatoken.ChannelPrefix+key, m.Channel)
	assert.Equal(t, key, string(m.Data))
	pong, ok := psc.Receive().(redis.Pong)
	require.True(t, ok, "a second message was published")
	assert.Equal(t, "end", pong.Data)
	require.NoError(t, psc.Unsubscribe())
}

// Many waiters share one Pub/Sub connection, each channel is subscribed
// once however many wait on it, and every waiter is woken by its release.
func TestNotifySharedConnection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	base := redistest.Key(t)
	s := newLuatoken(t, p, luatoken.WithNotify())
	const keys, perKey = 10, 3

	var holders []strategy.Lock
	var waits []<-chan acquired
	for k := range keys {
		key := fmt.Sprintf("%s:%d", base, k)
		l, _ := tryAcquire(t, s, key, strategytest.TTL)
		holders = append(holders, l)
		for range perKey {
			waits = append(waits, startWaiter(t, ctx, &counting{Strategy: s}, key, fallback))
		}
	}
	for k := range keys {
		assert.Equal(t, 1, numsub(t, p, fmt.Sprintf("%s:%d", base, k)))
	}
	assert.Equal(t, 1, p.ActiveCount()-p.IdleCount(), "connections held by %d waiters", keys*perKey)
	n, running := luatoken.HubState(s)
	assert.Equal(t, keys, n)
	assert.True(t, running)

	// Each release lets one waiter in; its release the next, and so on.
	start := time.Now()
	for _, l := range holders {
		require.NoError(t, l.Release(ctx))
	}
	var wg sync.WaitGroup
	for _, w := range waits {
		wg.Go(func() {
			select {
			case a := <-w:
				if assert.NoError(t, a.err) {
					assert.NoError(t, a.lock.Release(ctx))
				}
			case <-time.After(5 * time.Second):
				t.Error("a waiter was not woken")
			}
		})
	}
	wg.Wait()
	t.Logf("%d waiters on %d keys served in %v", keys*perKey, keys, time.Since(start))
	eventually(t, strategytest.Margin, func() bool { n, running := luatoken.HubState(s); return n == 0 && !running },
		"the hub still tracks channels or runs")
	eventually(t, strategytest.Margin, func() bool { return p.ActiveCount() == p.IdleCount() }, "connections not given back")
}

// Waiters that give up leave nothing behind: no subscription on the server,
// no entry in the hub, no goroutine. Not parallel: it counts goroutines.
func TestNotifyGiveUpLeavesNothing(t *testing.T) {
	p := redistest.Pool(t)
	base := redistest.Key(t)
	check := goroutines(t)
	s := newLuatoken(t, p, luatoken.WithNotify())

	keys := []string{base + ":a", base + ":b"}
	var holders []strategy.Lock
	for _, key := range keys {
		l, _ := tryAcquire(t, s, key, strategytest.TTL)
		holders = append(holders, l)
	}
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(50+20*i)*time.Millisecond)
			defer cancel()
			_, err := strategy.Acquire(ctx, s, keys[i%2], strategytest.TTL, fallback)
			assert.ErrorIs(t, err, strategy.ErrNotAcquired)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
		})
	}
	wg.Wait()
	for _, key := range keys {
		eventually(t, strategytest.Margin, func() bool { return numsub(t, p, key) == 0 }, "%s still subscribed", key)
	}
	eventually(t, strategytest.Margin, func() bool { n, running := luatoken.HubState(s); return n == 0 && !running },
		"the hub still tracks channels or runs")
	for _, l := range holders {
		require.NoError(t, l.Release(context.Background()))
	}
	check()
	eventually(t, strategytest.Margin, func() bool { return p.ActiveCount() == p.IdleCount() }, "connections not given back")
}

// A subscription whose context ends before the server confirms it fails
// as Acquire does, and leaves nothing behind once the connection is given
// up. Not parallel: it counts goroutines.
func TestSubscribeContext(t *testing.T) {
	silent := strategytest.PoolTo(t, strategytest.SilentServer(t))
	check := goroutines(t)
	s := newLuatoken(t, silent, luatoken.WithNotify())
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := s.Subscribe(ctx, "k")
	assert.Less(t, time.Since(start), strategytest.Margin)
	require.ErrorIs(t, err, strategy.ErrNotAcquired)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	// The silent connection is dropped when it stays silent past the
	// keep-alive (3s).
	eventually(t, 5*time.Second, func() bool { n, running := luatoken.HubState(s); return n == 0 && !running },
		"the hub still tracks channels or runs")
	check()
}

// When no connection can be had, Subscribe (and so Acquire) fails at once
// with the connection error, and the hub stops.
func TestSubscribeUnreachable(t *testing.T) {
	t.Parallel()
	s := newLuatoken(t, strategytest.PoolTo(t, strategytest.ClosedPort(t)), luatoken.WithNotify())
	start := time.Now()
	_, _, err := s.Subscribe(context.Background(), "k")
	require.Error(t, err)
	assert.NotErrorIs(t, err, strategy.ErrNotAcquired)
	op := strategytest.RequireOpError(t, err, "luatoken", "k")
	assert.Equal(t, "SUBSCRIBE", op.Op)
	assert.Less(t, time.Since(start), strategytest.Margin)
	// Acquire meets the unreachable server at its first attempt.
	_, err = strategy.Acquire(context.Background(), s, "k", time.Second, fallback)
	assert.Equal(t, "connect", strategytest.RequireOpError(t, err, "luatoken", "k").Op)
	eventually(t, strategytest.Margin, func() bool { n, running := luatoken.HubState(s); return n == 0 && !running },
		"the hub still tracks channels or runs")
}

// Without WithNotify, Subscribe costs nothing and Acquire polls.
func TestSubscribeWithoutNotify(t *testing.T) {
	t.Parallel()
	s := newLuatoken(t, redistest.Pool(t))
	wake, stop, err := s.Subscribe(context.Background(), "k")
	require.NoError(t, err)
	assert.Nil(t, wake)
	stop()
	n, running := luatoken.HubState(s)
	assert.Zero(t, n)
	assert.False(t, running)
}

// When the shared connection breaks, the hub reconnects and subscribes
// again; waiters are woken (a release may have been missed), and the next
// release still reaches them.
func TestNotifyReconnect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	ip := &idPool{Pool: p}
	s := newLuatoken(t, ip, luatoken.WithNotify())
	holder, _ := tryAcquire(t, s, key, strategytest.TTL)

	c := &counting{Strategy: s}
	done := startWaiter(t, ctx, c, key, fallback)
	id := ip.subscriber(t, p)
	strategytest.Do(t, p, "CLIENT", "KILL", "ID", id)

	// Woken by the break: the waiter tries again (and fails).
	select {
	case n := <-c.tried:
		assert.GreaterOrEqual(t, n, int64(2))
	case <-time.After(2 * time.Second):
		t.Fatal("the waiter was not woken when the connection broke")
	}
	eventually(t, 2*time.Second, func() bool { return numsub(t, p, key) == 1 }, "not subscribed again")
	assert.NotEqual(t, id, ip.subscriber(t, p))
	time.Sleep(20 * time.Millisecond)

	released := time.Now()
	require.NoError(t, holder.Release(ctx))
	select {
	case a := <-done:
		require.NoError(t, a.err)
		assert.Less(t, a.at.Sub(released), 250*time.Millisecond)
		require.NoError(t, a.lock.Release(ctx))
	case <-time.After(2 * time.Second):
		t.Fatal("the waiter was not woken by the release after the reconnection")
	}
}

// idPool passes connections from Pool, unwrapped, and records the CLIENT ID
// of each.
type idPool struct {
	Pool *redis.Pool
	mu   sync.Mutex
	ids  []string
}

func (p *idPool) GetContext(ctx context.Context) (redis.Conn, error) {
	c, err := p.Pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	id, err := redis.Int64(c.Do("CLIENT", "ID"))
	if err != nil {
		c.Close()
		return nil, err
	}
	p.mu.Lock()
	p.ids = append(p.ids, fmt.Sprint(id))
	p.mu.Unlock()
	return c, nil
}

// subscriber returns the CLIENT ID of the one connection of p that is in
// Pub/Sub mode.
func (p *idPool) subscriber(t testing.TB, server *redis.Pool) string {
	t.Helper()
	p.mu.Lock()
	mine := append([]string(nil), p.ids...)
	p.mu.Unlock()
	list, err := redis.String(strategytest.Do(t, server, "CLIENT", "LIST", "TYPE", "pubsub"), nil)
	require.NoError(t, err)
	var found []string
	for line := range strings.SplitSeq(strings.TrimSpace(list), "\n") {
		for field := range strings.FieldsSeq(line) {
			if id, ok := strings.CutPrefix(field, "id="); ok && slices.Contains(mine, id) {
				found = append(found, id)
			}
		}
	}
	require.Len(t, found, 1, "Pub/Sub connections of the strategy")
	return found[0]
}

// A waiter that waits for seconds keeps its subscription on the same
// connection: the keep-alive PINGs neither break it nor time it out, with
// read timeouts (a redigo pool) and without (a wrapping pool).
func TestNotifyKeepAlive(t *testing.T) {
	t.Parallel()
	for _, wrapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("wrapped=%v", wrapped), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			p := redistest.Pool(t)
			key := redistest.Key(t)
			ip := &idPool{Pool: p}
			var pool strategy.Pool = ip
			if wrapped {
				pool = &stallPool{Pool: ip}
			}
			s := newLuatoken(t, pool, luatoken.WithNotify())
			holder, _ := tryAcquire(t, s, key, strategytest.TTL)
			c := &counting{Strategy: s}
			done := startWaiter(t, ctx, c, key, fallback)
			id := ip.subscriber(t, p)

			time.Sleep(4 * time.Second) // past the 3s liveness, with PINGs every second
			assert.Equal(t, id, ip.subscriber(t, p), "the subscription moved to another connection")
			assert.Equal(t, int64(2), c.n.Load(), "the waiter was woken without a release")

			require.NoError(t, holder.Release(ctx))
			select {
			case a := <-done:
				require.NoError(t, a.err)
				require.NoError(t, a.lock.Release(ctx))
			case <-time.After(2 * time.Second):
				t.Fatal("the waiter was not woken by the release")
			}
			assert.Equal(t, int64(3), c.n.Load())
		})
	}
}

// TestNotifyWakesOne: a release wakes one waiter, not all of them, so n
// waiters behind one holder cost n attempts after their first two each,
// not n + (n-1) + ... + 1; a waiter that gives up passes its wake on.
func TestNotifyWakesOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := redistest.Pool(t)
	key := redistest.Key(t)
	s := newLuatoken(t, p, luatoken.WithNotify())
	held, _ := tryAcquire(t, s, key, strategytest.TTL)

	// One counting wrapper per waiter, all on s and its one subscription.
	const n = 6
	counts := make([]*counting, n)
	attempts := func() (sum int64) {
		for _, c := range counts {
			sum += c.n.Load()
		}
		return sum
	}
	dones := make([]<-chan acquired, n)
	for i := range dones {
		counts[i] = &counting{Strategy: s}
		dones[i] = startWaiter(t, ctx, counts[i], key, fallback)
		require.Equal(t, int64(2), counts[i].n.Load(), "waiter %d: its try, then one more once subscribed", i)
	}
	// One more waiter that gives up while the others wait: its wake, if it
	// gets one, must not be lost.
	quitter, quit := context.WithCancel(ctx)
	gone := startWaiter(t, quitter, &counting{Strategy: s}, key, fallback)
	quit()
	require.ErrorIs(t, (<-gone).err, strategy.ErrNotAcquired)

	waiting := attempts()
	require.NoError(t, held.Release(ctx))
	for range n {
		var a acquired
		select {
		case a = <-merge(dones):
		case <-time.After(strategytest.Margin):
			t.Fatalf("after %d attempts, a waiter still waits: a wake was lost", attempts()-waiting)
		}
		require.NoError(t, a.err)
		require.NoError(t, a.lock.Release(ctx))
	}
	assert.Equal(t, int64(n), attempts()-waiting, "attempts after the first release: one per waiter woken")
}

// merge receives from whichever of cs is ready first.
func merge(cs []<-chan acquired) <-chan acquired {
	out := make(chan acquired, 1)
	go func() {
		cases := make([]reflect.SelectCase, len(cs))
		for i, c := range cs {
			cases[i] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)}
		}
		_, v, _ := reflect.Select(cases)
		out <- v.Interface().(acquired)
	}()
	return out
}
