package locktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest/internal/judge"
	"github.com/locklab/locklab/locktest/internal/wire"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
)

// names of the simulated clients.
var names = []string{"A", "B", "C", "D", "E", "F", "G", "H"}

// run is one execution of one scenario on one key.
type run struct {
	ctx        context.Context
	pool       strategy.Pool                           // the suite's own connections, outside every client
	dial       func(context.Context) (net.Conn, error) // to Redis, for the clients' proxies
	lost       func(error)                             // told when the server cuts a client's connection; may be nil
	disturb    func(error)                             // told of a disturbance the scenario found (slow.go); may be nil
	factory    func(clientInfo) (strategy.Strategy, error)
	key        string
	tm         timing
	t0         int64 // Unix ms at the start, for reading timestamps
	rec        *recorder
	det        *detector
	clockReads atomic.Int64
	holdIDs    atomic.Int64 // the last hold a kind's grant opened (kinds.go)
	perms      *permissions // the NOPERMs met, the clients' and the suite's own
	noLogin    *atomic.Bool // set when a client's proxy answered NOAUTH
	mu         sync.Mutex
	clients    []*simClient
	// stateKeys are the keys the lock keeps its state under when they are
	// not K (strategy.Keyed), from the first client's strategy; nil: K.
	stateKeys []string
	keysRead  bool // the suite has read the lock's keys (lockKeys)
	// lenientReplay: a schedule that diverges from its prefix goes on
	// instead of failing (see interleavings).
	lenientReplay bool

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

// setting is what a run takes of the check's Config.
type setting struct {
	dial         func(context.Context) (net.Conn, error) // to Redis, for the clients' proxies
	factory      func(clientInfo) (strategy.Strategy, error)
	perms        *permissions // the NOPERMs met, the clients' and the suite's own
	noLogin      *atomic.Bool // set when a client's proxy answered NOAUTH
	tm           timing
	masters      int
	restartDelay time.Duration
}

// newRun starts a run on key, with the suite's own connections from pool:
// its timeline, starting now, and its detector.
func newRun(ctx context.Context, s setting, pool *redis.Pool, key string) *run {
	now := time.Now()
	r := &run{ctx: ctx, pool: pool, dial: s.dial, factory: s.factory, key: key, perms: s.perms, noLogin: s.noLogin,
		tm: s.tm.withDefaults(), t0: now.UnixMilli(), rec: &recorder{start: now},
		masters: s.masters, restartDelay: s.restartDelay}
	r.det = &detector{rec: r.rec}
	return r
}

// fail aborts the run without a verdict, saying why with m.
func (r *run) fail(m Message) {
	panic(abort{failure(m)})
}

func (r *run) note(m Message) {
	r.rec.add(history.Event{Kind: history.EvNote, Msg: &m})
}

// stamp types a Unix millisecond time: its distance from the run's start.
func (r *run) stamp(ms int64) history.Arg {
	return history.Arg{Kind: history.ArgTime, Text: strconv.FormatInt(ms, 10), Ms: ms - r.t0}
}

// arg types a command argument or a value of a reply: the key, a number
// that reads as a time near the run's start (Unix milliseconds, or
// seconds with a fraction), another integer, or text. Which texts are tokens is known only once the
// timeline is taken (recorder.timeline).
func (r *run) arg(s string) history.Arg {
	if s == r.key {
		return history.Arg{Kind: history.ArgKey, Text: s}
	}
	if r.isStateKey(s) {
		return history.Arg{Kind: history.ArgLockKey, Text: strings.ReplaceAll(s, r.key, "K")}
	}
	if !printable(s) {
		// A random binary value (rueidislock's): its bytes in hex, the
		// same text for the same value, so that it is still a token.
		return history.Arg{Kind: history.ArgText, Text: "0x" + hex.EncodeToString([]byte(s))}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n-r.t0 < 24*3600*1000 && r.t0-n < 24*3600*1000 {
			return r.stamp(n)
		}
		return history.Arg{Kind: history.ArgNumber, Text: s}
	}
	// Unix seconds with a fraction, as PHP's microtime(true) gives them
	// (Symfony's RedisStore sends one with every script).
	if i := strings.IndexByte(s, '.'); i == 10 && len(s) > 11 && strings.Trim(s, "0123456789.") == "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			if n := int64(math.Round(f * 1000)); n-r.t0 < 24*3600*1000 && r.t0-n < 24*3600*1000 {
				return history.Arg{Kind: history.ArgTime, Text: s, Ms: n - r.t0}
			}
		}
	}
	return history.Arg{Kind: history.ArgText, Text: s}
}

