package harness

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/judge"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/locktest/internal/trace"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
)

// Names of the simulated clients.
var Names = []string{"A", "B", "C", "D", "E", "F", "G", "H"}

// Run is one execution of one scenario on one key.
type Run struct {
	*sim.Env                                         // what its clients share with it
	pool     strategy.Pool                           // the suite's own connections, outside every client
	dial     func(context.Context) (net.Conn, error) // to Redis, for the clients' proxies
	Lost     func(error)                             // told when the server cuts a client's connection; may be nil
	Disturb  func(error)                             // told of a disturbance the scenario found (slow.go); may be nil
	factory  func(sim.ClientInfo) (strategy.Strategy, error)
	Det      *trace.Detector
	noLogin  *atomic.Bool // set when a client's proxy answered NOAUTH
	Mu       sync.Mutex
	Clients  []*Client
	keysRead bool // the suite has read the lock's keys (lockKeys)
	// lenientReplay: a schedule that diverges from its prefix goes on
	// instead of failing (see interleavings).
	lenientReplay bool

	// A topology scenario's servers (see topology.go): the masters the
	// clients' proxies dial, when they are not dial, and what to stop at
	// the end of the run.
	Masters      int           // Config.Masters
	RestartDelay time.Duration // Config.RestartDelay
	nodes        []sim.NodeDial
	AtEnd        []func()
}

// Client is a simulated client in its run: what a scenario drives.
type Client struct {
	*sim.Client
	R *Run
}

// Setting is what a run takes of the check's Config.
type Setting struct {
	Dial         func(context.Context) (net.Conn, error) // to Redis, for the clients' proxies
	Factory      func(sim.ClientInfo) (strategy.Strategy, error)
	Perms        *sim.Permissions // the NOPERMs met, the clients' and the suite's own
	NoLogin      *atomic.Bool     // set when a client's proxy answered NOAUTH
	Tm           sim.Timing
	Masters      int
	RestartDelay time.Duration
}

// NewRun starts a run on key, with the suite's own connections from pool:
// its timeline, starting now, and its detector.
func NewRun(ctx context.Context, s Setting, pool *redis.Pool, key string) *Run {
	now := time.Now()
	e := &sim.Env{Ctx: ctx, Key: key, Perms: s.Perms, Tm: s.Tm.WithDefaults(), T0: now.UnixMilli(), Rec: &trace.Recorder{Start: now}}
	r := &Run{Env: e, pool: pool, dial: s.Dial, factory: s.Factory, noLogin: s.NoLogin,
		Masters: s.Masters, RestartDelay: s.RestartDelay}
	r.Det = &trace.Detector{Rec: r.Rec}
	return r
}

// Counterexample returns res with the run's timeline, its key, its start
// and the tokens each client wrote.
func (r *Run) Counterexample(res Outcome) Outcome {
	res.Timeline, res.Tokens = r.Rec.Timeline()
	res.Key, res.Start = r.Key, time.UnixMilli(r.T0)
	return res
}

// A scenario does not decide: holds, breaks, notApplicable and the
// claims below record what it found as claims in the history
// (history.Check), and the judge gives the verdict from the history
// alone (decide).

// Holds claims that the scenario found nothing broken: m says what it
// tried.
func (r *Run) Holds(m msg.Msg) Outcome {
	r.claim(history.Check{Rule: history.Kept, Reason: &m})
	return r.decide()
}

// Breaks claims a break the scenario observed, which m explains; the
// events before it are its evidence.
func (r *Run) Breaks(m msg.Msg) Outcome {
	return r.BreaksRule(history.Observed, m)
}

// BreaksRule claims that rule was broken, which m explains: the judge
// finds the break in the events, or gives no verdict.
func (r *Run) BreaksRule(rule history.Rule, m msg.Msg) Outcome {
	return r.BreaksRuleOf(rule, 0, m)
}

// BreaksRuleOf is breaksRule for a semaphore of permits.
func (r *Run) BreaksRuleOf(rule history.Rule, permits int, m msg.Msg) Outcome {
	r.claim(history.Check{Rule: rule, Broken: true, Reason: &m, Permits: permits})
	return r.decide()
}

// BreaksUnfreed claims that the lock, which had to be free by since,
// was granted to nobody while waiter tried until since plus within,
// which m explains.
func (r *Run) BreaksUnfreed(waiter string, since, within time.Duration, m msg.Msg) Outcome {
	r.claim(history.Check{Rule: history.Unfreed, Broken: true, Reason: &m, Client: waiter, Since: since, Within: within})
	return r.decide()
}

