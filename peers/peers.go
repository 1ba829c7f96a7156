// Package peers runs Go Redis locks that locklab did not write through
// locklab's conformance suite, as they are, beside luatoken: redsync v4
// with a single pool, bsm/redislock, the plain lock on go-redis that code
// often writes by hand (SET NX PX, a Lua compare-and-delete), go-zero's
// RedisLock (a new one for each use, and one shared by a client's
// goroutines) and rueidislock (its defaults, and KeyMajority 1). Each
// lives in a package of its own, an adapter to the strategy interfaces.
//
// It is a module of its own, so that the locklab module never depends on
// go-redis, redsync, redislock, go-zero or rueidis. Peers lists them with the verdicts
// declared for each, read from the libraries' code; the test runs the
// suite on each and requires exactly those verdicts, and the command
// peercheck prints their columns beside luatoken's. docs/peers.md in the
// repository explains each verdict.
package peers

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/peers/goredislock"
	"github.com/locklab/locklab/peers/gozero"
	"github.com/locklab/locklab/peers/redislock"
	"github.com/locklab/locklab/peers/redsync"
	ruelock "github.com/locklab/locklab/peers/rueidislock"
	"github.com/locklab/locklab/strategy"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/redis/rueidis/rueidislock"
	"github.com/zeromicro/go-zero/core/logx"
	zeroredis "github.com/zeromicro/go-zero/core/stores/redis"
)

// The modules the peers are built on, at the versions go.mod requires (a
// test checks them against the build).
const (
	RedsyncModule   = "github.com/go-redsync/redsync/v4 v4.18.1"
	RedislockModule = "github.com/bsm/redislock v0.9.4"
	GoRedisModule   = "github.com/redis/go-redis/v9 v9.23.0"
	GoZeroModule    = "github.com/zeromicro/go-zero v1.10.3"
	RueidisModule   = "github.com/redis/rueidis v1.0.79"
)

// Peers returns the peers, each as a catalog entry: its name, the module
// it comes from (Sources), a factory that builds it on a go-redis client
// of its own to the suite's proxy for the client, and its declared
// verdicts, strict: its column of the grid in package catalog
// (catalog.GridFile), which peercheck -update rewrites.
//
// Why each verdict, from the code (docs/peers.md shows the runs):
//
//   - all three lock with one SET NX PX (redislock's inside a script) and
//     release with one script that deletes the key only while it holds the
//     holder's random value: a crash can only fall before or after one
//     command of an acquire or a release (n/a), Redis expires the key
//     itself (no stale lock to take over: n/a), no client clock is read
//     for the lock (n/a), and a late or second release finds another value
//     and deletes nothing (holds);
//   - redsync's Extend and redislock's Refresh set the expiry in a script
//     only while the key holds the holder's value: a late refresh fails and
//     leaves the next holder's lock alone (holds); the hand-written lock
//     has no refresh (n/a);
//   - none renews itself, hands out fencing tokens, or tells the holder
//     its lease ran out: a holder that outlasts its TTL works beside the
//     next one (the three overrun properties break), as on every TTL lock
//     that does not renew (docs/no-ttl-lock-is-safe.md);
//   - go-zero's RedisLock is the same but counts TTLs in whole seconds
//     (it runs at a granularity of 1s) and has no refresh; shared by
//     goroutines, its one value, which its acquire script grants the key
//     again to, lets a second goroutine in beside the first and one
//     goroutine's second release free another's lock (go-zero-shared:
//     exclusion and double-release break), and one goroutine's SetExpire
//     sets the others' TTL;
//   - rueidislock renews itself (holder-overrun holds), but its release
//     reports nothing, so delete scripts answered with an error go
//     unnoticed (release-frees breaks; rueidis sends them again after a
//     network error, until the keys' deadline, and the release waits), its
//     PXAT comes from the holder's clock (holder-clock breaks), and its
//     lease ends only when a pending extension times out, about half the
//     validity after the keys expired (renewed-overrun breaks); with two
//     keys of three a crash can fall between them (crash-mid-acquire and
//     -release hold).
func Peers() []catalog.Entry {
	peers := []catalog.Entry{
		{
			Name:    "redsync",
			Sources: RedsyncModule + ", one pool, go-redis v9 driver",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				rdb, err := newClient(c)
				if err != nil {
					return nil, err
				}
				return redsync.New(rdb)
			},
		},
		{
			Name:    "redislock",
			Sources: RedislockModule,
			New: func(c locktest.Client) (strategy.Strategy, error) {
				rdb, err := newClient(c)
				if err != nil {
					return nil, err
				}
				return redislock.New(rdb)
			},
		},
		{
			Name:    "goredislock",
			Sources: GoRedisModule + ", SET NX PX and a Lua compare-and-delete written here",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				rdb, err := newClient(c)
				if err != nil {
					return nil, err
				}
				return goredislock.New(rdb)
			},
		},
		{
			Name:    "go-zero",
			Sources: GoZeroModule + ", core/stores/redis RedisLock, a new one for each use",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				store, err := newZeroStore(c)
				if err != nil {
					return nil, err
				}
				return gozero.New(store)
			},
		},
		{
			Name:    "go-zero-shared",
			Sources: GoZeroModule + ", one RedisLock per key shared by a client's goroutines",
			New: func(c locktest.Client) (strategy.Strategy, error) {
				store, err := newZeroStore(c)
				if err != nil {
					return nil, err
				}
				return gozero.Shared(store)
			},
		},
		{
			Name:    "rueidislock",
			Sources: RueidisModule + ", rueidislock with its defaults (KeyMajority 2: 2 of 3 keys)",
			// rueidislock's time scale is its own: an acquire that
			// outlasts its validity fails, so a TTL must leave room for
			// the first acquire (the handshake, a script per key), and
			// its defaults count in seconds (KeyValidity 5s).
			Timing: locktest.Timing{Granularity: rueidislockScale},
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return newRueidislock(c, 0)
			},
		},
		{
			Name:    "rueidislock-km1",
			Sources: RueidisModule + ", rueidislock with KeyMajority 1, as its README advises on one Redis",
			// rueidislock's time scale is its own: an acquire that
			// outlasts its validity fails, so a TTL must leave room for
			// the first acquire (the handshake, a script per key), and
			// its defaults count in seconds (KeyValidity 5s).
			Timing: locktest.Timing{Granularity: rueidislockScale},
			New: func(c locktest.Client) (strategy.Strategy, error) {
				return newRueidislock(c, 1)
			},
		},
	}
	for i := range peers {
		peers[i] = catalog.Declare(peers[i])
		peers[i].Expect.Strict = true
	}
	return peers
}