// printable says whether s is text a timeline can show as it is: valid
// UTF-8 without control characters but white space.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if unicode.IsControl(c) && !unicode.IsSpace(c) {
			return false
		}
	}
	return true
}

// errText renders an error for the timeline, with the key as K, quoted or
// not.
func (r *run) errText(err error) string {
	s := strings.ReplaceAll(err.Error(), strconv.Quote(r.key), "K")
	return strings.ReplaceAll(s, r.key, "K")
}

// counterexample returns res with the run's timeline, its key, its start
// and the tokens each client wrote.
func (r *run) counterexample(res outcome) outcome {
	res.Timeline, res.Tokens = r.rec.timeline()
	res.Key, res.Start = r.key, time.UnixMilli(r.t0)
	return res
}

// A scenario does not decide: holds, breaks, notApplicable and the
// claims below record what it found as claims in the history
// (history.Check), and the judge gives the verdict from the history
// alone (decide).

// holds claims that the scenario found nothing broken: m says what it
// tried.
func (r *run) holds(m Message) outcome {
	r.claim(history.Check{Rule: history.Kept, Reason: &m})
	return r.decide()
}

// breaks claims a break the scenario observed, which m explains; the
// events before it are its evidence.
func (r *run) breaks(m Message) outcome {
	return r.breaksRule(history.Observed, m)
}

// breaksRule claims that rule was broken, which m explains: the judge
// finds the break in the events, or gives no verdict.
func (r *run) breaksRule(rule history.Rule, m Message) outcome {
	return r.breaksRuleOf(rule, 0, m)
}

// breaksRuleOf is breaksRule for a semaphore of permits.
func (r *run) breaksRuleOf(rule history.Rule, permits int, m Message) outcome {
	r.claim(history.Check{Rule: rule, Broken: true, Reason: &m, Permits: permits})
	return r.decide()
}

// breaksUnfreed claims that the lock, which had to be free by since,
// was granted to nobody while waiter tried until since plus within,
// which m explains.
func (r *run) breaksUnfreed(waiter string, since, within time.Duration, m Message) outcome {
	r.claim(history.Check{Rule: history.Unfreed, Broken: true, Reason: &m, Client: waiter, Since: since, Within: within})
	return r.decide()
}

// breaksFreeRefused claims that waiter's last attempt was refused a lock
// that nobody held, which m explains.
func (r *run) breaksFreeRefused(waiter string, m Message) outcome {
	return r.breaksFreeRefusedOf(waiter, 0, m)
}

// breaksFreeRefusedOf is breaksFreeRefused for a semaphore of permits.
func (r *run) breaksFreeRefusedOf(waiter string, permits int, m Message) outcome {
	r.claim(history.Check{Rule: history.FreeRefused, Broken: true, Reason: &m, Client: waiter, Permits: permits})
	return r.decide()
}

func (r *run) notApplicable(m Message) outcome {
	r.claim(history.Check{Rule: history.Unstageable, Reason: &m})
	return r.decide()
}

// promise claims that rule holds over the whole run; if the judge finds
// it broken, the verdict's reason is reason with what it found added as
// its last argument (msg.Def.Lacking).
func (r *run) promise(rule history.Rule, reason Message) {
	r.claim(history.Check{Rule: rule, Reason: &reason})
}

