package locktest

import (
	"context"
	"crypto/tls"
	"net"
	"sync/atomic"
	"time"

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

	perms   *permissions // the NOPERMs of the check under way; nil outside one
	noLogin *atomic.Bool // set when a proxy answered NOAUTH during the check
}

// Timing is the time scale of the scenarios; a zero field takes its
// default, scaled to Granularity, and every TTL is a whole multiple of it.
type Timing struct {
	Granularity time.Duration // the lock's step of TTL; what it announces (strategy.Granular), else 1ms
	Short       time.Duration // a TTL meant to run out during a scenario; 60ms
	Long        time.Duration // a TTL that must not run out; 5s
	Slack       time.Duration // how long past a TTL a waiter keeps trying; 500ms
	Poll        time.Duration // how often a waiter tries again; 5ms
}

// withDefaults fills the zero fields of t, and rounds its TTLs up to
// whole multiples of its granularity.
//
// The granularity is the smallest step in which the lock under test can
// express a TTL: a millisecond for a lock that sends PX, a second for one
// that sends EX or counts whole seconds. Every TTL the suite asks for is a
// whole multiple of it (a field given that is not one is rounded up to
// one), so that a lock never has to round what it is asked and no verdict
// is an artefact of rounding. A zero Granularity is the one the lock
// announces (strategy.Granular, or an -exec program's ready line), which
// Run, RunConfig and lockcheck adopt after Detect, else a millisecond.
//
// The defaults at a granularity g:
//
//	Short = 60ms rounded up to a multiple of g     (60ms at 1ms, 1s at 1s)
//	Long  = 5s rounded up to a multiple of g       (5s)
//	Slack = the larger of 500ms and g               (500ms at 1ms, 1s at 1s)
//	Poll  = the larger of 5ms and g/200             (5ms)
func (t Timing) withDefaults() Timing {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.Granularity, time.Millisecond)
	def(&t.Short, 60*time.Millisecond)
	def(&t.Long, 5*time.Second)
	def(&t.Slack, max(500*time.Millisecond, t.Granularity))
	def(&t.Poll, max(5*time.Millisecond, t.Granularity/200))
	t.Short, t.Long = t.ttl(t.Short), t.ttl(t.Long)
	return t
}

// ttl rounds d up to a whole multiple of the granularity, one at least:
// the TTL the suite asks for where a scenario wants about d.
func (t Timing) ttl(d time.Duration) time.Duration {
	g := max(t.Granularity, time.Millisecond)
	return max(g, (d+g-1)/g*g)
}

// Resolved returns t with its defaults filled in and its TTLs rounded to
// its granularity: the figures a check runs with.
func (t Timing) Resolved() Timing { return t.withDefaults() }

// renewedTTL is the TTL of renewed-overrun's holder: long enough that a renewal
// every third of it, and the detector's bookkeeping, are far inside it.
func (t Timing) renewedTTL() time.Duration { return 5 * t.Short }

// keptShort is the TTL of lease-kept's late probes: a tenth of its TTL,
// as a whole multiple of the granularity.
func (t Timing) keptShort() time.Duration { return t.ttl(t.kept() / 10) }

// kept is the holder's TTL in lease-kept: long enough for many probes.
func (t Timing) kept() time.Duration { return 5 * t.Short }

// keptTolerance is how long before the end of lease-kept's TTL its probes
// stop: a tenth of the TTL, and at least a third of Short.
func (t Timing) keptTolerance() time.Duration { return max(t.kept()/10, t.Short/3) }

// staleAfter is how long past its TTL a lock is waited on before it is
// called stale: timestamps count whole milliseconds and clocks tick apart.
func (t Timing) staleAfter() time.Duration { return t.Short / 3 }

// outlast is an interval between a waiter's attempts just longer than ttl:
// a key that each attempt sets to ttl (an acquire that writes even when it
// fails) can expire between two of them.
func (t Timing) outlast(ttl time.Duration) time.Duration { return ttl + 2*t.Poll }

// timeout is the watchdog's bound on a property, a contract check or
// Detect: Config.Timeout, or 30s and twenty times the Short TTL beyond its
// default (50s at a scale of seconds).
func (cfg Config) timeout() time.Duration {
	if cfg.Timeout <= 0 {
		return 30*time.Second + 20*max(0, cfg.Timing.withDefaults().Short-60*time.Millisecond)
	}
	return cfg.Timeout
}
