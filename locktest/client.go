package locktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest/internal/wire"
	"github.com/locklab/locklab/strategy"
)

// errCrashed is what before returns for a command of a crashed client: the
// proxy never forwards it, and the client finds its connection cut.
var errCrashed = errors.New("locktest: client crashed")

// simClient is one simulated process: its own strategy instance, built by the
// factory on a proxy of its own between it and Redis, and a clock that the
// suite controls. Every command it sends, on any connection and from any
// client library or language, crosses the proxy, where the suite records
// it and steers it (see before and after).
type simClient struct {
	name  string
	r     *env
	s     strategy.Strategy
	skew  time.Duration
	info  clientInfo  // what its factory is given
	proxy *wire.Proxy // to Redis, or to the first master of several
	pool  *redis.Pool // the redigo pool on proxy that the factory is given

	// On a topology of several masters (Config.Masters), one proxy and
	// pool for each, proxies[0] being proxy.
	proxies []*wire.Proxy
	pools   []*redis.Pool
	nodes   []string // the masters' names, for the timeline
	cut     []bool   // the masters the client cannot reach (a partition)

	mu         sync.Mutex
	crashAfter int // crash once this many commands have returned; 0: never
	sent       int
	crashed    bool
	gate       func(ctx context.Context, cmd string) error // before each command; may block
	paused     chan struct{}                               // while non-nil, commands wait for it to close

	pauseAt        int           // pause once this many commands have returned; 0: never
	pauseAtOp      Message       // the boundary a pause is at, for its event
	inMultiAtPause bool          // the pause falls inside MULTI
	reached        chan struct{} // becomes arrive when the pause at pauseAt begins
	arrive         chan struct{} // closed when the paused client reaches its next command
	failing        bool          // every command fails without being sent
	inMulti        bool          // between MULTI and EXEC/DISCARD: commands are only queued

	// Faults on the wire (fault.go): the one armed, the commands counted
	// since, the command it hit and what it did; and the commands listed
	// while watching.
	fault      fault
	faultSeen  int
	faultCmd   *wire.Command
	faultHit   faultKind
	faultUntil time.Time
	watching   bool
	seen       []sentCommand

	// ownClock: the strategy reads a clock of its own (strategy.OwnClock),
	// so the proxy shifts the absolute times of a skewed client's
	// commands; shiftNoted once the timeline says so.
	ownClock   atomic.Bool
	shiftNoted atomic.Bool

	// lockCmds, while set, lists the commands on the lock's keys the
	// client sends (renew-after-release).
	lockCmds *[]lockCommand

	onCrash []func() // what the factory asked to run when the client crashes
	cleanup []func() // what the factory asked to run when the client is done
	dying   bool     // crashed by a scenario, not stopped at the end of the run
	closed  bool
}

// dialClient makes a simulated client on e: a proxy of its own to each
// of nodes, and a redigo pool on it; build gives it its strategy.
func dialClient(r *env, name string, skew time.Duration, nodes []nodeDial, lost func(error), noAuth func()) *simClient {
	c := &simClient{name: name, r: r, skew: skew}
	secret := newSecret()
	c.info = clientInfo{Name: name, Password: secret, Clock: clientClock{c}, Skew: skew, c: c}
	cl := &c.info
	for i, n := range nodes {
		var crashed func()
		if i == 0 {
			crashed = c.crashDone // once, not once per master
		}
		proxy, err := wire.Listen(wire.Config{Dial: n.dial, Hooks: c.hooks(i), Crashed: crashed, Lost: lost, Secret: secret, NoAuth: noAuth})
		if err != nil {
			c.close()
			r.fail(mFailProxy.New(name, err.Error()))
		}
		addr := proxy.Addr()
		pool := &redis.Pool{
			MaxIdle: 4,
			DialContext: func(ctx context.Context) (redis.Conn, error) {
				return redis.DialContext(ctx, "tcp", addr, redis.DialPassword(secret))
			},
		}
		c.proxies, c.pools = append(c.proxies, proxy), append(c.pools, pool)
		c.nodes, c.cut = append(c.nodes, n.name), append(c.cut, false)
		cl.Addrs, cl.Pools = append(cl.Addrs, addr), append(cl.Pools, pool)
	}
	c.proxy, c.pool = c.proxies[0], c.pools[0]
	cl.Addr, cl.Pool = cl.Addrs[0], cl.Pools[0]
	return c
}

