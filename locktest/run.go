package locktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest/internal/wire"
	"github.com/locklab/locklab/strategy"
)

// recorder keeps a scenario's timeline, and what it needs to name the
// values in it when the timeline is taken: who wrote which value at the
// key, and which scripts' digests were seen.
type recorder struct {
	mu      sync.Mutex
	start   time.Time
	events  []Event
	writers map[string][]string // a value written at the key: the clients that wrote it, in order
	digests map[string]bool
}

// wrote notes that client wrote value at the key: a token if it is the
// only one that ever does.
func (r *recorder) wrote(client, value string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writers == nil {
		r.writers = map[string][]string{}
	}
	if !slices.Contains(r.writers[value], client) {
		r.writers[value] = append(r.writers[value], client)
	}
}

// digest notes that d is a script's digest.
func (r *recorder) digest(d string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.digests == nil {
		r.digests = map[string]bool{}
	}
	r.digests[d] = true
}

// timeline returns the events so far with their values named: a text that
// exactly one client wrote at the key becomes its token, one that is a
// known digest a digest; and the tokens of each client, in the order it
// wrote them.
func (r *recorder) timeline() ([]Event, map[string][]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	owner := map[string]string{}
	var tokens map[string][]string
	for _, e := range r.events {
		for _, a := range e.Args {
			w := r.writers[a.Text]
			if a.Kind != ArgText || len(w) != 1 || w[0] != e.Client || owner[a.Text] != "" {
				continue
			}
			owner[a.Text] = e.Client
			if tokens == nil {
				tokens = map[string][]string{}
			}
			tokens[e.Client] = append(tokens[e.Client], a.Text)
		}
	}
	// A token written outside the timeline (a stale lock's) is still its
	// writer's.
	for _, v := range slices.Sorted(maps.Keys(r.writers)) {
		if w := r.writers[v]; len(w) == 1 && owner[v] == "" {
			owner[v] = w[0]
			if tokens == nil {
				tokens = map[string][]string{}
			}
			tokens[w[0]] = append(tokens[w[0]], v)
		}
	}
	name := func(args []Arg) []Arg {
		if args == nil {
			return nil
		}
		out := slices.Clone(args)
		for i, a := range out {
			if a.Kind != ArgText {
				continue
			}
			if c := owner[a.Text]; c != "" {
				out[i] = Arg{Kind: ArgToken, Text: a.Text, Client: c}
			} else if r.digests[a.Text] {
				out[i] = Arg{Kind: ArgDigest, Text: a.Text}
			}
		}
		return out
	}
	out := make([]Event, len(r.events))
	for i, e := range r.events {
		e.Args, e.ReplyArgs, e.TextArgs = name(e.Args), name(e.ReplyArgs), name(e.TextArgs)
		out[i] = e
	}
	return out, tokens
}

func (r *recorder) add(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.At = time.Since(r.start)
	r.events = append(r.events, e)
}

// detector watches the critical section: who is inside, and who entered
// while someone else was.
type detector struct {
	rec      *recorder
	mu       sync.Mutex
	inside   []string
	overlaps []string
}

func (d *detector) enter(who string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rec.add(Event{Client: who, Kind: EvEnter, Text: "enters the critical section"})
	if len(d.inside) > 0 {
		args := []Arg{{Kind: ArgClient, Text: who}, {Kind: ArgText, Text: " entered while "}}
		for i, c := range d.inside {
			if i > 0 {
				args = append(args, Arg{Kind: ArgText, Text: ", "})
			}
			args = append(args, Arg{Kind: ArgClient, Text: c})
		}
		args = append(args, Arg{Kind: ArgText, Text: " was inside"})
		o := joinArgs(args, "")
		d.overlaps = append(d.overlaps, o)
		d.rec.add(Event{Client: who, Kind: EvOverlap, Text: o, TextArgs: args})
	}
	d.inside = append(d.inside, who)
}

func (d *detector) leave(who string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, c := range d.inside {
		if c == who {
			d.inside = append(d.inside[:i], d.inside[i+1:]...)
			d.rec.add(Event{Client: who, Kind: EvLeave, Text: "leaves the critical section"})
			return
		}
	}
}

// firstOverlap returns the first overlap seen, if any.
func (d *detector) firstOverlap() (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.overlaps) == 0 {
		return "", false
	}
	return d.overlaps[0], true
}