// BreaksUnfreedBy claims that the lock, free by what the holds' own TTLs
// and releases say, was refused to waiter (of a semaphore of permits),
// which m explains: the judge derives the window from the history.
func (r *Run) BreaksUnfreedBy(waiter string, permits int, m msg.Msg) Outcome {
	r.claim(history.Check{Rule: history.Unfreed, Broken: true, Reason: &m, Client: waiter, Permits: permits})
	return r.decide()
}

// BreaksFreeRefused claims that waiter's last attempt was refused a lock
// that nobody held, which m explains.
func (r *Run) BreaksFreeRefused(waiter string, m msg.Msg) Outcome {
	return r.BreaksFreeRefusedOf(waiter, 0, m)
}

// BreaksFreeRefusedOf is breaksFreeRefused for a semaphore of permits.
func (r *Run) BreaksFreeRefusedOf(waiter string, permits int, m msg.Msg) Outcome {
	r.claim(history.Check{Rule: history.FreeRefused, Broken: true, Reason: &m, Client: waiter, Permits: permits})
	return r.decide()
}

func (r *Run) NotApplicable(m msg.Msg) Outcome {
	r.claim(history.Check{Rule: history.Unstageable, Reason: &m})
	return r.decide()
}

// Promise claims that rule holds over the whole run; if the judge finds
// it broken, the verdict's reason is reason with what it found added as
// its last argument (msg.Def.Lacking).
func (r *Run) Promise(rule history.Rule, reason msg.Msg) {
	r.claim(history.Check{Rule: rule, Reason: &reason})
}

// PromisePermits is promise of OneHolder for a semaphore of permits.
func (r *Run) PromisePermits(permits int, reason msg.Msg) {
	r.claim(history.Check{Rule: history.OneHolder, Reason: &reason, Permits: permits})
}

func (r *Run) claim(c history.Check) {
	r.Rec.Add(history.Event{Kind: history.EvCheck, Check: &c})
}

