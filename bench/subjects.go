package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	redsyncgoredis "github.com/go-redsync/redsync/v4/redis/goredis/v9"
	redsyncredigo "github.com/go-redsync/redsync/v4/redis/redigo"
	redsyncrueidis "github.com/go-redsync/redsync/v4/redis/rueidis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/delsetnx"
	"github.com/locklab/locklab/strategy/getset"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/locklab/locklab/strategy/setnxdel"
	"github.com/locklab/locklab/strategy/setnxexpire"
	"github.com/locklab/locklab/strategy/setnxpx"
	"github.com/redis/rueidis/rueidiscompat"
)

// TTL is the lock time-to-live every subject is given: redsync's default
// expiry, so that all of them send the same PX argument. No benchmark holds a
// lock anywhere near this long.
const TTL = 8 * time.Second

// Names of the waiting modes of the contended figure.
const (
	WaitFixed     = "fixed 5ms"
	WaitBackoff   = "backoff 1–50ms"
	WaitNotify    = "woken on release"
	WaitRedsync   = "default: 32 tries, 50–250ms"
	WaitRedislock = "linear 100ms"
)

// everyPrefix begins the name of a peer's waiting mode that retries at a
// fixed delay with no try limit: the contended figure's sweep finds the
// delay that suits the workload best (see RetryEvery).
const everyPrefix = "retry every "

// RetryEvery names the waiting mode of a peer that retries every d, for
// as long as the caller's context lasts: redsync with WithRetryDelay(d)
// and no practical try limit, redislock with LinearBackoff(d).
func RetryEvery(d time.Duration) string { return everyPrefix + d.String() }

// retryEvery returns the delay of a waiting mode RetryEvery named.
func retryEvery(wait string) (time.Duration, bool) {
	rest, ok := strings.CutPrefix(wait, everyPrefix)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(rest)
	return d, err == nil && d > 0
}

// Retry policies behind the locklab waiting modes.
var (
	fixedRetry   = strategy.FixedInterval(5 * time.Millisecond)
	backoffRetry = strategy.Backoff(time.Millisecond, 50*time.Millisecond)
)

// A Locker is one goroutine's handle on one key. Lock waits as the locker's
// waiting mode says (the first attempt wins when nobody else holds the key);
// Unlock releases what Lock took. A Locker is not safe for concurrent use.
type Locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
}

// Subject is one lock implementation under test.
type Subject struct {
	Name   string // as printed and written to JSON
	Client string // one of ClientKinds
	Group  string // GroupLocklab, GroupRecipe or GroupPeer
	// Cycle names the commands of one uncontended acquire + release, each a
	// round trip.
	Cycle string
	// Waits are the waiting modes the contended figure is measured in.
	Waits []string
	open  func(c *Clients, keys []string, wait string) ([]Locker, error)
}

// Open returns one locker per key, all made from one client-side object
// (one locklab Strategy, one redsync instance, one redislock client) as a
// program would share it between goroutines; keys may repeat. With wait ""
// they are the lockers of the uncontended figures, called as a user would
// who expects the lock to be free; otherwise wait is one of s.Waits.
func (s *Subject) Open(c *Clients, keys []string, wait string) ([]Locker, error) {
	return s.open(c, keys, wait)
}

// Open1 returns a single locker on key.
func (s *Subject) Open1(c *Clients, key, wait string) (Locker, error) {
	lks, err := s.open(c, []string{key}, wait)
	if err != nil {
		return nil, err
	}
	return lks[0], nil
}

// The subjects' groups, which the chart colours apart.
const (
	GroupLocklab = "luatoken" // locklab's production lock, on any client
	GroupRecipe  = "recipe"   // the other locklab recipes, unsafe
	GroupPeer    = "peer"     // redsync, redislock
)

// Subject names the report's targets and tables refer to.
const (
	// Locklab is the production lock on a redigo pool.
	Locklab = "luatoken"
	// NotifyName is luatoken with release notification.
	NotifyName = "luatoken+notify"
	// The adapters: luatoken on a go-redis and on a rueidis client.
	AdapterGoRedis = "luatoken/go-redis"
	AdapterRueidis = "luatoken/rueidis"
	Redsync        = "redsync"
	Redislock      = "redislock"
	// redsync through its go-redis and rueidis pools.
	RedsyncGoRedis = "redsync/go-redis"
	RedsyncRueidis = "redsync/rueidis"
)

// Adapters lists the adapter subjects.
var Adapters = []string{AdapterGoRedis, AdapterRueidis}

