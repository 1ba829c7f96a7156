package semlua

import (
	"errors"
	"time"

	"github.com/locklab/locklab/strategy/internal/tokenset"
)

// ErrInvalidOption means New was given an option with a value it cannot use,
// such as a negative renewal interval or WithMaxHold without WithAutoRenew.
var ErrInvalidOption = errors.New("semlua: invalid option")

// Option configures a Strategy; pass options to New.
type Option func(*config)

type config struct {
	tokenset.Config
}

// WithAutoRenew makes every hold renew itself while held: a goroutine per
// hold extends its permits to their full TTL every interval (0: a third
// of the TTL less the lease margin), and its Lease reports true and ends
// the moment the hold may have been lost, as luatoken.WithAutoRenew does
// for a mutex. A renewal extends this holder's own permits only. Release
// stops the renewal before it gives the permits back, and returns once the
// renewal goroutine has stopped. Renewal stops at the maximum hold time
// (WithMaxHold, default DefaultMaxHold). TryAcquire and TryAcquireN fail
// with an error matching strategy.ErrInvalidTTL when the interval is not
// shorter than the TTL less the lease margin.
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

// WithNotify makes every Release announce itself on ChannelName(key), in
// the same script, and makes strategy.Acquire wake at once rather than at
// its next retry: a release of n permits wakes n waiters of each Strategy,
// those waiting longest. The waiters of a Strategy share one Pub/Sub
// connection from its pool while anyone waits: a pool with MaxActive must
// leave room for it.
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
