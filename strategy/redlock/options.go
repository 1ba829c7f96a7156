package redlock

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/locklab/locklab/strategy"
)

// ErrInvalidOption is returned when New is given an option with a value it
// cannot use, such as a negative drift factor or a nil clock.
var ErrInvalidOption = errors.New("redlock: invalid option")

// Defaults of the options.
const (
	// DefaultDriftFactor is the part of the TTL allowed for the drift
	// between the clocks of the client and the nodes (1%); 2ms more are
	// always allowed for the millisecond precision of Redis expiries.
	DefaultDriftFactor = 0.01
	// DefaultRetryDelay is the base of the random wait between the
	// attempts of Strategy.Acquire.
	DefaultRetryDelay = 50 * time.Millisecond
)

// fixedDrift is allowed on top of the drift factor: Redis expires keys
// with a precision of one millisecond, and PX counts whole milliseconds.
const fixedDrift = 2 * time.Millisecond

// Option configures a Strategy; pass options to New.
type Option func(*config)

type config struct {
	driftFactor float64
	clock       strategy.Clock
	nodeTimeout time.Duration // 0: a tenth of the TTL
	retryDelay  time.Duration
	err         error // the first bad option
}

func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
}

// WithDriftFactor sets the part of the TTL taken off a lock's validity
// for the drift between clocks: the validity is the TTL, less the time the
// acquire took, less f times the TTL, less 2ms. The default is
// DefaultDriftFactor (1%). f must be at least 0 and below 1.
func WithDriftFactor(f float64) Option {
	return func(c *config) {
		if !(f >= 0 && f < 1) {
			c.fail("drift factor %v is not in [0, 1)", f)
			return
		}
		c.driftFactor = f
	}
}

// WithClock sets the clock that times the acquire and the validity
// (strategy.SystemClock by default). It must not be nil.
func WithClock(clock strategy.Clock) Option {
	return func(c *config) {
		if clock == nil {
			c.fail("nil clock")
			return
		}
		c.clock = clock
	}
}

// WithNodeTimeout bounds how long one master may take to answer the SET
// of an acquire attempt, connecting included, so that a master that is
// down or hangs costs the attempt little of its validity. The default is a
// tenth of the TTL, but at least 50ms, and no more than the TTL less the
// drift allowance (past that, the attempt could not succeed anyway). A
// master that has not answered by then counts as a master not locked.
// Release and Refresh are bounded by their context only. d must be
// positive.
func WithNodeTimeout(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.fail("node timeout %v is not positive", d)
			return
		}
		c.nodeTimeout = d
	}
}

// WithRetryDelay sets the base of the random wait between the attempts of
// Strategy.Acquire: each wait is drawn from [d, 2d), so that clients that
// failed together (none reaching a quorum) try again apart. The default is
// DefaultRetryDelay. d must be positive.
func WithRetryDelay(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.fail("retry delay %v is not positive", d)
			return
		}
		c.retryDelay = d
	}
}

func newConfig(opts []Option) (config, error) {
	c := config{driftFactor: DefaultDriftFactor, clock: strategy.SystemClock, retryDelay: DefaultRetryDelay}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c, c.err
}

// drift is what a lock of this TTL loses of its validity to clock drift.
func (c *config) drift(ttl time.Duration) time.Duration {
	return time.Duration(c.driftFactor*float64(ttl)) + fixedDrift
}

// minNodeTimeout is the least default node timeout: a tenth of a short
// TTL leaves no time to open a connection on a loaded machine.
const minNodeTimeout = 50 * time.Millisecond

// timeout is how long one master may take to answer the SET of an attempt
// on a lock of this TTL.
func (c *config) timeout(ttl time.Duration) time.Duration {
	if c.nodeTimeout > 0 {
		return c.nodeTimeout
	}
	return min(max(ttl/10, minNodeTimeout), ttl-c.drift(ttl))
}

// jitter is the Retry of Strategy.Acquire: a random wait in [d, 2d) after
// every failed attempt, until the context ends.
type jitter time.Duration

func (j jitter) Delay(int) (time.Duration, bool) {
	d := time.Duration(j)
	return d + rand.N(d), true
}
