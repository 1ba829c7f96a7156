package tokenset

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/lease"
)

// Config holds the options the token-set locks share. Each package's
// options call its methods, which record the first bad value.
type Config struct {
	Lease  lease.Config
	Notify bool
	// Invalid is the package's ErrInvalidOption; Err the first bad option.
	Invalid error
	Err     error
}

// Fail records a bad option.
func (c *Config) Fail(format string, args ...any) {
	if c.Err == nil {
		c.Err = fmt.Errorf("%w: "+format, append([]any{c.Invalid}, args...)...)
	}
}

// AutoRenew is WithAutoRenew.
func (c *Config) AutoRenew(every time.Duration) {
	if every < 0 {
		c.Fail("renewal interval %v is negative", every)
		return
	}
	c.Lease.Renew, c.Lease.Every = true, every
}

// MaxHold is WithMaxHold.
func (c *Config) MaxHold(d time.Duration) {
	if d <= 0 {
		c.Fail("maximum hold time %v is not positive", d)
		return
	}
	c.Lease.MaxHold = d
}

// LeaseMargin is WithLeaseMargin.
func (c *Config) LeaseMargin(d time.Duration) {
	if d < 0 {
		c.Fail("lease margin %v is negative", d)
		return
	}
	c.Lease.Margin, c.Lease.MarginSet = d, true
}

// DefaultMaxHold is how long a renewing hold is held at most when
// WithMaxHold does not say.
const DefaultMaxHold = 10 * time.Minute

func (c *Config) check() error {
	if c.Err != nil {
		return c.Err
	}
	return c.Lease.Check(c.Invalid, DefaultMaxHold)
}

// Causes of the end of a lease, as found with errors.Is in
// context.Cause(lock.Lease()), which is always a *LeaseError.
var (
	// ErrLeaseLost: the lease ended without the holder asking: the hold
	// was found gone, the server refused a renewal, or ErrLeaseExpired.
	// The holder must stop the work the lock protects.
	ErrLeaseLost = errors.New("locklab: lease lost")
	// ErrLeaseExpired: no renewal got through before the lease deadline,
	// which comes a margin before the hold can expire in Redis.
	ErrLeaseExpired = errors.New("locklab: lease expired before a renewal got through")
	// ErrMaxHold: the hold was held for its maximum hold time.
	ErrMaxHold = errors.New("locklab: maximum hold time reached")
	// ErrReleased: Release was called.
	ErrReleased = errors.New("locklab: lock released")
)

// LeaseError is the cause of the end of a lease. It matches ErrLeaseLost
// and strategy.ErrNotHeld unless the lease ended by Release (ErrReleased)
// or at the maximum hold time (ErrMaxHold), and it unwraps to Err and
// Last.
type LeaseError struct {
	Strategy string
	Key      string
	// Err is ErrReleased, ErrMaxHold, ErrLeaseExpired, or the error of the
	// renewal that proved the hold lost.
	Err error
	// Last is, for ErrLeaseExpired, the error of the last renewal that
	// failed before the deadline, if any.
	Last error
}

func (e *LeaseError) Error() string {
	msg := e.Strategy + ": lease on " + strconv.Quote(e.Key)
	if e.lost() {
		msg += " lost"
	} else {
		msg += " ended"
	}
	msg += ": " + e.Err.Error()
	if e.Last != nil {
		msg += " (last renewal: " + e.Last.Error() + ")"
	}
	return msg
}

func (e *LeaseError) lost() bool { return e.Err != ErrReleased && e.Err != ErrMaxHold }

// Is reports whether the lease was lost, for ErrLeaseLost and
// strategy.ErrNotHeld.
func (e *LeaseError) Is(target error) bool {
	return (target == ErrLeaseLost || target == strategy.ErrNotHeld) && e.lost()
}

// Unwrap returns Err and Last.
func (e *LeaseError) Unwrap() []error {
	if e.Last == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Last}
}

// leaseCause makes the causes of the end of the lease of a hold on key.
func (b *Base) leaseCause(key string) lease.CauseFunc {
	return func(r lease.Reason, err error) error {
		e := &LeaseError{Strategy: b.Name, Key: key, Err: err}
		switch r {
		case lease.Expired:
			e.Err, e.Last = ErrLeaseExpired, err
		case lease.MaxHold:
			e.Err = ErrMaxHold
		case lease.Released:
			e.Err = ErrReleased
		}
		return e
	}
}