// promisePermits is promise of OneHolder for a semaphore of permits.
func (r *run) promisePermits(permits int, reason Message) {
	r.claim(history.Check{Rule: history.OneHolder, Reason: &reason, Permits: permits})
}

func (r *run) claim(c history.Check) {
	r.rec.add(history.Event{Kind: history.EvCheck, Check: &c})
}

// decide stops the run's clients and gives the judge's verdict on its
// history; a break carries the history as its counterexample.
func (r *run) decide() outcome {
	r.shutdown()
	res := r.counterexample(outcome{})
	d, err := judge.Mutex(res.Timeline)
	if err != nil {
		res.Err = err
		return res
	}
	res.Verdict, res.Message = d.Verdict, d.Reason
	if res.Verdict != judge.Breaks {
		res.Timeline, res.Key, res.Start, res.Tokens = nil, "", time.Time{}, nil
	}
	return res
}

// newClient builds a simulated client: a proxy of its own to Redis, a
// redigo pool on it, and its own strategy instance from the factory.
func (r *run) newClient(name string, skew time.Duration) *simClient {
	c := &simClient{name: name, r: r, skew: skew}
	nodes := r.nodes
	if len(nodes) == 0 {
		nodes = []nodeDial{{dial: r.dial}}
	}
	secret := newSecret()
	cl := clientInfo{Name: name, Password: secret, Clock: clientClock{c}, Skew: skew, c: c}
	for i, n := range nodes {
		var crashed func()
		if i == 0 {
			crashed = c.crashDone // once, not once per master
		}
		proxy, err := wire.Listen(wire.Config{Dial: n.dial, Hooks: c.hooks(i), Crashed: crashed, Lost: r.lost, Secret: secret, NoAuth: r.sawNoAuth})
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
	r.mu.Lock()
	r.clients = append(r.clients, c)
	r.mu.Unlock()
	var s strategy.Strategy
	var err error
	r.guard(name, "factory", func() { s, err = r.factory(cl) })
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
		r.mu.Lock()
		if r.stateKeys == nil {
			r.stateKeys = slices.Clone(k.Keys(r.key))
		}
		r.mu.Unlock()
	}
	return c
}

// lockKeys are the keys the suite reads for the lock: K, or those its
// strategy keeps its state under (strategy.Keyed). The first read of keys
// other than K notes them in the timeline.
func (r *run) lockKeys() []string {
	r.mu.Lock()
	keys, noted := r.stateKeys, r.keysRead
	r.keysRead = true
	r.mu.Unlock()
	if len(keys) == 0 {
		return []string{r.key}
	}
	if !noted {
		r.note(mLockKeys.New(r.keyNames(keys)))
	}
	return keys
}

// keyNames writes keys as the timeline does: the run's key as K.
func (r *run) keyNames(keys []string) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = strings.ReplaceAll(k, r.key, "K")
	}
	return strings.Join(names, ", ")
}

// isStateKey says whether s is one of the keys the lock keeps its state
// under, other than K.
func (r *run) isStateKey(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.stateKeys, s)
}

// combinedPTTL is what the PTTLs of a lock's keys say of the lock: -2
// when none exists, -1 when one has no expiry, else the longest.
func combinedPTTL(ms []int64) int64 {
	out := int64(-2)
	for _, m := range ms {
		switch {
		case m == -1:
			return -1
		case m > out:
			out = m
		}
	}
	return out
}

// pttlOf reads the PTTL of each of keys on c, combined.
func pttlOf(c redis.Conn, keys []string) (int64, error) {
	var ms []int64
	for _, k := range keys {
		m, err := redis.Int64(c.Do("PTTL", k))
		if err != nil {
			return 0, err
		}
		ms = append(ms, m)
	}
	return combinedPTTL(ms), nil
}

// sawNoAuth notes that a client's proxy answered NOAUTH: the client did
// not log in with its Password.
func (r *run) sawNoAuth() {
	if r.noLogin != nil {
		r.noLogin.Store(true)
	}
}