// build gives c its strategy, from factory.
func (c *simClient) build(factory func(clientInfo) (strategy.Strategy, error)) {
	r, name := c.r, c.name
	var s strategy.Strategy
	var err error
	r.guard(name, "factory", func() { s, err = factory(c.info) })
	if err != nil {
		r.fail(mFailFactory.New(name, err.Error()))
	}
	if s == nil {
		r.fail(mFailNilStrategy.New(name))
	}
	c.s = s
	if o, ok := s.(strategy.OwnClock); ok && o.OwnClock() {
		c.ownClock.Store(true)
	}
	if k, ok := s.(strategy.Keyed); ok {
		r.declareStateKeys(k.Keys(r.key))
	}
}

// nodeDial is how a client's proxy reaches one master of a topology.
type nodeDial struct {
	name string
	dial func(context.Context) (net.Conn, error)
}

// newSecret returns a fresh password for a client's proxies.
func newSecret() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on the systems Go supports
	}
	return hex.EncodeToString(b)
}

// clientInfo is what a factory is given for one simulated client (the
// facade's Client).
type clientInfo struct {
	Name     string
	Addr     string
	Password string
	Pool     strategy.Pool
	Clock    strategy.Clock
	Skew     time.Duration
	Addrs    []string
	Pools    []strategy.Pool

	c *simClient
}

// addCleanup registers f to run once the client's run is over.
func (c *simClient) addCleanup(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cleanup = append(c.cleanup, f)
}

// addOnCrash registers f to run when the suite crashes the client.
func (c *simClient) addOnCrash(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onCrash = append(c.onCrash, f)
}

// clientClock is a client's clock: the real time plus the client's skew.
// Every reading is recorded.
type clientClock struct{ c *simClient }

func (k clientClock) Now() time.Time {
	now := time.Now().Add(k.c.skew)
	r := k.c.r
	r.clockReads.Add(1)
	at := valueArg(r.stamp(now.UnixMilli()))
	m := mClock.New(at)
	switch {
	case k.c.skew > 0:
		m = mClockAhead.New(at, k.c.skew)
	case k.c.skew < 0:
		m = mClockBehind.New(at, -k.c.skew)
	}
	r.rec.add(history.Event{Client: k.c.name, Kind: history.EvClock, Msg: &m})
	return now
}

func (c *simClient) isCrashed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.crashed
}

// crash kills the client, once: it sends nothing more, and what the
// factory registered with OnCrash runs.
func (c *simClient) crash(why Message) {
	c.mu.Lock()
	if c.crashed {
		c.mu.Unlock()
		return
	}
	c.dying = true
	c.mu.Unlock()
	c.r.rec.add(history.Event{Client: c.name, Kind: history.EvCrash, Msg: &why})
	c.kill()
}

// kill marks the client crashed and says whether it was already: its
// proxy cuts every connection, once the reply it may be handing over is
// written, and refuses new ones, so that the client sends nothing more;
// then what the factory registered with OnCrash runs.
func (c *simClient) kill() (already bool) {
	c.mu.Lock()
	already, c.crashed = c.crashed, true
	c.mu.Unlock()
	if !already {
		for _, p := range c.proxies {
			p.Crash()
		}
	}
	return already
}

