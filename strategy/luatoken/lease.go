package luatoken

import (
	"errors"
	"strconv"

	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/lease"
)

// Causes of the end of a lease, as found with errors.Is in
// context.Cause(lock.Lease()), which is always a *LeaseError.
var (
	// ErrLeaseLost is the cause of a lease that ended without the holder
	// asking: the lock was found gone or someone else's, the server refused
	// a renewal, or ErrLeaseExpired. The holder must stop the work the lock
	// protects.
	ErrLeaseLost = errors.New("luatoken: lease lost")

	// ErrLeaseExpired is the cause of a lease whose renewals did not get
	// through before its deadline, which comes a margin before the key can
	// expire in Redis. The lock may still be there, but nothing says so any
	// more.
	ErrLeaseExpired = errors.New("luatoken: lease expired before a renewal got through")

	// ErrMaxHold is the cause of a lease that ended because the lock was
	// held for its maximum hold time (WithMaxHold, or DefaultMaxHold).
	ErrMaxHold = errors.New("luatoken: maximum hold time reached")

	// ErrReleased is the cause of a lease that ended because Release was
	// called.
	ErrReleased = errors.New("luatoken: lock released")
)

// LeaseError is the cause of the end of a lease. It matches ErrLeaseLost
// and strategy.ErrNotHeld unless the lease ended by Release (ErrReleased) or
// at the maximum hold time (ErrMaxHold), and it unwraps to Err and Last.
type LeaseError struct {
	Key string
	// Err is ErrReleased, ErrMaxHold, ErrLeaseExpired, or the error of the
	// renewal that proved the lock lost (a *strategy.OpError matching
	// strategy.ErrNotHeld when the lock was gone or someone else's).
	Err error
	// Last is, for ErrLeaseExpired, the error of the last renewal that
	// failed before the deadline, if any.
	Last error
}

func (e *LeaseError) Error() string {
	msg := name + ": lease on " + strconv.Quote(e.Key)
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

// leaseCause makes the causes of the end of the lease of a lock on key.
func leaseCause(key string) lease.CauseFunc {
	return func(r lease.Reason, err error) error {
		switch r {
		case lease.Expired:
			return &LeaseError{Key: key, Err: ErrLeaseExpired, Last: err}
		case lease.MaxHold:
			return &LeaseError{Key: key, Err: ErrMaxHold}
		case lease.Released:
			return &LeaseError{Key: key, Err: ErrReleased}
		}
		return &LeaseError{Key: key, Err: err}
	}
}
