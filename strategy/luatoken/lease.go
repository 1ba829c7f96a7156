package luatoken

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/locklab/locklab/strategy"
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

// lease is the renewal state of a lock made with WithAutoRenew.
//
// The lease deadline is the send time of the last command known to have set
// the key's TTL (the acquire, a renewal, a Refresh) plus that TTL, less the
// margin: Redis starts counting a TTL when it runs the command, never
// before it was sent, so the key cannot expire before that moment (while
// the server's clock runs true). A timer
// ends the lease at the deadline whatever the renewals are doing, so a
// holder whose renewals are stuck (a network stall, a blocked pool) sees its
// context end before the key can expire and the lock pass to someone else.
// Since refresh.lua never shortens a TTL, every success only moves the
// deadline later, and renewals and Refresh calls need no ordering.
type lease struct {
	l       *Lock
	cfg     *config
	ctx     context.Context
	cancel  context.CancelCauseFunc
	ttl     time.Duration // the TTL every renewal sets
	every   time.Duration
	holdEnd time.Time     // when the maximum hold time is reached
	done    chan struct{} // closed when the renewal goroutine returns

	mu       sync.Mutex
	ended    bool
	deadline time.Time
	lastErr  error       // the last renewal error since the last success
	expiry   *time.Timer // ends the lease at deadline
	hold     *time.Timer // ends the lease at holdEnd
}

// startLease sets l.lease and starts renewing l, taken with a command sent
// at sent. The lease keeps the values of ctx but not its cancellation: it
// lasts until the lock is lost or released, or the maximum hold time is
// reached.
func startLease(ctx context.Context, l *Lock, cfg *config, sent time.Time, ttl time.Duration) {
	lctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	le := &lease{
		l:       l,
		cfg:     cfg,
		ctx:     lctx,
		cancel:  cancel,
		ttl:     ttl,
		every:   cfg.interval(ttl),
		holdEnd: sent.Add(cfg.maxHold),
		done:    make(chan struct{}),
	}
	le.mu.Lock() // the timers' functions wait for the lease to be complete
	le.deadline = sent.Add(ttl - cfg.leaseMargin(ttl))
	le.expiry = time.AfterFunc(time.Until(le.deadline), le.expire)
	le.hold = time.AfterFunc(time.Until(le.holdEnd), func() {
		le.end(&LeaseError{Key: l.key, Err: ErrMaxHold})
	})
	le.mu.Unlock()
	// Set before the renewal goroutine starts, which reads it.
	l.lease = le
	go le.renew()
}

// end ends the lease with cause, unless it has ended already.
func (le *lease) end(cause error) {
	le.cancel(cause)
	le.mu.Lock()
	if !le.ended {
		le.ended = true
		le.expiry.Stop()
		le.hold.Stop()
	}
	le.mu.Unlock()
}

// expire ends the lease at its deadline. A deadline at the maximum hold
// time (renewals stop extending the key there) is the hold's end.
func (le *lease) expire() {
	le.mu.Lock()
	cause := &LeaseError{Key: le.l.key, Err: ErrLeaseExpired, Last: le.lastErr}
	if !time.Now().Before(le.holdEnd) {
		cause = &LeaseError{Key: le.l.key, Err: ErrMaxHold}
	}
	le.mu.Unlock()
	le.end(cause)
}

// extended moves the deadline after a command sent at sent made the key live
// at least ttl.
func (le *lease) extended(sent time.Time, ttl time.Duration) {
	dl := sent.Add(ttl - le.cfg.leaseMargin(ttl))
	le.mu.Lock()
	defer le.mu.Unlock()
	le.lastErr = nil
	if le.ended || !dl.After(le.deadline) {
		return
	}
	if !le.expiry.Stop() {
		return // the deadline passed: expire is ending the lease
	}
	le.deadline = dl
	le.expiry.Reset(time.Until(dl))
}

// renew is the renewal goroutine; it returns when the lease ends.
func (le *lease) renew() {
	defer close(le.done)
	t := time.NewTimer(le.every)
	defer t.Stop()
	failures := 0
	for {
		select {
		case <-le.ctx.Done():
			return
		case <-t.C:
		}
		// Make the key outlive the maximum hold time by the margin only,
		// so that the lease deadline falls at the hold end, not before.
		left := time.Until(le.holdEnd)
		ttl := min(le.ttl, left+le.cfg.leaseMargin(le.ttl))
		if left <= 0 || ttl < time.Millisecond {
			<-le.ctx.Done() // the hold timer ends the lease
			return
		}
		start := time.Now()
		err := le.renewOnce(ttl)
		if err == nil {
			failures = 0
			t.Reset(time.Until(start.Add(le.every)))
			continue
		}
		if le.ctx.Err() != nil {
			return
		}
		if permanent(err) {
			le.end(&LeaseError{Key: le.l.key, Err: err})
			return
		}
		le.mu.Lock()
		le.lastErr = err
		le.mu.Unlock()
		failures++
		t.Reset(retryDelay(failures, le.every))
	}
}

// renewOnce sends one renewal, given up at the lease deadline.
func (le *lease) renewOnce(ttl time.Duration) error {
	le.mu.Lock()
	dl := le.deadline
	le.mu.Unlock()
	ctx, cancel := context.WithDeadline(le.ctx, dl)
	defer cancel()
	return le.l.extend(ctx, ttl)
}

// retryDelay is the wait before retrying a renewal that failed failures times
// in a row: 5ms doubling, at most a quarter of the renewal interval.
func retryDelay(failures int, every time.Duration) time.Duration {
	d := 5 * time.Millisecond << min(failures-1, 10)
	return max(min(d, every/4), time.Millisecond)
}
