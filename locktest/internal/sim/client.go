package sim

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
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/wire"
	"github.com/locklab/locklab/strategy"
)

// errCrashed is what before returns for a command of a crashed client: the
// proxy never forwards it, and the client finds its connection cut.
var errCrashed = errors.New("locktest: client crashed")

// Client is one simulated process: its own strategy instance, built by the
// factory on a proxy of its own between it and Redis, and a clock that the
// suite controls. Every command it sends, on any connection and from any
// client library or language, crosses the proxy, where the suite records
// it and steers it (see before and after).
type Client struct {
	Name string
	r    *Env
	S    strategy.Strategy
	skew time.Duration
	info ClientInfo // what its factory is given
	links

	mu sync.Mutex // guards steering and faultState
	steering
	faultState

	// ownClock: the strategy reads a clock of its own (strategy.OwnClock),
	// so the proxy shifts the absolute times of a skewed client's
	// commands; shiftNoted once the timeline says so.
	ownClock   atomic.Bool
	shiftNoted atomic.Bool

	onCrash []func() // what the factory asked to run when the client crashes
	cleanup []func() // what the factory asked to run when the client is done
}

// links are a client's ways to Redis.
type links struct {
	proxy *wire.Proxy // to Redis, or to the first master of several
	pool  *redis.Pool // the redigo pool on proxy that the factory is given

	// On a topology of several masters (Config.Masters), one proxy and
	// pool for each, proxies[0] being proxy.
	proxies []*wire.Proxy
	pools   []*redis.Pool
	nodes   []string // the masters' names, for the timeline
	cut     []bool   // the masters the client cannot reach (a partition)
}

// steering is where a client is stopped: when it crashes or pauses,
// which of its commands may go. Client.mu guards it.
type steering struct {
	crashAfter int // crash once this many commands have returned; 0: never
	sent       int
	crashed    bool
	dying      bool // crashed by a scenario, not stopped at the end of the run
	closed     bool
	gate       func(ctx context.Context, cmd string) error // before each command; may block
	paused     chan struct{}                               // while non-nil, commands wait for it to close

	pauseAt        int           // pause once this many commands have returned; 0: never
	pauseAtOp      msg.Msg       // the boundary a pause is at, for its event
	inMultiAtPause bool          // the pause falls inside MULTI
	reached        chan struct{} // becomes arrive when the pause at pauseAt begins
	arrive         chan struct{} // closed when the paused client reaches its next command
	failing        bool          // every command fails without being sent
	inMulti        bool          // between MULTI and EXEC/DISCARD: commands are only queued
	callTimeout    time.Duration // each lock call's deadline, from its start, for the calls that take one (SetCallTimeout)
}

// DialClient makes a simulated client on e: a proxy of its own to each
// of nodes, and a redigo pool on it; build gives it its strategy.
func DialClient(r *Env, name string, skew time.Duration, nodes []NodeDial, lost func(error), noAuth func()) *Client {
	c := &Client{Name: name, r: r, skew: skew}
	secret := newSecret()
	c.info = ClientInfo{Name: name, Password: secret, Clock: clientClock{c}, Skew: skew, C: c}
	cl := &c.info
	for i, n := range nodes {
		var crashed func()
		if i == 0 {
			crashed = c.crashDone // once, not once per master
		}
		proxy, err := wire.Listen(wire.Config{Dial: n.Dial, Hooks: c.hooks(i), Crashed: crashed, Lost: lost, Secret: secret, NoAuth: noAuth})
		if err != nil {
			c.Close()
			r.Fail(mFailProxy.New(name, err.Error()))
		}
		addr := proxy.Addr()
		pool := &redis.Pool{
			MaxIdle: 4,
			DialContext: func(ctx context.Context) (redis.Conn, error) {
				return redis.DialContext(ctx, "tcp", addr, redis.DialPassword(secret))
			},
		}
		c.proxies, c.pools = append(c.proxies, proxy), append(c.pools, pool)
		c.nodes, c.cut = append(c.nodes, n.Name), append(c.cut, false)
		cl.Addrs, cl.Pools = append(cl.Addrs, addr), append(cl.Pools, pool)
	}
	c.proxy, c.pool = c.proxies[0], c.pools[0]
	cl.Addr, cl.Pool = cl.Addrs[0], cl.Pools[0]
	return c
}