// decide stops the run's clients and gives the judge's verdict on its
// history; a break carries the history as its counterexample.
func (r *Run) decide() Outcome {
	r.Shutdown()
	res := r.Counterexample(Outcome{})
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

// NewClient builds a simulated client: a proxy of its own to Redis, a
// redigo pool on it, and its own strategy instance from the factory.
func (r *Run) NewClient(name string, skew time.Duration) *Client {
	nodes := r.nodes
	if len(nodes) == 0 {
		nodes = []sim.NodeDial{{Dial: r.dial}}
	}
	c := &Client{Client: sim.DialClient(r.Env, name, skew, nodes, r.Lost, r.sawNoAuth), R: r}
	r.Mu.Lock()
	r.Clients = append(r.Clients, c)
	r.Mu.Unlock()
	c.Build(r.factory)
	return c
}

// LockKeys are the keys the suite reads for the lock: K, or those its
// strategy keeps its state under (strategy.Keyed). The first read of keys
// other than K notes them in the timeline.
func (r *Run) LockKeys() []string {
	keys := r.StateKeyList()
	r.Mu.Lock()
	noted := r.keysRead
	r.keysRead = true
	r.Mu.Unlock()
	if len(keys) == 0 {
		return []string{r.Key}
	}
	if !noted {
		r.Note(mLockKeys.New(r.keyNames(keys)))
	}
	return keys
}

// keyNames writes keys as the timeline does: the run's key as K.
func (r *Run) keyNames(keys []string) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = strings.ReplaceAll(k, r.Key, "K")
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
func (r *Run) sawNoAuth() {
	if r.noLogin != nil {
		r.noLogin.Store(true)
	}
}

// Shutdown stops every client, so that nothing they started (renewals)
// outlives the run: their connections are cut, their proxies closed, and
// what their factories registered with Client.Cleanup runs.
func (r *Run) Shutdown() {
	r.Mu.Lock()
	cs := append([]*Client(nil), r.Clients...)
	r.Mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
	r.Mu.Lock()
	fs := r.AtEnd
	r.AtEnd = nil
	r.Mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// Redis runs f on a connection of the suite's own, outside every client.
func (r *Run) Redis(f func(redis.Conn) error) {
	c, err := r.pool.GetContext(r.Ctx)
	if err != nil {
		r.Fail(mFailSuiteConn.New(err.Error()))
	}
	defer c.Close()
	if err := f(c); err != nil {
		r.Fail(mFailSuiteCommand.New(err.Error()))
	}
}

// Exists says whether key exists, read on the suite's own connection.
func (r *Run) Exists(key string) bool {
	var n int
	r.Redis(func(conn redis.Conn) error {
		var err error
		n, err = redis.Int(conn.Do("EXISTS", key))
		return err
	})
	return n > 0
}

// KeyExists says whether the lock's key exists (any of its keys, for a
// lock kept under keys of its own), read on the suite's own connection; a
// lock may keep its state elsewhere, so only a key that existed and then
// vanished says something.
func (r *Run) KeyExists() bool {
	for _, k := range r.LockKeys() {
		if r.Exists(k) {
			return true
		}
	}
	return false
}

// Pttl reads how long the run's key has left, as the suite sees it: 0 when
// the key is gone or does not expire (the lock may live elsewhere).
func (r *Run) Pttl() time.Duration {
	return time.Duration(max(r.ReadPTTL(), 0)) * time.Millisecond
}

// ReadPTTL reads PTTL K on the suite's own connection and notes it: -1 for
// a key without expiry, -2 for none.
func (r *Run) ReadPTTL() int64 {
	var ms int64
	var rd history.Read
	keys := r.LockKeys()
	r.Redis(func(c redis.Conn) error {
		var err error
		rd = history.Read{}
		for _, k := range keys {
			kv, _, err := r.readKey(c, k)
			if err != nil {
				return err
			}
			rd.Keys = append(rd.Keys, kv)
		}
		ms, err = pttlOf(c, keys)
		return err
	})
	rd.PTTL = ms
	r.Rec.Read(rd)
	left := history.Arg{Kind: history.ArgNumber, Text: strconv.FormatInt(ms, 10)}
	if ms >= 0 {
		left.Kind = history.ArgLeft
	}
	r.Note(mReadPTTL.New(sim.ValueArg(left)))
	return ms
}

// Unexpired says why nobody else could acquire a lock whose TTL, asked
// after ago, has passed, from what K shows now (call it before the holder
// resumes, whose release would delete K): no expiry at all, or an expiry
// pushed back or set longer than asked. It gives no figure, which would
// differ from run to run; the PTTL read is in the timeline.
func (r *Run) Unexpired(asked, after time.Duration) msg.Msg {
	switch ms := r.ReadPTTL(); {
	case ms == -1:
		return mUnexpiredNoExpiry.New()
	case ms >= 0:
		return mUnexpiredStill.New(after, asked)
	default:
		return mUnexpiredElsewhere.New()
	}
}

// LifeLeft says what K shows about a lock that outlived the TTL asked, a
// wait after it was taken: no expiry at all, or an expiry later than the
// TTL allows: set so, or pushed back since (the timeline shows who touched
// K in between).
func (r *Run) LifeLeft(asked, after time.Duration) msg.Msg {
	switch ms := r.ReadPTTL(); {
	case ms == -1:
		return mLifeNoExpiry.New()
	case ms >= 0:
		left := time.Duration(ms) * time.Millisecond
		return mLifeLeft.New(left, after, asked)
	default:
		return mLifeElsewhere.New()
	}
}

// Multi reports whether the lock spans several masters.
func (r *Run) Multi() bool { return r.Masters > 1 }

// Quorum is how many of the masters a lock over several needs: a majority.
func (r *Run) Quorum() int { return r.Masters/2 + 1 }

// UseTopology sends the clients made from now on to nodes, one proxy
// each, and stops the topology's servers with close at the end of the
// run. Connections the scenario's own kills cut are not a disturbance of
// the check.
func (r *Run) UseTopology(close func() error, nodes ...sim.NodeDial) {
	r.Lost = nil
	r.nodes = nodes
	r.Mu.Lock()
	defer r.Mu.Unlock()
	r.AtEnd = append(r.AtEnd, func() {
		if err := close(); err != nil {
			r.Note(mStopTopology.New(err.Error()))
		}
	})
}

// StartMasters starts the masters a topology scenario needs: Config.Masters
// of them for a lock over several, else one.
func (r *Run) StartMasters(opts ...redistest.Option) *redistest.Masters {
	m, err := redistest.StartMasters(r.Ctx, max(r.Masters, 1), opts...)
	if err != nil {
		r.Fail(mFailStartMasters.New(TopologyErr(err).Error()))
	}
	r.UseTopology(m.Close, dials(m.Nodes)...)
	return m
}

// Label names a master in the timeline and the reasons: "the server" on
// one Redis, else its name.
func (r *Run) Label(n *redistest.Node) string {
	if !r.Multi() {
		return ""
	}
	return n.Name
}

// NoteEvent is a note of the scenario, outside a run's recorder.
func NoteEvent(m msg.Msg) history.Event { return history.Event{Kind: history.EvNote, Msg: &m} }

// Client returns the run's client named name, or nil.
func (r *Run) Client(name string) *Client {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	for _, c := range r.Clients {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// absoluteTime returns the first command a client sent with an absolute
// time in it (PXAT, EXAT, PEXPIREAT, EXPIREAT, or a Unix time in ms among
// its arguments), written as the timeline writes it; "" when none. A lock
// that sends one without reading Client.Clock reads a clock of its own.
func (r *Run) absoluteTime() string {
	for _, e := range r.Rec.Events() {
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

// NeverReadsClock is the n/a of a clock property for a lock that read no
// clock of the client's, unless its commands carry an absolute time all
// the same: then the clock it read is its own, out of the suite's reach,
// and the property is not checked (an error that says so), never n/a.
func (r *Run) NeverReadsClock() Outcome {
	if cmd := r.absoluteTime(); cmd != "" {
		r.Fail(mFailOwnClock.New(r.ErrText(errors.New(cmd))))
	}
	return r.NotApplicable(mNeverReadsClock.New())
}

// ViewKey reads K on the suite's own connection, and records what it
// read for the judge (history.EvRead).
func (r *Run) ViewKey() KeyView {
	var v KeyView
	var rd history.Read
	keys := r.LockKeys()
	r.Redis(func(c redis.Conn) error {
		v, rd = KeyView{}, history.Read{}
		for _, k := range keys {
			kv, dump, err := r.readKey(c, k)
			if err != nil {
				return err
			}
			v.keys, v.Values = append(v.keys, r.keyNames([]string{k})), append(v.Values, dump)
			// Whose value it is, when it is a string: any other type
			// has no writer.
			var w []string
			if kv.Value != nil {
				w = r.Rec.WritersOf(*kv.Value)
			}
			v.writers, rd.Keys = append(v.writers, w), append(rd.Keys, kv)
		}
		var err error
		v.Pttl, err = pttlOf(c, keys)
		return err
	})
	rd.PTTL = v.Pttl
	r.Rec.Read(rd)
	return v
}

// readKey reads the lock key k on c: its value as the timeline types it
// (a string's, as it is; any other type's, a digest of its DUMP; nil
// when there is no key), and its DUMP.
func (r *Run) readKey(c redis.Conn, k string) (history.KeyValue, string, error) {
	kv := history.KeyValue{Key: r.Arg(k)}
	dump, err := redis.String(c.Do("DUMP", k))
	if err != nil && err != redis.ErrNil {
		return kv, "", err
	}
	// A hash or any other type answers GET with an error.
	if s, err := redis.String(c.Do("GET", k)); err == nil {
		a := r.Arg(s)
		kv.Value = &a
	} else if dump != "" {
		kv.Value = &history.Arg{Kind: history.ArgText, Text: fmt.Sprintf("dump:%x", sha1.Sum([]byte(dump)))}
	}
	// A reader's entry, a permit's holder: a collection's fields or
	// members, each typed as the timeline types values.
	var list []string
	err = nil
	switch t, _ := redis.String(c.Do("TYPE", k)); t {
	case "hash":
		list, err = redis.Strings(c.Do("HKEYS", k))
	case "set":
		list, err = redis.Strings(c.Do("SMEMBERS", k))
	case "zset":
		list, err = redis.Strings(c.Do("ZRANGE", k, 0, -1))
	}
	if err != nil {
		return kv, "", err
	}
	slices.Sort(list)
	for _, e := range list {
		kv.Entries = append(kv.Entries, r.Arg(e))
	}
	return kv, dump, nil
}

// dials returns how to reach each of nodes, by name.
func dials(nodes []*redistest.Node) []sim.NodeDial {
	out := make([]sim.NodeDial, len(nodes))
	for i, n := range nodes {
		out[i] = sim.NodeDial{Name: n.Name, Dial: DialTCP(n.Addr)}
	}
	return out
}

// TopologyErr says why a topology could not start: without redis-server,
// the property has no verdict.
func TopologyErr(err error) error {
	if errors.Is(err, redistest.ErrNoRedisServer) {
		return fmt.Errorf("the topology properties start redis-server processes of their own: %w", err)
	}
	return err
}

// DialTCP returns a dial of addr over TCP.
func DialTCP(addr string) func(context.Context) (net.Conn, error) {
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
}
