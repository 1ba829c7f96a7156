package locktest

import (
	"context"
	"crypto/tls"
	"net"
	"sync/atomic"
	"time"

	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// Factory builds the strategy of one simulated client, once per client.
type Factory func(c Client) (strategy.Strategy, error)

// Config says where and how to check.
type Config struct {
	Addr string                                      // host:port of the Redis to check on
	Dial func(ctx context.Context) (net.Conn, error) // if set, dials Redis instead of Addr
	TLS  *tls.Config                                 // if set, TLS to Redis (the proxies stay plain)
	// Username, Password and DB log every connection to Redis in; the
	// lock under test never sees them (see Client.Password).
	Username     string
	Password     string
	DB           int
	New          Factory       // builds the strategy under test
	Key          string        // unique to this check: prefixes every key used
	Timeout      time.Duration // the watchdog's bound on each property; 30s if 0
	Timing       Timing
	Masters      int           // masters a lock such as Redlock spans (Client.Pools); 0, 1: one
	RestartDelay time.Duration // how long restart-amnesia's master stays down

	perms   *sim.Permissions // the NOPERMs of the check under way; nil outside one
	noLogin *atomic.Bool     // set when a proxy answered NOAUTH during the check
}

// Client is what the suite gives a Factory for one simulated client:
// every command of it must go to Addr, where the suite watches it.
type Client struct {
	Name     string        // "A", "B", ...
	Addr     string        // the client's own loopback proxy to Redis (RESP2, RESP3)
	Password string        // the client's own secret for Addr, not the server's
	Pool     strategy.Pool // logged-in redigo connections to Addr
	// Clock is the client's clock, Skew ahead of the real time; a lock
	// that reads the time must read it here.
	Clock strategy.Clock
	Skew  time.Duration
	// Addrs and Pools hold a proxy per master (Config.Masters); on one
	// Redis, Addr and Pool alone.
	Addrs []string
	Pools []strategy.Pool

	c *sim.Client
}

// Cleanup registers f to release, once the client's run is over, what the
// factory built (a client of another library, a process); last in, first run.
func (c Client) Cleanup(f func()) { c.c.AddCleanup(f) }

// OnCrash registers f to run when the suite crashes the client, after its
// connections are cut: to kill what they do not end, such as a process.
func (c Client) OnCrash(f func()) { c.c.AddOnCrash(f) }

// clientOf is the Client a factory is given for what the run made.
func clientOf(i sim.ClientInfo) Client {
	return Client{Name: i.Name, Addr: i.Addr, Password: i.Password, Pool: i.Pool, Clock: i.Clock, Skew: i.Skew,
		Addrs: i.Addrs, Pools: i.Pools, c: i.C}
}

// setting is what the runs of a check take of cfg.
func (cfg Config) setting() harness.Setting {
	return harness.Setting{Dial: cfg.dialer(), Perms: cfg.perms, NoLogin: cfg.noLogin, Tm: sim.Timing(cfg.Timing),
		Masters: cfg.Masters, RestartDelay: cfg.RestartDelay,
		Factory: func(i sim.ClientInfo) (strategy.Strategy, error) { return cfg.New(clientOf(i)) }}
}

// Timing is the scenarios' time scale; a zero field takes its default.
type Timing struct {
	Granularity time.Duration // the lock's step of TTL; what it announces (strategy.Granular), else 1ms
	Short       time.Duration // a TTL meant to run out during a scenario; 60ms
	Long        time.Duration // a TTL that must not run out; 5s
	Slack       time.Duration // how long past a TTL a waiter keeps trying; 500ms
	Poll        time.Duration // how often a waiter tries again; 5ms
}

// Resolved returns t with its defaults filled in and its TTLs rounded to
// its granularity: the figures a check runs with.
func (t Timing) Resolved() Timing { return Timing(sim.Timing(t).WithDefaults()) }

// timeout is the watchdog's bound on a property, a contract check or
// Detect: Config.Timeout, or 30s and twenty times the Short TTL beyond its
// default (50s at a scale of seconds).
func (cfg Config) timeout() time.Duration {
	if cfg.Timeout <= 0 {
		return 30*time.Second + 20*max(0, cfg.Timing.Resolved().Short-60*time.Millisecond)
	}
	return cfg.Timeout
}