// Build gives c its strategy, from factory.
func (c *Client) Build(factory func(ClientInfo) (strategy.Strategy, error)) {
	r, name := c.r, c.Name
	var s strategy.Strategy
	var err error
	r.Guard(name, "factory", func() { s, err = factory(c.info) })
	if err != nil {
		r.Fail(MsgFailFactory.New(name, err.Error()))
	}
	if s == nil {
		r.Fail(mFailNilStrategy.New(name))
	}
	c.S = s
	if o, ok := s.(strategy.OwnClock); ok && o.OwnClock() {
		c.ownClock.Store(true)
	}
	if k, ok := s.(strategy.Keyed); ok {
		r.declareStateKeys(k.Keys(r.Key))
	}
}

// NodeDial is how a client's proxy reaches one master of a topology.
type NodeDial struct {
	Name string
	Dial func(context.Context) (net.Conn, error)
}

// newSecret returns a fresh password for a client's proxies.
func newSecret() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on the systems Go supports
	}
	return hex.EncodeToString(b)
}

// ClientInfo is what a factory is given for one simulated client (the
// facade's Client).
type ClientInfo struct {
	Name     string
	Addr     string
	Password string
	Pool     strategy.Pool
	Clock    strategy.Clock
	Skew     time.Duration
	Addrs    []string
	Pools    []strategy.Pool

	C *Client
}

// AddCleanup registers f to run once the client's run is over.
func (c *Client) AddCleanup(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cleanup = append(c.cleanup, f)
}

// AddOnCrash registers f to run when the suite crashes the client.
func (c *Client) AddOnCrash(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onCrash = append(c.onCrash, f)
}

// clientClock is a client's clock: the real time plus the client's skew.
// Every reading is recorded.
type clientClock struct{ c *Client }

func (k clientClock) Now() time.Time {
	now := time.Now().Add(k.c.skew)
	r := k.c.r
	r.ClockReads.Add(1)
	at := ValueArg(r.stamp(now.UnixMilli()))
	m := mClock.New(at)
	switch {
	case k.c.skew > 0:
		m = mClockAhead.New(at, k.c.skew)
	case k.c.skew < 0:
		m = mClockBehind.New(at, -k.c.skew)
	}
	r.Rec.Add(history.Event{Client: k.c.Name, Kind: history.EvClock, Msg: &m})
	return now
}

func (c *Client) isCrashed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.crashed
}

// Crash kills the client, once: it sends nothing more, and what the
// factory registered with OnCrash runs.
func (c *Client) Crash(why msg.Msg) {
	c.mu.Lock()
	if c.crashed {
		c.mu.Unlock()
		return
	}
	c.dying = true
	c.mu.Unlock()
	c.r.Rec.Add(history.Event{Client: c.Name, Kind: history.EvCrash, Msg: &why})
	c.Kill()
}

// Kill marks the client crashed and says whether it was already: its
// proxy cuts every connection, once the reply it may be handing over is
// written, and refuses new ones, so that the client sends nothing more;
// then what the factory registered with OnCrash runs.
func (c *Client) Kill() (already bool) {
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
func (c *Client) crashDone() {
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

// Close ends the client for good: it is crashed if it was not, its pool
// and proxy are closed, and what the factory registered with Cleanup runs.
func (c *Client) Close() {
	c.Resume()
	c.Kill()
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
					c.r.Note(mCleanupPanicked.New(c.Name, fmt.Sprint(v)))
				}
			}()
			fs[i]()
		}()
	}
}

// Pause makes the client's commands wait until resume; pause models a
// process whose connection stalls with its work unfinished. Only its
// commands are held: its goroutines and timers (a lease deadline) keep
// running, so this is a stalled connection, not a whole-process pause.
func (c *Client) Pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == nil {
		c.paused = make(chan struct{})
	}
}