// crashDone runs what the factory registered with OnCrash when the client
// crashed (not when it is merely stopped at the end of its run); the proxy
// calls it once a Crash has cut every connection.
func (c *simClient) crashDone() {
	c.mu.Lock()
	var fs []func()
	if c.dying {
		fs, c.onCrash = c.onCrash, nil
	}
	c.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// close ends the client for good: it is crashed if it was not, its pool
// and proxy are closed, and what the factory registered with Cleanup runs.
func (c *simClient) close() {
	c.resume()
	c.kill()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	fs := c.cleanup
	c.mu.Unlock()
	for i, p := range c.proxies {
		c.pools[i].Close()
		p.Close()
	}
	for i := len(fs) - 1; i >= 0; i-- {
		func() {
			defer func() {
				if v := recover(); v != nil {
					c.r.note(mCleanupPanicked.New(c.name, fmt.Sprint(v)))
				}
			}()
			fs[i]()
		}()
	}
}

// pause makes the client's commands wait until resume; pause models a
// process whose connection stalls with its work unfinished. Only its
// commands are held: its goroutines and timers (a lease deadline) keep
// running, so this is a stalled connection, not a whole-process pause.
func (c *simClient) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == nil {
		c.paused = make(chan struct{})
	}
}

func (c *simClient) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused != nil {
		close(c.paused)
		c.paused = nil
	}
}

// tryAcquire makes one attempt. It returns nil when the lock was not
// acquired; crashes and ErrNotAcquired are expected, other errors abort.
func (c *simClient) tryAcquire(ttl time.Duration) strategy.Lock {
	var l strategy.Lock
	var err error
	o := c.begin(ttl)
	c.r.guard(c.name, "TryAcquire", func() { l, err = c.s.TryAcquire(c.r.ctx, c.r.key, ttl) })
	return c.acquired(o, l, err)
}

// acquire waits up to wait for the lock, retrying every Timing.Poll.
func (c *simClient) acquire(ttl, wait time.Duration) strategy.Lock {
	return c.acquireEvery(ttl, wait, c.r.tm.Poll)
}

// acquireEvery is acquire with attempts poll apart.
func (c *simClient) acquireEvery(ttl, wait, poll time.Duration) strategy.Lock {
	return c.acquireWith(c.s, ttl, wait, poll)
}

// acquireWith is acquireEvery through s, c's strategy or a wrapper of it.
func (c *simClient) acquireWith(s strategy.Strategy, ttl, wait, poll time.Duration) strategy.Lock {
	var l strategy.Lock
	var err error
	o := c.begin(ttl)
	c.r.guard(c.name, "Acquire", func() {
		l, err = strategy.Acquire(c.r.ctx, s, c.r.key, ttl, until{time.Now().Add(wait), poll, c})
	})
	if err != nil && c.r.ctx.Err() != nil {
		c.r.fail(mFailWatchdog.New(c.r.ctx.Err().Error()))
	}
	return c.acquired(o, l, err)
}

// acquired records what an acquire begun at o returned.
func (c *simClient) acquired(o op, l strategy.Lock, err error) strategy.Lock {
	switch {
	case err == nil && l == nil:
		c.r.fail(mFailNeither.New(c.name))
	case err == nil:
		c.unseen()
		c.r.rec.add(c.outcome(o, history.EvAcquired, nil))
		return l
	case errors.Is(err, strategy.ErrNotAcquired):
		c.r.rec.add(c.outcome(o, history.EvNotAcquired, nil))
	case c.isCrashed():
		// Whatever a crashed client's commands return (a cut connection)
		// is the crash, not the strategy's doing.
	default:
		c.r.fail(mFailUnexpected.New(c.name, "acquire", err.Error()))
	}
	return nil
}

// release gives l up. ErrNotHeld and crashes are recorded, not fatal.
func (c *simClient) release(l strategy.Lock) {
	err := c.releaseErr(l)
	if err != nil && !errors.Is(err, strategy.ErrNotHeld) && !c.isCrashed() {
		c.r.fail(mFailUnexpected.New(c.name, "release", err.Error()))
	}
}

// releaseErr gives l up and records what Release returned, whatever it is.
func (c *simClient) releaseErr(l strategy.Lock) error { return c.releaseWith(c.r.ctx, l) }

// releaseWith is releaseErr with ctx.
func (c *simClient) releaseWith(ctx context.Context, l strategy.Lock) error {
	var err error
	o := c.begin(0)
	c.r.guard(c.name, "Release", func() { err = l.Release(ctx) })
	c.r.rec.add(c.outcome(o, history.EvReleased, err))
	return err
}

