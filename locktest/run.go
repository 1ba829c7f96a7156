package locktest

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest/internal/judge"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
)

// names of the simulated clients.
var names = []string{"A", "B", "C", "D", "E", "F", "G", "H"}

// run is one execution of one scenario on one key.
type run struct {
	*env                                             // what its clients share with it
	pool     strategy.Pool                           // the suite's own connections, outside every client
	dial     func(context.Context) (net.Conn, error) // to Redis, for the clients' proxies
	lost     func(error)                             // told when the server cuts a client's connection; may be nil
	disturb  func(error)                             // told of a disturbance the scenario found (slow.go); may be nil
	factory  func(clientInfo) (strategy.Strategy, error)
	det      *detector
	noLogin  *atomic.Bool // set when a client's proxy answered NOAUTH
	mu       sync.Mutex
	clients  []*client
	keysRead bool // the suite has read the lock's keys (lockKeys)
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

// client is a simulated client in its run: what a scenario drives.
type client struct {
	*simClient
	r *run
}

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
	e := &env{ctx: ctx, key: key, perms: s.perms, tm: s.tm.withDefaults(), t0: now.UnixMilli(), rec: &recorder{start: now}}
	r := &run{env: e, pool: pool, dial: s.dial, factory: s.factory, noLogin: s.noLogin,
		masters: s.masters, restartDelay: s.restartDelay}
	r.det = &detector{rec: r.rec}
	return r
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
func (r *run) newClient(name string, skew time.Duration) *client {
	nodes := r.nodes
	if len(nodes) == 0 {
		nodes = []nodeDial{{dial: r.dial}}
	}
	c := &client{simClient: dialClient(r.env, name, skew, nodes, r.lost, r.sawNoAuth), r: r}
	r.mu.Lock()
	r.clients = append(r.clients, c)
	r.mu.Unlock()
	c.build(r.factory)
	return c
}

// lockKeys are the keys the suite reads for the lock: K, or those its
// strategy keeps its state under (strategy.Keyed). The first read of keys
// other than K notes them in the timeline.
func (r *run) lockKeys() []string {
	keys := r.stateKeyList()
	r.mu.Lock()
	noted := r.keysRead
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

// noteEvent is a note of the scenario, outside a run's recorder.
func noteEvent(m Message) history.Event { return history.Event{Kind: history.EvNote, Msg: &m} }

// client returns the run's client named name, or nil.
func (r *run) client(name string) *client {
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