func (c *Client) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused != nil {
		close(c.paused)
		c.paused = nil
	}
}

// TryAcquire makes one attempt. It returns nil when the lock was not
// acquired; crashes and ErrNotAcquired are expected, other errors abort.
func (c *Client) TryAcquire(ttl time.Duration) strategy.Lock {
	var l strategy.Lock
	var err error
	o := c.Begin(ttl)
	c.r.Guard(c.Name, "TryAcquire", func() { l, err = c.S.TryAcquire(c.r.Ctx, c.r.Key, ttl) })
	return c.acquired(o, l, err)
}

// Acquire waits up to wait for the lock, retrying every Timing.Poll.
func (c *Client) Acquire(ttl, wait time.Duration) strategy.Lock {
	return c.acquireEvery(ttl, wait, c.r.Tm.Poll)
}

// acquireEvery is acquire with attempts poll apart.
func (c *Client) acquireEvery(ttl, wait, poll time.Duration) strategy.Lock {
	return c.AcquireWith(c.S, ttl, wait, poll)
}

// AcquireWith is acquireEvery through s, c's strategy or a wrapper of it.
func (c *Client) AcquireWith(s strategy.Strategy, ttl, wait, poll time.Duration) strategy.Lock {
	var l strategy.Lock
	var err error
	o := c.Begin(ttl)
	c.r.Guard(c.Name, "Acquire", func() {
		l, err = strategy.Acquire(c.r.Ctx, s, c.r.Key, ttl, until{time.Now().Add(wait), poll, c})
	})
	if err != nil && c.r.Ctx.Err() != nil {
		c.r.Fail(MsgFailWatchdog.New(c.r.Ctx.Err().Error()))
	}
	return c.acquired(o, l, err)
}

// acquired records what an acquire begun at o returned.
func (c *Client) acquired(o op, l strategy.Lock, err error) strategy.Lock {
	switch {
	case err == nil && l == nil:
		c.r.Fail(mFailNeither.New(c.Name))
	case err == nil:
		c.unseen()
		c.r.Rec.Add(granted(c.Outcome(o, history.EvAcquired, nil), l))
		return l
	case errors.Is(err, strategy.ErrNotAcquired):
		c.r.Rec.Add(c.Outcome(o, history.EvNotAcquired, nil))
	case c.isCrashed():
		// Whatever a crashed client's commands return (a cut connection)
		// is the crash, not the strategy's doing.
	default:
		c.r.Fail(mFailUnexpected.New(c.Name, "acquire", err.Error()))
	}
	return nil
}

// Release gives l up. ErrNotHeld and crashes are recorded, not fatal.
func (c *Client) Release(l strategy.Lock) {
	err := c.ReleaseErr(l)
	if err != nil && !errors.Is(err, strategy.ErrNotHeld) && !c.isCrashed() {
		c.r.Fail(mFailUnexpected.New(c.Name, "release", err.Error()))
	}
}

// ReleaseErr gives l up and records what Release returned, whatever it is.
func (c *Client) ReleaseErr(l strategy.Lock) error { return c.ReleaseWith(c.r.Ctx, l) }

// ReleaseWith is releaseErr with ctx.
func (c *Client) ReleaseWith(ctx context.Context, l strategy.Lock) error {
	var err error
	o := c.Begin(0)
	c.r.Guard(c.Name, "Release", func() { err = l.Release(ctx) })
	c.r.Rec.Add(c.Outcome(o, history.EvReleased, err))
	return err
}

// Refresh extends l and records what Refresh returned. Any error is a
// refusal the holder hears of; only a nil error claims the lock.
func (c *Client) Refresh(l strategy.Refresher, ttl time.Duration) error {
	var err error
	o := c.Begin(ttl)
	c.r.Guard(c.Name, "Refresh", func() { err = l.Refresh(c.r.Ctx, ttl) })
	c.r.Rec.Add(c.Outcome(o, history.EvRefreshed, err))
	return err
}

