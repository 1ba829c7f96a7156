package rwlua

import (
	"errors"
	"time"

	"github.com/locklab/locklab/strategy/internal/tokenset"
)

// ErrInvalidOption means New was given an option with a value it cannot use,
// such as a negative renewal interval or WithMaxHold without WithAutoRenew.
var ErrInvalidOption = errors.New("rwlua: invalid option")

// Option configures a Strategy; pass options to New.
type Option func(*config)

type config struct {
	tokenset.Config
	intent time.Duration
}

// DefaultWriterIntent is the intent TTL when WithWriterIntent does not say.
const DefaultWriterIntent = 2 * time.Second

// WithWriterIntent sets the policy. With d > 0 (the default is
// DefaultWriterIntent), writers come first: a write attempt that finds the
// lock held registers the Strategy's intent to write, which lives d by the
// server's clock and is renewed by each failed attempt, and no new reader
// enters while an intent lives. The readers that hold the lock finish, and
// the writer gets in at its first attempt after the last of them has left
// (at once with WithNotify): readers cannot starve a writer. d must outlast
// the longest wait between a writer's attempts (its Retry's delays), or
// readers slip in between them; a writer that gives up leaves its intent
// to expire, keeping readers out for d at most.
//
// With d == 0, readers come first: a reader enters whenever no writer
// holds the lock, and a stream of overlapping readers keeps writers out
// for as long as it lasts.
func WithWriterIntent(d time.Duration) Option {
	return func(c *config) {
		switch {
		case d < 0:
			c.Fail("writer intent %v is negative", d)
		case d > 0 && d < time.Millisecond:
			c.Fail("writer intent %v is below 1ms, the smallest TTL Redis can express", d)
		default:
			c.intent = d
		}
	}
}

// WithAutoRenew makes every hold renew itself while held: a goroutine per
// hold extends it to its full TTL every interval (0: a third of the TTL
// less the lease margin), and its Lease reports true and ends the moment
// the hold may have been lost, as luatoken.WithAutoRenew does for a mutex.
// A renewal extends this holder's own member only. Release stops the
// renewal before it removes the member, and returns once the renewal
// goroutine has stopped: nothing is renewed after Release returns.
// Renewal stops at the maximum hold time (WithMaxHold, default
// DefaultMaxHold). TryAcquire and TryAcquireShared fail with an
// error matching strategy.ErrInvalidTTL when the interval is not shorter
// than the TTL less the lease margin.
func WithAutoRenew(every time.Duration) Option {
	return func(c *config) { c.AutoRenew(every) }
}

// DefaultMaxHold is how long a renewing hold is held at most when
// WithMaxHold does not say.
const DefaultMaxHold = tokenset.DefaultMaxHold

// WithMaxHold caps how long a renewing hold is held (default
// DefaultMaxHold): d after it was taken, renewal stops and the Lease ends
// with ErrMaxHold. It requires WithAutoRenew; d must be positive.
func WithMaxHold(d time.Duration) Option {
	return func(c *config) { c.MaxHold(d) }
}

// WithLeaseMargin sets how long before the hold can expire in Redis a
// renewing hold's Lease ends when no renewal has got through (default 2ms
// plus 1% of the TTL). d must not be negative.
func WithLeaseMargin(d time.Duration) Option {
	return func(c *config) { c.LeaseMargin(d) }
}

// WithNotify makes the release that leaves the lock free announce itself
// on ChannelName(key), in the same script, and makes strategy.Acquire (for
// readers through strategy.Reader) wake at once rather than at its next
// retry, whichever process released; every waiter of the Strategy wakes.
// Without it, only the releases through the same Strategy wake its
// waiters (see the package's "Waking in the process"). Holds and intents that expire are not announced: their waiters
// find out at their next retry. The waiters of a Strategy share one
// Pub/Sub connection from its pool while anyone waits: a pool with
// MaxActive must leave room for it.
func WithNotify() Option {
	return func(c *config) { c.Notify = true }
}

// Causes of the end of a lease, as found with errors.Is in
// context.Cause(lock.Lease()), which is always a *LeaseError.
var (
	ErrLeaseLost    = tokenset.ErrLeaseLost    // lost: the holder must stop; also strategy.ErrNotHeld
	ErrLeaseExpired = tokenset.ErrLeaseExpired // no renewal got through before the deadline
	ErrMaxHold      = tokenset.ErrMaxHold      // held for the maximum hold time
	ErrReleased     = tokenset.ErrReleased     // Release was called
)

// LeaseError is the cause of the end of a lease: it matches ErrLeaseLost
// and strategy.ErrNotHeld unless the lease ended by Release or at the
// maximum hold time.
type LeaseError = tokenset.LeaseError