// guard runs a call into the strategy, turning a panic into an abort.
func (r *run) guard(who, what string, f func()) {
	defer func() {
		if v := recover(); v != nil {
			if a, ok := v.(abort); ok {
				panic(a)
			}
			panic(abort{&failed{m: mFailPanicked.New(who, what, fmt.Sprint(v)), detail: "\n" + string(debug.Stack())}})
		}
	}()
	f()
}

// shutdown stops every client, so that nothing they started (renewals)
// outlives the run: their connections are cut, their proxies closed, and
// what their factories registered with Client.Cleanup runs.
func (r *run) shutdown() {
	r.mu.Lock()
	cs := append([]*simClient(nil), r.clients...)
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

// redis runs f on a connection of the suite's own, outside every client.
func (r *run) redis(f func(redis.Conn) error) {
	c, err := r.pool.GetContext(r.ctx)
	if err != nil {
		r.fail(mFailSuiteConn.New(err.Error()))
	}
	defer c.Close()
	if err := f(c); err != nil {
		r.fail(mFailSuiteCommand.New(err.Error()))
	}
}

// exists says whether key exists, read on the suite's own connection.
func (r *run) exists(key string) bool {
	var n int
	r.redis(func(conn redis.Conn) error {
		var err error
		n, err = redis.Int(conn.Do("EXISTS", key))
		return err
	})
	return n > 0
}

// keyExists says whether the lock's key exists (any of its keys, for a
// lock kept under keys of its own), read on the suite's own connection; a
// lock may keep its state elsewhere, so only a key that existed and then
// vanished says something.
func (r *run) keyExists() bool {
	for _, k := range r.lockKeys() {
		if r.exists(k) {
			return true
		}
	}
	return false
}

// restore puts the stale lock at the run's key.
func (r *run) restore(s staleLock) {
	r.redis(func(c redis.Conn) error {
		if _, err := c.Do("DEL", r.key); err != nil {
			return err
		}
		for _, p := range s.parts {
			k := strings.ReplaceAll(p.key, staleKeyMark, r.key)
			if _, err := c.Do("DEL", k); err != nil {
				return err
			}
			if _, err := c.Do("RESTORE", k, p.pttl, p.payload); err != nil {
				return err
			}
		}
		return nil
	})
	if s.exists {
		// H wrote the value, in the run that made the stale lock.
		v := r.arg(s.value)
		if v.Kind == history.ArgText {
			r.rec.wrote("H", s.value)
		}
		r.note(mStaleHolds.New(valueArg(v), r.tm.Short))
	} else {
		r.note(mStaleGone.New(r.tm.Short))
	}
}

// pttl reads how long the run's key has left, as the suite sees it: 0 when
// the key is gone or does not expire (the lock may live elsewhere).
func (r *run) pttl() time.Duration {
	return time.Duration(max(r.readPTTL(), 0)) * time.Millisecond
}

// readPTTL reads PTTL K on the suite's own connection and notes it: -1 for
// a key without expiry, -2 for none.
func (r *run) readPTTL() int64 {
	var ms int64
	keys := r.lockKeys()
	r.redis(func(c redis.Conn) error {
		var err error
		ms, err = pttlOf(c, keys)
		return err
	})
	left := history.Arg{Kind: history.ArgNumber, Text: strconv.FormatInt(ms, 10)}
	if ms >= 0 {
		left.Kind = history.ArgLeft
	}
	r.note(mReadPTTL.New(valueArg(left)))
	return ms
}

// unexpired says why nobody else could acquire a lock whose TTL, asked
// after ago, has passed, from what K shows now (call it before the holder
// resumes, whose release would delete K): no expiry at all, or an expiry
// pushed back or set longer than asked. It gives no figure, which would
// differ from run to run; the PTTL read is in the timeline.
func (r *run) unexpired(asked, after time.Duration) Message {
	switch ms := r.readPTTL(); {
	case ms == -1:
		return mUnexpiredNoExpiry.New()
	case ms >= 0:
		return mUnexpiredStill.New(after, asked)
	default:
		return mUnexpiredElsewhere.New()
	}
}

// lifeLeft says what K shows about a lock that outlived the TTL asked, a
// wait after it was taken: no expiry at all, or an expiry later than the
// TTL allows: set so, or pushed back since (the timeline shows who touched
// K in between).
func (r *run) lifeLeft(asked, after time.Duration) Message {
	switch ms := r.readPTTL(); {
	case ms == -1:
		return mLifeNoExpiry.New()
	case ms >= 0:
		left := time.Duration(ms) * time.Millisecond
		return mLifeLeft.New(left, after, asked)
	default:
		return mLifeElsewhere.New()
	}
}

// multi reports whether the lock spans several masters.
func (r *run) multi() bool { return r.masters > 1 }

// quorum is how many of the masters a lock over several needs: a majority.
func (r *run) quorum() int { return r.masters/2 + 1 }

// useTopology sends the clients made from now on to nodes, one proxy
// each, and stops the topology's servers with close at the end of the
// run. Connections the scenario's own kills cut are not a disturbance of
// the check.
func (r *run) useTopology(close func() error, nodes ...nodeDial) {
	r.lost = nil
	r.nodes = nodes
	r.mu.Lock()
	defer r.mu.Unlock()
	r.atEnd = append(r.atEnd, func() {
		if err := close(); err != nil {
			r.note(mStopTopology.New(err.Error()))
		}
	})
}

// startMasters starts the masters a topology scenario needs: Config.Masters
// of them for a lock over several, else one.
func (r *run) startMasters(opts ...redistest.Option) *redistest.Masters {
	m, err := redistest.StartMasters(r.ctx, max(r.masters, 1), opts...)
	if err != nil {
		r.fail(mFailStartMasters.New(topologyErr(err).Error()))
	}
	r.useTopology(m.Close, dials(m.Nodes)...)
	return m
}

// label names a master in the timeline and the reasons: "the server" on
// one Redis, else its name.
func (r *run) label(n *redistest.Node) string {
	if !r.multi() {
		return ""
	}
	return n.Name
}

// newSecret returns a fresh password for a client's proxies.
func newSecret() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on the systems Go supports
	}
	return hex.EncodeToString(b)
}