// TryAcquireErr makes one attempt and returns its lock or its error,
// recorded, whatever it is.
func (c *Client) TryAcquireErr(ttl time.Duration) (strategy.Lock, error) {
	var l strategy.Lock
	var err error
	o := c.Begin(ttl)
	c.r.Guard(c.Name, "TryAcquire", func() { l, err = c.S.TryAcquire(c.r.Ctx, c.r.Key, ttl) })
	if err == nil && l != nil {
		c.unseen()
	}
	c.RecordAttempt(o, l, err)
	return l, err
}

// Attempt makes one attempt with ctx and returns what TryAcquire returned.
func (c *Client) Attempt(ctx context.Context, key string, ttl time.Duration) (l strategy.Lock, err error) {
	c.r.Guard(c.Name, "TryAcquire", func() { l, err = c.S.TryAcquire(ctx, key, ttl) })
	return l, err
}

// op is a lock call under way: when it began, in the run's time, and the
// TTL it asked for (0 for a release).
type op struct{ call, ttl time.Duration }

// Begin notes that a lock call asking for ttl begins now.
func (c *Client) Begin(ttl time.Duration) op { return op{c.r.Rec.Begin(c.Name, ttl), ttl} }

// RecordAttempt records what one attempt begun at o returned, whatever
// it is: the lock, a refusal, or an error.
func (c *Client) RecordAttempt(o op, l strategy.Lock, err error) {
	switch {
	case err == nil && l == nil:
		c.r.Fail(mFailNeither.New(c.Name))
	case errors.Is(err, strategy.ErrNotAcquired):
		c.r.Rec.Add(c.Outcome(o, history.EvNotAcquired, nil))
	case err == nil:
		c.r.Rec.Add(granted(c.Outcome(o, history.EvAcquired, nil), l))
	default:
		c.r.Rec.Add(c.Outcome(o, history.EvAcquired, err))
	}
}

// granted is e, the event of a grant of l, with l's fencing token when
// it gives one (history.FenceOrder).
func granted(e history.Event, l strategy.Lock) history.Event {
	if token, ok := strategy.FencingToken(l); ok {
		e.Fence = &token
	}
	return e
}

// Outcome is the event of a lock call begun at o that returned err.
func (c *Client) Outcome(o op, kind history.EventKind, err error) history.Event {
	e := history.Event{Client: c.Name, Kind: kind, Call: o.call, TTL: o.ttl}
	if err != nil {
		e.Err = c.r.ErrText(err)
	}
	return e
}

// unseen ends the run without a verdict when the client holds a lock
// while none of its commands has crossed its proxy: the lock talks to
// Redis some other way (another address, a pool made before the suite's),
// where the suite can neither see nor steer it, and whatever it found
// would be about nothing.
func (c *Client) unseen() {
	if c.CommandsSent() == 0 {
		c.r.Fail(mFailUnseen.New(c.Name))
	}
}

func (c *Client) CommandsSent() int {
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
	c        *Client
}

func (u until) Delay(int) (time.Duration, bool) {
	again := time.Now().Add(u.poll).Before(u.deadline)
	if again {
		u.c.r.Rec.Add(history.Event{Client: u.c.Name, Kind: history.EvNotAcquired})
	}
	return u.poll, again
}

// Settle waits until c has sent nothing for a quiet window (four polls,
// 20ms at least), or for the slack at most: what a lock does on its own
// goroutines right after an acquire returns (rueidislock takes the rest
// of its keys in the background) is done before the suite reads K.
func (c *Client) Settle() {
	quiet := max(20*time.Millisecond, 4*c.r.Tm.Poll)
	deadline := time.Now().Add(c.r.Tm.Slack)
	last, since := c.CommandsSent(), time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(quiet / 4)
		if n := c.CommandsSent(); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) >= quiet {
			return
		}
	}
}

// The steering of a client, which the run and the scenarios set: when it
// crashes, where it pauses, which of its commands may go and whether
// they fail.