// run is one execution of one scenario on one key.
type run struct {
	ctx        context.Context
	pool       strategy.Pool                           // the suite's own connections, outside every client
	dial       func(context.Context) (net.Conn, error) // to Redis, for the clients' proxies
	lost       func(error)                             // told when the server cuts a client's connection; may be nil
	factory    Factory
	key        string
	tm         Timing
	t0         int64 // Unix ms at the start, for reading timestamps
	rec        *recorder
	det        *detector
	clockReads atomic.Int64
	perms      *permissions // the NOPERMs met, the clients' and the suite's own
	mu         sync.Mutex
	clients    []*client

	// A topology scenario's servers (see topology.go): the masters the
	// clients' proxies dial, when they are not dial, and what to stop at
	// the end of the run.
	masters      int           // Config.Masters
	restartDelay time.Duration // Config.RestartDelay
	nodes        []nodeDial
	atEnd        []func()
}

// nodeDial is how a client's proxy reaches one master of a topology.
type nodeDial struct {
	name string
	dial func(context.Context) (net.Conn, error)
}

// abort stops a scenario that cannot reach a verdict.
type abort struct{ err error }

func (r *run) fail(format string, args ...any) {
	panic(abort{fmt.Errorf(format, args...)})
}

func (r *run) note(format string, args ...any) {
	r.rec.add(Event{Kind: EvNote, Text: fmt.Sprintf(format, args...)})
}

// stamp types a Unix millisecond time: its distance from the run's start.
func (r *run) stamp(ms int64) Arg {
	return Arg{Kind: ArgTime, Text: strconv.FormatInt(ms, 10), Ms: ms - r.t0}
}

// arg types a command argument or a value of a reply: the key, a number
// that reads as a time near the run's start, another integer, a digest
// already seen, or text. Which texts are tokens is known only once the
// timeline is taken (recorder.timeline).
func (r *run) arg(s string) Arg {
	if s == r.key {
		return Arg{Kind: ArgKey, Text: s}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n-r.t0 < 24*3600*1000 && r.t0-n < 24*3600*1000 {
			return r.stamp(n)
		}
		return Arg{Kind: ArgNumber, Text: s}
	}
	return Arg{Kind: ArgText, Text: s}
}

// errText renders an error for the timeline, with the key as K, quoted or
// not.
func (r *run) errText(err error) string {
	s := strings.ReplaceAll(err.Error(), strconv.Quote(r.key), "K")
	return strings.ReplaceAll(s, r.key, "K")
}

// counterexample returns res with the run's timeline, its key, its start
// and the tokens each client wrote.
func (r *run) counterexample(res Result) Result {
	res.Timeline, res.Tokens = r.rec.timeline()
	res.Key, res.Start = r.key, time.UnixMilli(r.t0)
	return res
}