// Subjects returns every lock measured: the six locklab strategies, luatoken
// woken on release, the two peers, and luatoken through the go-redis and
// rueidis adapters.
func Subjects() []*Subject {
	plain := []string{WaitFixed, WaitBackoff}
	ll := func(name, group, cycle string, mk func(strategy.Pool) (strategy.Strategy, error)) *Subject {
		return &Subject{Name: name, Client: ClientRedigo, Group: group, Cycle: cycle, Waits: plain, open: locklabOpener(mk)}
	}
	recipe := func(name, cycle string, mk func(strategy.Pool) (strategy.Strategy, error)) *Subject {
		return ll(name, GroupRecipe, cycle, mk)
	}
	return []*Subject{
		recipe("setnxdel", "SETNX · DEL", func(p strategy.Pool) (strategy.Strategy, error) { return setnxdel.New(p) }),
		recipe("setnxexpire", "SETNX, PEXPIRE · DEL", func(p strategy.Pool) (strategy.Strategy, error) { return setnxexpire.New(p) }),
		recipe("getset", "SETNX · GET, DEL", func(p strategy.Pool) (strategy.Strategy, error) { return getset.New(p) }),
		recipe("delsetnx", "SETNX · GET, DEL", func(p strategy.Pool) (strategy.Strategy, error) { return delsetnx.New(p) }),
		recipe("setnxpx", "SET NX PX · DEL", func(p strategy.Pool) (strategy.Strategy, error) { return setnxpx.New(p) }),
		ll(Locklab, GroupLocklab, "SET NX PX · EVALSHA", func(p strategy.Pool) (strategy.Strategy, error) { return luatoken.New(p) }),
		{
			Name: Redsync, Client: ClientRedigo, Group: GroupPeer, Cycle: "SET NX PX · EVALSHA",
			Waits: []string{WaitRedsync}, open: redsyncOpener(ClientRedigo),
		},
		{
			Name: RedsyncGoRedis, Client: ClientGoRedis, Group: GroupPeer, Cycle: "SET NX PX · EVALSHA",
			Waits: []string{WaitRedsync}, open: redsyncOpener(ClientGoRedis),
		},
		{
			Name: RedsyncRueidis, Client: ClientRueidis, Group: GroupPeer, Cycle: "SET NX PX · EVALSHA",
			Waits: []string{WaitRedsync}, open: redsyncOpener(ClientRueidis),
		},
		{
			Name: Redislock, Client: ClientGoRedis, Group: GroupPeer, Cycle: "EVALSHA · EVALSHA",
			Waits: []string{WaitRedislock}, open: openRedislock,
		},
		// luatoken whose release publishes, so that a waiter in
		// strategy.Acquire wakes at once instead of at its next retry.
		// Acquire subscribes only once an attempt has found the lock taken,
		// so on a free lock its cycle is luatoken's: SET NX PX, then the
		// release script, which also PUBLISHes (to nobody, uncontended).
		// The commands figure counts SUBSCRIBE and UNSUBSCRIBE to show that
		// none is sent.
		{
			Name: NotifyName, Client: ClientRedigo, Group: GroupLocklab, Cycle: "SET NX PX · EVALSHA",
			Waits: []string{WaitNotify},
			open: locklabOpener(func(p strategy.Pool) (strategy.Strategy, error) {
				return luatoken.New(p, luatoken.WithNotify())
			}),
		},
		// luatoken on the client a go-redis or rueidis program holds:
		// plain on a free lock, woken on release when it waits.
		{
			Name: AdapterGoRedis, Client: ClientGoRedis, Group: GroupLocklab, Cycle: "SET NX PX · EVALSHA",
			Waits: []string{WaitNotify}, open: adapterOpener(ClientGoRedis),
		},
		{
			Name: AdapterRueidis, Client: ClientRueidis, Group: GroupLocklab, Cycle: "SET NX PX · EVALSHA",
			Waits: []string{WaitNotify}, open: adapterOpener(ClientRueidis),
		},
	}
}