// SetGate makes gate run before each of the client's commands (but those
// that set up a connection); it may block. A nil gate lets them go.
func (c *Client) SetGate(gate func(ctx context.Context, cmd string) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gate = gate
}

// CrashAfterNext makes the client crash once k more of its commands have
// returned.
func (c *Client) CrashAfterNext(k int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.crashAfter = c.sent + k
}

// DisarmCrash drops a crash armed by CrashAfterNext that has not come.
func (c *Client) DisarmCrash() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.crashAfter = 0
}

// IsCrashed says whether the client has crashed.
func (c *Client) IsCrashed() bool { return c.isCrashed() }

// SetFailing makes every command of the client fail without being sent,
// or lets them go again.
func (c *Client) SetFailing(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failing = on
}

// PauseAtBoundary arms a pause of the client at the boundary at, k
// commands from now: at once (k = 0), before its next command, or once k
// more have returned. The channel it returns closes when the client
// reaches the pause.
func (c *Client) PauseAtBoundary(k int, at msg.Msg) <-chan struct{} {
	reached := make(chan struct{})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pauseAtOp, c.inMultiAtPause = at, false
	if k == 0 {
		// A pause already on stays the one its commands wait on.
		if c.paused == nil {
			c.paused = make(chan struct{})
		}
		c.arrive = reached
	} else {
		c.pauseAt, c.reached = c.sent+k, reached
	}
	return reached
}

// DropPause drops a pause armed by PauseAtBoundary that the client has
// not reached.
func (c *Client) DropPause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pauseAt, c.reached, c.arrive = 0, nil, nil
}

// A read-write lock's and a semaphore's holds, in modes.

// The clients of a read-write lock or a semaphore take it in a mode (a
// reader's shared hold, a writer's exclusive one, some permits), and may
// hold it several times at once: each grant opens a hold of its own in
// the history (history.Event.Hold), which its release ends, so that the
// judge counts readers and permits hold by hold.

// Held is one hold of a lock of a kind: the lock, and its hold in the
// history.
type Held struct {
	L  strategy.Lock
	id int
}

// TryMode makes one attempt in mode (n permits, for a semaphore) and
// records it with its mode, its permits and, when granted, a new hold.
// Refusals and crashes give no hold; other errors abort.
func (c *Client) TryMode(mode history.Mode, n int, ttl time.Duration) (Held, bool) {
	h, err := c.TryModeErr(mode, n, ttl)
	switch {
	case err == nil:
		return h, true
	case errors.Is(err, strategy.ErrNotAcquired), c.isCrashed():
	default:
		c.r.Fail(mFailUnexpected.New(c.Name, "acquire", err.Error()))
	}
	return Held{}, false
}

// SetCallTimeout gives each later call of TryModeErr, ReleaseHeldErr
// and RefreshHeldErr a deadline d after it begins, as a caller that
// waits no longer does; 0: none.
func (c *Client) SetCallTimeout(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.callTimeout = d
}

// callContext is the context of a lock call that begins now.
func (c *Client) callContext() (context.Context, context.CancelFunc) {
	c.mu.Lock()
	d := c.callTimeout
	c.mu.Unlock()
	if d <= 0 {
		return c.r.Ctx, func() {}
	}
	return context.WithTimeout(c.r.Ctx, d)
}