// newClient builds a simulated client: a proxy of its own to Redis, a
// redigo pool on it, and its own strategy instance from the factory.
func (r *run) newClient(name string, skew time.Duration) *client {
	c := &client{name: name, r: r, skew: skew}
	nodes := r.nodes
	if len(nodes) == 0 {
		nodes = []nodeDial{{dial: r.dial}}
	}
	secret := newSecret()
	cl := Client{Name: name, Password: secret, Clock: clientClock{c}, Skew: skew, c: c}
	for i, n := range nodes {
		var crashed func()
		if i == 0 {
			crashed = c.crashDone // once, not once per master
		}
		proxy, err := wire.Listen(wire.Config{Dial: n.dial, Hooks: c.hooks(i), Crashed: crashed, Lost: r.lost, Secret: secret})
		if err != nil {
			c.close()
			r.fail("%s: the suite's proxy: %v", name, err)
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
	r.mu.Lock()
	r.clients = append(r.clients, c)
	r.mu.Unlock()
	var s strategy.Strategy
	var err error
	r.guard(name, "factory", func() { s, err = r.factory(cl) })
	if err != nil {
		r.fail("factory: %v", err)
	}
	if s == nil {
		r.fail("factory returned a nil Strategy and no error")
	}
	c.s = s
	return c
}

// guard runs a call into the strategy, turning a panic into an abort.
func (r *run) guard(who, what string, f func()) {
	defer func() {
		if v := recover(); v != nil {
			if a, ok := v.(abort); ok {
				panic(a)
			}
			panic(abort{fmt.Errorf("%s: %s panicked: %v\n%s", who, what, v, debug.Stack())})
		}
	}()
	f()
}

// tryAcquire makes one attempt. It returns nil when the lock was not
// acquired; crashes and ErrNotAcquired are expected, other errors abort.
func (c *client) tryAcquire(ttl time.Duration) strategy.Lock {
	var l strategy.Lock
	var err error
	c.r.guard(c.name, "TryAcquire", func() { l, err = c.s.TryAcquire(c.r.ctx, c.r.key, ttl) })
	return c.acquired(l, err)
}

// acquire waits up to wait for the lock, retrying every Timing.Poll.
func (c *client) acquire(ttl, wait time.Duration) strategy.Lock {
	return c.acquireEvery(ttl, wait, c.r.tm.Poll)
}

// acquireEvery is acquire with attempts poll apart.
func (c *client) acquireEvery(ttl, wait, poll time.Duration) strategy.Lock {
	var l strategy.Lock
	var err error
	c.r.guard(c.name, "Acquire", func() {
		l, err = strategy.Acquire(c.r.ctx, c.s, c.r.key, ttl, until{time.Now().Add(wait), poll, c})
	})
	if err != nil && c.r.ctx.Err() != nil {
		c.r.fail("watchdog: %v", c.r.ctx.Err())
	}
	return c.acquired(l, err)
}

func (c *client) acquired(l strategy.Lock, err error) strategy.Lock {
	switch {
	case err == nil && l == nil:
		c.r.fail("%s: TryAcquire returned neither a lock nor an error", c.name)
	case err == nil:
		c.r.rec.add(Event{Client: c.name, Kind: EvAcquired, Reply: "lock acquired"})
		return l
	case errors.Is(err, strategy.ErrNotAcquired):
		c.r.rec.add(Event{Client: c.name, Kind: EvAcquired, Reply: "not acquired"})
	case c.isCrashed():
		// Whatever a crashed client's commands return (a cut connection)
		// is the crash, not the strategy's doing.
	default:
		c.r.fail("%s: acquire: unexpected error: %v", c.name, err)
	}
	return nil
}

// release gives l up. ErrNotHeld and crashes are recorded, not fatal.
func (c *client) release(l strategy.Lock) {
	err := c.releaseErr(l)
	if err != nil && !errors.Is(err, strategy.ErrNotHeld) && !c.isCrashed() {
		c.r.fail("%s: release: unexpected error: %v", c.name, err)
	}
}

// releaseErr gives l up and records what Release returned, whatever it is.
func (c *client) releaseErr(l strategy.Lock) error {
	var err error
	c.r.guard(c.name, "Release", func() { err = l.Release(c.r.ctx) })
	c.r.rec.add(c.outcome(EvReleased, "released", err))
	return err
}

// refresh extends l and records what Refresh returned. Any error is a
// refusal the holder hears of; only a nil error claims the lock.
func (c *client) refresh(l strategy.Refresher, ttl time.Duration) error {
	var err error
	c.r.guard(c.name, "Refresh", func() { err = l.Refresh(c.r.ctx, ttl) })
	c.r.rec.add(c.outcome(EvRefreshed, "refreshed", err))
	return err
}

func (c *client) outcome(kind EventKind, ok string, err error) Event {
	e := Event{Client: c.name, Kind: kind, Reply: ok}
	if err != nil {
		e.Reply, e.Err = "", c.r.errText(err)
	}
	return e
}

// shutdown stops every client, so that nothing they started (renewals)
// outlives the run: their connections are cut, their proxies closed, and
// what their factories registered with Client.Cleanup runs.
func (r *run) shutdown() {
	r.mu.Lock()
	cs := append([]*client(nil), r.clients...)
	r.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
	r.mu.Lock()
	fs := r.atEnd
	r.atEnd = nil
	r.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
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
	c        *client
}

func (u until) Delay(int) (time.Duration, bool) {
	again := time.Now().Add(u.poll).Before(u.deadline)
	if again {
		u.c.r.rec.add(Event{Client: u.c.name, Kind: EvAcquired, Reply: "not acquired"})
	}
	return u.poll, again
}

// newSecret returns a fresh password for a client's proxies.
func newSecret() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on the systems Go supports
	}
	return hex.EncodeToString(b)
}