// noteEvent is a note of the scenario, outside a run's recorder.
func noteEvent(m Message) history.Event { return history.Event{Kind: history.EvNote, Msg: &m} }

// client returns the run's client named name, or nil.
func (r *run) client(name string) *simClient {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.clients {
		if c.name == name {
			return c
		}
	}
	return nil
}

// absoluteTime returns the first command a client sent with an absolute
// time in it (PXAT, EXAT, PEXPIREAT, EXPIREAT, or a Unix time in ms among
// its arguments), written as the timeline writes it; "" when none. A lock
// that sends one without reading Client.Clock reads a clock of its own.
func (r *run) absoluteTime() string {
	r.rec.mu.Lock()
	defer r.rec.mu.Unlock()
	for _, e := range r.rec.events {
		if e.Kind != history.EvCommand || len(e.Command) == 0 {
			continue
		}
		name := strings.ToUpper(e.Command[0].Text)
		abs := name == "PEXPIREAT" || name == "EXPIREAT"
		for _, a := range e.Command[1:] {
			t := strings.ToUpper(a.Text)
			abs = abs || a.Kind == history.ArgTime || (a.Kind == history.ArgText && (t == "PXAT" || t == "EXAT"))
		}
		if abs {
			return e.Client + ": " + history.JoinArgs(e.Command, " ")
		}
	}
	return ""
}

// neverReadsClock is the n/a of a clock property for a lock that read no
// clock of the client's, unless its commands carry an absolute time all
// the same: then the clock it read is its own, out of the suite's reach,
// and the property is not checked (an error that says so), never n/a.
func (r *run) neverReadsClock() outcome {
	if cmd := r.absoluteTime(); cmd != "" {
		r.fail(mFailOwnClock.New(r.errText(errors.New(cmd))))
	}
	return r.notApplicable(mNeverReadsClock.New())
}