// TryModeErr is TryMode that returns what the attempt returned, recorded,
// whatever it is: ErrNotAcquired for a refusal.
func (c *Client) TryModeErr(mode history.Mode, n int, ttl time.Duration) (Held, error) {
	var l strategy.Lock
	var err error
	o := c.Begin(ttl)
	ctx, cancel := c.callContext()
	defer cancel()
	c.r.Guard(c.Name, "TryAcquire", func() {
		switch {
		case mode == history.Shared:
			l, err = c.S.(strategy.Shared).TryAcquireShared(ctx, c.r.Key, ttl)
		case n > 1:
			l, err = c.S.(strategy.Weighted).TryAcquireN(ctx, c.r.Key, n, ttl)
		default:
			l, err = c.S.TryAcquire(ctx, c.r.Key, ttl)
		}
	})
	e := c.Outcome(o, history.EvAcquired, err)
	if mode == history.Exclusive && c.ReadWrite() {
		mode = history.Write
	}
	e.Mode = mode
	if mode == history.Permit {
		e.Permits = n
	}
	switch {
	case err == nil && l == nil:
		c.r.Fail(mFailNeither.New(c.Name))
	case err == nil:
		c.unseen()
		e.Hold = int(c.r.holdIDs.Add(1))
		said := acquiredIn(mode, n)
		e.Msg = &said
		c.r.Rec.Add(granted(e, l))
		return Held{l, e.Hold}, nil
	case errors.Is(err, strategy.ErrNotAcquired):
		e.Kind, e.Err = history.EvNotAcquired, ""
		c.r.Rec.Add(e)
	case c.isCrashed():
		// What a crashed client's commands return is the crash's doing.
	default:
		c.r.Rec.Add(e)
	}
	return Held{}, err
}

// ReleaseHeld gives h up and records it as the end of h's hold.
// ErrNotHeld and crashes are recorded, not fatal.
func (c *Client) ReleaseHeld(h Held) {
	err := c.ReleaseHeldErr(h)
	if err != nil && !errors.Is(err, strategy.ErrNotHeld) && !c.isCrashed() {
		c.r.Fail(mFailUnexpected.New(c.Name, "release", err.Error()))
	}
}

// ReleaseHeldErr gives h up, records it as the end of h's hold, and
// returns what Release returned.
func (c *Client) ReleaseHeldErr(h Held) error {
	var err error
	o := c.Begin(0)
	ctx, cancel := c.callContext()
	defer cancel()
	c.r.Guard(c.Name, "Release", func() { err = h.L.Release(ctx) })
	e := c.Outcome(o, history.EvReleased, err)
	e.Hold = h.id
	c.r.Rec.Add(e)
	return err
}

// RefreshHeldErr extends h, whose lock is a strategy.Refresher, to ttl,
// records it as h's refresh, and returns what Refresh returned.
func (c *Client) RefreshHeldErr(h Held, ttl time.Duration) error {
	var err error
	o := c.Begin(ttl)
	ctx, cancel := c.callContext()
	defer cancel()
	c.r.Guard(c.Name, "Refresh", func() { err = h.L.(strategy.Refresher).Refresh(ctx, ttl) })
	e := c.Outcome(o, history.EvRefreshed, err)
	e.Hold = h.id
	c.r.Rec.Add(e)
	return err
}

// acquiredIn is what a grant in mode of n permits says in a timeline, so
// that a diagram shows who reads, who writes and how many permits each
// holds.
func acquiredIn(mode history.Mode, n int) msg.Msg {
	switch mode {
	case history.Shared:
		return mAcquiredRead.New()
	case history.Write:
		return mAcquiredWrite.New()
	case history.Permit:
		return mAcquiredPermits.New(max(n, 1))
	}
	m, _ := history.Said(history.EvAcquired)
	return m
}

// ReadWrite says whether c's lock is a read-write lock; permits how many
// permits its semaphore has, 0 when it is not one.
func (c *Client) ReadWrite() bool { return strategy.KindOf(c.S) == strategy.ReadWrite }

func (c *Client) Permits() int {
	if s, ok := c.S.(strategy.Counting); ok {
		return s.Permits()
	}
	return 0
}

// What the properties of the kinds share.
var (
	MsgNotReadWrite = msg.Define("kinds.not-read-write", nil,
		"the lock is not a read-write lock (strategy.Shared)")
	MsgNotSemaphore = msg.Define("kinds.not-semaphore", nil,
		"the lock is not a semaphore (strategy.Counting)")
	mAcquiredRead    = msg.Define("event.acquired-read", nil, "read lock acquired")
	mAcquiredWrite   = msg.Define("event.acquired-write", nil, "write lock acquired")
	mAcquiredPermits = msg.Define("event.acquired-permits", msg.K(msg.Count), "{0} {0|permit|permits} acquired")
)