// refresh extends l and records what Refresh returned. Any error is a
// refusal the holder hears of; only a nil error claims the lock.
func (c *simClient) refresh(l strategy.Refresher, ttl time.Duration) error {
	var err error
	o := c.begin(ttl)
	c.r.guard(c.name, "Refresh", func() { err = l.Refresh(c.r.ctx, ttl) })
	c.r.rec.add(c.outcome(o, history.EvRefreshed, err))
	return err
}

// tryAcquireErr makes one attempt and returns its lock or its error,
// recorded, whatever it is.
func (c *simClient) tryAcquireErr(ttl time.Duration) (strategy.Lock, error) {
	var l strategy.Lock
	var err error
	o := c.begin(ttl)
	c.r.guard(c.name, "TryAcquire", func() { l, err = c.s.TryAcquire(c.r.ctx, c.r.key, ttl) })
	if err == nil && l != nil {
		c.unseen()
	}
	c.recordAttempt(o, l, err)
	return l, err
}

// attempt makes one attempt with ctx and returns what TryAcquire returned.
func (c *simClient) attempt(ctx context.Context, key string, ttl time.Duration) (l strategy.Lock, err error) {
	c.r.guard(c.name, "TryAcquire", func() { l, err = c.s.TryAcquire(ctx, key, ttl) })
	return l, err
}

// op is a lock call under way: when it began, in the run's time, and the
// TTL it asked for (0 for a release).
type op struct{ call, ttl time.Duration }

// begin notes that a lock call asking for ttl begins now.
func (c *simClient) begin(ttl time.Duration) op { return op{c.r.rec.now(), ttl} }

// recordAttempt records what one attempt begun at o returned, whatever
// it is: the lock, a refusal, or an error.
func (c *simClient) recordAttempt(o op, l strategy.Lock, err error) {
	switch {
	case err == nil && l == nil:
		c.r.fail(mFailNeither.New(c.name))
	case errors.Is(err, strategy.ErrNotAcquired):
		c.r.rec.add(c.outcome(o, history.EvNotAcquired, nil))
	default:
		c.r.rec.add(c.outcome(o, history.EvAcquired, err))
	}
}

// outcome is the event of a lock call begun at o that returned err.
func (c *simClient) outcome(o op, kind history.EventKind, err error) history.Event {
	e := history.Event{Client: c.name, Kind: kind, Call: o.call, TTL: o.ttl}
	if err != nil {
		e.Err = c.r.errText(err)
	}
	return e
}

// unseen ends the run without a verdict when the client holds a lock
// while none of its commands has crossed its proxy: the lock talks to
// Redis some other way (another address, a pool made before the suite's),
// where the suite can neither see nor steer it, and whatever it found
// would be about nothing.
func (c *simClient) unseen() {
	if c.commandsSent() == 0 {
		c.r.fail(mFailUnseen.New(c.name))
	}
}

func (c *simClient) commandsSent() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent
}

// until retries every poll while the next attempt would start before the
// deadline. Unlike a context deadline it never cuts a command short, so a
// waiter's timeline ends on a whole attempt.
// Each failed attempt that is followed by another is recorded as one
// that was not acquired, as the last is by acquired, so that a timeline
// shows where each attempt ends.
type until struct {
	deadline time.Time
	poll     time.Duration
	c        *simClient
}

func (u until) Delay(int) (time.Duration, bool) {
	again := time.Now().Add(u.poll).Before(u.deadline)
	if again {
		u.c.r.rec.add(history.Event{Client: u.c.name, Kind: history.EvNotAcquired})
	}
	return u.poll, again
}

// settle waits until c has sent nothing for a quiet window (four polls,
// 20ms at least), or for the slack at most: what a lock does on its own
// goroutines right after an acquire returns (rueidislock takes the rest
// of its keys in the background) is done before the suite reads K.
func (c *simClient) settle() {
	quiet := max(20*time.Millisecond, 4*c.r.tm.Poll)
	deadline := time.Now().Add(c.r.tm.Slack)
	last, since := c.commandsSent(), time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(quiet / 4)
		if n := c.commandsSent(); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) >= quiet {
			return
		}
	}
}
