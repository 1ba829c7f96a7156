package luatoken

import (
	"errors"
	"fmt"
	"time"

	"github.com/locklab/locklab/strategy/internal/lease"
)

// ErrInvalidOption is returned when New is given an option with a value it cannot use,
// such as a negative renewal interval or WithMaxHold without WithAutoRenew.
var ErrInvalidOption = errors.New("luatoken: invalid option")

// Option configures a Strategy; pass options to New.
type Option func(*config)

type config struct {
	lease   lease.Config
	fencing bool
	notify  bool
	err     error // the first bad option
}

func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
}

// WithAutoRenew makes every lock renew itself while held: a goroutine per
// lock extends it to its full TTL every interval, and its Lease reports
// true. An interval of 0 means a third of the TTL given to TryAcquire less
// the lease margin (see WithLeaseMargin): the time from a renewal to the
// lease deadline holds three intervals. Its Lease context ends the moment
// the lock may have been lost: a renewal found it gone or someone else's,
// or no renewal got through before the lease deadline (see
// WithLeaseMargin). Failed renewals that may pass (a network error, a
// timeout) are retried until then. Release stops the renewal.
//
// Renewal stops at the maximum hold time, DefaultMaxHold after the lock was
// taken unless WithMaxHold sets another, even if Release is never called: a
// forgotten lock is not renewed for ever. The context given to TryAcquire
// does not end the lease (it usually bounds the wait for the lock, not the
// work under it).
//
// TryAcquire fails with an error matching strategy.ErrInvalidTTL when the
// interval is not shorter than the TTL less the lease margin: the lease
// would end before the first renewal.
func WithAutoRenew(every time.Duration) Option {
	return func(c *config) {
		if every < 0 {
			c.fail("renewal interval %v is negative", every)
			return
		}
		c.lease.Renew, c.lease.Every = true, every
	}
}

// DefaultMaxHold is how long a renewing lock is held at most when
// WithMaxHold does not say: after it, renewal stops and the lease ends with
// ErrMaxHold, as with WithMaxHold.
const DefaultMaxHold = 10 * time.Minute

// defaultMaxHold is DefaultMaxHold; tests shorten it.
var defaultMaxHold = DefaultMaxHold

// WithMaxHold caps how long a renewing lock is held (default
// DefaultMaxHold): d after it was taken, renewal stops and the Lease
// context ends with ErrMaxHold as its cause. Renewals stop extending the
// key there (they leave it the lease margin beyond, so that the lease
// deadline falls at the hold end), so a holder that does not release it
// leaves it to expire soon after. It requires WithAutoRenew; d must be
// positive.
func WithMaxHold(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.fail("maximum hold time %v is not positive", d)
			return
		}
		c.lease.MaxHold = d
	}
}

// WithLeaseMargin sets how long before the key can expire in Redis a
// renewing lock's Lease ends when no renewal has got through: the lease
// deadline is the time the last successful renewal (or the acquire) was sent,
// plus its TTL, less this margin. The default is 2ms plus 1% of the TTL, for
// clock drift and timer latency; raise it when the work under the lock
// needs time to notice the end of its context. d must not be negative.
func WithLeaseMargin(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.fail("lease margin %v is negative", d)
			return
		}
		c.lease.Margin, c.lease.MarginSet = d, true
	}
}

// WithFencing makes each TryAcquire draw a fencing token in the same script
// as its SET NX PX: an INCR of a counter key beside the lock key (see
// FenceKey), run only when the lock was taken. The token increases strictly
// with every acquisition of the key, by any client using WithFencing, as
// long as the counter survives (see strategy.Fenced); a lock's
// FencingToken returns it. The counter key is never deleted.
func WithFencing() Option {
	return func(c *config) { c.fencing = true }
}

// WithNotify makes Release announce itself, and makes strategy.Acquire wake
// at once when the lock it waits for is released rather than at its next
// retry: Release publishes on a channel named after the key (see
// ChannelName) in the same script as its compare-and-delete, and Subscribe
// listens on one connection shared by every waiter of the Strategy. That
// connection comes from the Strategy's pool while anyone waits: a pool with
// MaxActive must leave room for it.
func WithNotify() Option {
	return func(c *config) { c.notify = true }
}

func (c *config) check() error {
	if c.err != nil {
		return c.err
	}
	return c.lease.Check(ErrInvalidOption, defaultMaxHold)
}