// Find returns the subject called name, or nil.
func Find(subs []*Subject, name string) *Subject {
	for _, s := range subs {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// GroupOf returns the group of the subject called name, "" for none.
func GroupOf(name string) string {
	if s := Find(Subjects(), name); s != nil {
		return s.Group
	}
	return ""
}

// Names lists the subjects' names.
func Names(subs []*Subject) []string {
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.Name
	}
	return names
}

func locklabOpener(mk func(strategy.Pool) (strategy.Strategy, error)) func(*Clients, []string, string) ([]Locker, error) {
	return func(c *Clients, keys []string, wait string) ([]Locker, error) {
		s, err := mk(c.Redigo)
		if err != nil {
			return nil, err
		}
		return locklabLockers(s, keys, wait)
	}
}

// adapterOpener opens luatoken on the pool the adapter for the client kind
// makes of its client: plain, or woken on release for the contended figure.
func adapterOpener(kind string) func(*Clients, []string, string) ([]Locker, error) {
	return func(c *Clients, keys []string, wait string) ([]Locker, error) {
		var opts []luatoken.Option
		if wait == WaitNotify {
			opts = append(opts, luatoken.WithNotify())
		}
		s, err := luatoken.New(adapterPool(kind, c), opts...)
		if err != nil {
			return nil, err
		}
		return locklabLockers(s, keys, wait)
	}
}

// locklabLockers returns the lockers of a locklab strategy, each waiting as
// wait says.
func locklabLockers(s strategy.Strategy, keys []string, wait string) ([]Locker, error) {
	var r strategy.Retry
	switch wait {
	case WaitFixed:
		r = fixedRetry
	case "", WaitBackoff, WaitNotify:
		// Woken on release keeps the backoff as its fallback, so that
		// the two rows differ only by the notification.
		r = backoffRetry
	default:
		return nil, fmt.Errorf("bench: no waiting mode %q for a locklab strategy", wait)
	}
	lks := make([]Locker, len(keys))
	for i, key := range keys {
		lks[i] = &locklabLocker{s: s, key: key, retry: r}
	}
	return lks, nil
}

// locklabLocker waits with strategy.Acquire, the call users make.
type locklabLocker struct {
	s     strategy.Strategy
	key   string
	retry strategy.Retry
	held  strategy.Lock
}

func (l *locklabLocker) Lock(ctx context.Context) error {
	lk, err := strategy.Acquire(ctx, l.s, l.key, TTL, l.retry)
	if err != nil {
		return err
	}
	l.held = lk
	return nil
}

func (l *locklabLocker) Unlock(ctx context.Context) error {
	lk := l.held
	l.held = nil
	if lk == nil {
		return errNotLocked
	}
	return lk.Release(ctx)
}

var errNotLocked = errors.New("bench: Unlock without Lock")

// redsyncOpener opens redsync on its pool for the client kind: one mutex
// per locker, reused for every cycle, as redsync allows (a mutex keeps the
// value of its last Lock). All options are redsync's defaults (8s expiry,
// 32 tries, a random 50–250ms between them). redislock has no such choice:
// it takes go-redis's own types, which rueidiscompat's adapter does not
// return, so it runs on go-redis only. A RetryEvery waiting mode sets the
// delay between tries and lifts the try limit.
func redsyncOpener(kind string) func(*Clients, []string, string) ([]Locker, error) {
	return func(c *Clients, keys []string, wait string) ([]Locker, error) {
		var opts []redsync.Option
		if d, ok := retryEvery(wait); ok {
			opts = append(opts, redsync.WithRetryDelay(d), redsync.WithTries(math.MaxInt32))
		} else if wait != "" && wait != WaitRedsync {
			return nil, fmt.Errorf("bench: no waiting mode %q for redsync", wait)
		}
		var pool redsyncredis.Pool
		switch kind {
		case ClientGoRedis:
			pool = redsyncgoredis.NewPool(c.GoRedis)
		case ClientRueidis:
			pool = redsyncrueidis.NewPool(rueidiscompat.NewAdapter(c.Rueidis))
		default:
			pool = redsyncredigo.NewPool(c.Redigo)
		}
		rs := redsync.New(pool)
		lks := make([]Locker, len(keys))
		for i, key := range keys {
			lks[i] = &redsyncLocker{m: rs.NewMutex(key, opts...)}
		}
		return lks, nil
	}
}

type redsyncLocker struct{ m *redsync.Mutex }

func (l *redsyncLocker) Lock(ctx context.Context) error { return l.m.LockContext(ctx) }

func (l *redsyncLocker) Unlock(ctx context.Context) error {
	ok, err := l.m.UnlockContext(ctx)
	if err == nil && !ok {
		err = errors.New("redsync: unlock found the lock gone")
	}
	return err
}

// openRedislock makes a redislock client. Uncontended it is called as the
// README shows, with nil options (its default: no retry). Waiting, it retries
// every 100ms (LinearBackoff, the interval of redislock's retry example),
// without a try limit, until the benchmark's context ends; or at the delay
// a RetryEvery waiting mode names.
func openRedislock(c *Clients, keys []string, wait string) ([]Locker, error) {
	var opt *redislock.Options
	d, every := retryEvery(wait)
	switch {
	case wait == "":
	case wait == WaitRedislock:
		opt = &redislock.Options{RetryStrategy: redislock.LinearBackoff(100 * time.Millisecond)}
	case every:
		opt = &redislock.Options{RetryStrategy: redislock.LinearBackoff(d)}
	default:
		return nil, fmt.Errorf("bench: no waiting mode %q for redislock", wait)
	}
	rl := redislock.New(c.GoRedis)
	lks := make([]Locker, len(keys))
	for i, key := range keys {
		lks[i] = &redislockLocker{c: rl, key: key, opt: opt}
	}
	return lks, nil
}

type redislockLocker struct {
	c    *redislock.Client
	key  string
	opt  *redislock.Options
	held *redislock.Lock
}

func (l *redislockLocker) Lock(ctx context.Context) error {
	lk, err := l.c.Obtain(ctx, l.key, TTL, l.opt)
	if err != nil {
		return err
	}
	l.held = lk
	return nil
}

func (l *redislockLocker) Unlock(ctx context.Context) error {
	lk := l.held
	l.held = nil
	if lk == nil {
		return errNotLocked
	}
	return lk.Release(ctx)
}