// Columns returns the peers, then luatoken as package catalog declares it:
// the columns that peercheck prints.
func Columns() []catalog.Entry {
	lt, ok := catalog.Lookup("luatoken")
	if !ok {
		panic("peers: the catalog has no luatoken")
	}
	return append(Peers(), lt)
}

// Lookup returns the column named name.
func Lookup(name string) (catalog.Entry, bool) {
	for _, e := range Columns() {
		if e.Name == name {
			return e, true
		}
	}
	return catalog.Entry{}, false
}

// newClient returns a go-redis client to the suite's proxy for c, closed
// when the suite is done with c, its first connection already made, as in
// a program that has been running for a while. It has go-redis's defaults
// but two: it sends neither CLIENT SETINFO nor CLIENT MAINT_NOTIFICATIONS
// when it connects (DisableIdentity, maintenance notifications off), which
// have nothing to do with locks, and which Redis 7.0 rejects anyway.
func newClient(c locktest.Client) (*redis.Client, error) {
	rdb := redis.NewClient(&redis.Options{
		Addr:                     c.Addr,
		Password:                 c.Password,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
	c.Cleanup(func() { rdb.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("go-redis client for %s: %w", c.Name, err)
	}
	return rdb, nil
}

// zeroAddrs counts the uses of each proxy address by go-zero stores.
var (
	zeroMu    sync.Mutex
	zeroAddrs = map[string]int{}
)

// go-zero writes its logs to standard output, and its core/stat package,
// which the store imports, logs the process's CPU and memory there every
// minute from the start: a peercheck -format json run of over a minute,
// on any column, printed them inside its JSON. Its logs are off from the
// start.
func init() { logx.Disable() }

// newZeroStore returns a go-zero store on the suite's proxy for c, as
// go-zero's documentation makes one (redis.NewRedis with a RedisConf, which
// pings the server once since NonBlock is false), with go-zero's logs off.
//
// go-zero keeps one go-redis client per address for the life of the
// process, and never closes it. A proxy's port can come back for a later
// client, which logs in with a secret of its own: the address is then
// written with as many leading zeros in its port as it had uses before
// (":045123" is port 45123), so that each client gets a go-redis client of
// its own, which logs in with its own secret.
func newZeroStore(c locktest.Client) (*zeroredis.Redis, error) {
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return nil, err
	}
	zeroMu.Lock()
	n := zeroAddrs[c.Addr]
	zeroAddrs[c.Addr] = n + 1
	zeroMu.Unlock()
	store, err := zeroredis.NewRedis(zeroredis.RedisConf{
		Host:        net.JoinHostPort(host, strings.Repeat("0", n)+port),
		Type:        zeroredis.NodeType,
		Pass:        c.Password,
		PingTimeout: 5 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("go-zero store for %s: %w", c.Name, err)
	}
	return store, nil
}

// rueidislockScale is the granularity rueidislock's columns run at.
const rueidislockScale = 250 * time.Millisecond

// newRueidislock returns rueidislock's locks on the suite's proxy for c,
// with KeyMajority majority (0: its default), closed when the suite is
// done with c.
func newRueidislock(c locktest.Client, majority int32) (*ruelock.Locks, error) {
	l, err := ruelock.New(rueidislock.LockerOption{
		ClientOption: ruelock.ClientOption(c.Addr, c.Password),
		KeyMajority:  majority,
		// The one default changed, 20ms for each key's attempt: an
		// attempt that outlasts it fails with "context deadline
		// exceeded", neither a grant nor a refusal; a second leaves the
		// verdicts to the suite's scenarios rather than to the machine's
		// latency.
		TryNextAfter: time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("rueidislock for %s: %w", c.Name, err)
	}
	c.Cleanup(l.Close)
	return l, nil
}
