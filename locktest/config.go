package locktest

import (
	"context"
	"crypto/tls"
	"net"
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

	perms *permissions // the NOPERMs of the check under way; nil outside one
}

// Timing is the time scale of the scenarios; a zero field takes its
// default. A lock that rounds TTLs up to seconds (EX) needs, for example,
// Timing{Short: time.Second, Slack: 1500 * time.Millisecond}.
type Timing struct {
	Short time.Duration // a TTL meant to run out during a scenario; 60ms
	Long  time.Duration // a TTL that must not run out; 5s
	Slack time.Duration // how long past a TTL a waiter keeps trying; 500ms
	Poll  time.Duration // how often a waiter tries again; 5ms
}

// WithDefaults returns t with its zero fields at their defaults: the time
// scale a check with t runs at.
func (t Timing) WithDefaults() Timing { return t.withDefaults() }

// withDefaults fills the zero fields of t.
func (t Timing) withDefaults() Timing {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.Short, 60*time.Millisecond)
	def(&t.Long, 5*time.Second)
	def(&t.Slack, 500*time.Millisecond)
	def(&t.Poll, 5*time.Millisecond)
	return t
}

// renewedTTL is the TTL of renewed-overrun's holder: long enough that a renewal
// every third of it, and the detector's bookkeeping, are far inside it.
func (t Timing) renewedTTL() time.Duration { return 5 * t.Short }

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
// Detect: Config.Timeout, or 30s.
func (cfg Config) timeout() time.Duration {
	if cfg.Timeout <= 0 {
		return 30 * time.Second
	}
	return cfg.Timeout
}
