// Package lease holds the auto-renewal that the strategies' WithAutoRenew
// options share: a goroutine per lock that extends it while held, and a
// context, the lease, that ends the moment the lock may have been lost.
// Each strategy gives it the command that extends its lock and the causes
// it reports, in its own error types.
package lease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

// Reason is why a lease ended, which a strategy's CauseFunc turns into the
// cause its users see.
type Reason int

// The reasons a lease ends.
const (
	// Lost: a renewal proved the lock lost (err is its error: gone or
	// someone else's, or refused by the server; see Permanent).
	Lost Reason = iota
	// Expired: no renewal got through before the lease deadline (err is
	// the last renewal's error, if any).
	Expired
	// MaxHold: the lock was held for its maximum hold time.
	MaxHold
	// Released: the holder released the lock.
	Released
)

// CauseFunc makes the cause of the end of a lease, from its reason and an
// error (see Reason).
type CauseFunc func(r Reason, err error) error

// Config is the auto-renewal a strategy's options set.
type Config struct {
	Renew     bool
	Every     time.Duration // 0: (ttl - margin)/3
	MaxHold   time.Duration // 0: the strategy's default, set by Check
	Margin    time.Duration
	MarginSet bool
}

// Check fills in the default maximum hold time, and checks that a maximum
// hold time comes with renewal; bad is the strategy's ErrInvalidOption.
func (c *Config) Check(bad error, defaultMaxHold time.Duration) error {
	if c.MaxHold > 0 && !c.Renew {
		return fmt.Errorf("%w: WithMaxHold needs WithAutoRenew", bad)
	}
	if c.Renew && c.MaxHold == 0 {
		c.MaxHold = defaultMaxHold
	}
	return nil
}

// LeaseMargin is the lease margin for a TTL: 2ms plus 1% of the TTL unless
// set.
func (c *Config) LeaseMargin(ttl time.Duration) time.Duration {
	if c.MarginSet {
		return c.Margin
	}
	return 2*time.Millisecond + ttl/100
}

// Interval is the renewal interval for a TTL: by default a third of the
// time a renewal leaves until the lease deadline, so that two renewals can
// be late or fail before the lease is lost.
func (c *Config) Interval(ttl time.Duration) time.Duration {
	if c.Every > 0 {
		return c.Every
	}
	return (ttl - c.LeaseMargin(ttl)) / 3
}

// CheckTTL checks that a lock of this TTL can renew itself in time; name
// is the strategy's, for the error, which matches strategy.ErrInvalidTTL.
func (c *Config) CheckTTL(name string, ttl time.Duration) error {
	every, margin := c.Interval(ttl), c.LeaseMargin(ttl)
	if every < ttl-margin && every > 0 {
		return nil
	}
	if c.Every == 0 {
		// The interval is derived: name what the user chose, the TTL.
		return fmt.Errorf("%s: %w: a TTL of %v is too short to renew: the lease margin (%v) leaves no time for renewals before the lease deadline",
			name, strategy.ErrInvalidTTL, ttl, margin)
	}
	if every >= ttl {
		return fmt.Errorf("%s: %w: renewal interval %v is not shorter than the TTL %v",
			name, strategy.ErrInvalidTTL, every, ttl)
	}
	return fmt.Errorf("%s: %w: renewal interval %v does not leave room before the lease deadline (TTL %v less margin %v)",
		name, strategy.ErrInvalidTTL, every, ttl, margin)
}

// ExtendFunc extends the lock to live at least ttl from now, and returns
// an error matching strategy.ErrNotHeld when it is gone or someone
// else's.
type ExtendFunc func(ctx context.Context, ttl time.Duration) error

// Lease is the renewal state of a lock made with WithAutoRenew.
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
type Lease struct {
	extend  ExtendFunc
	cause   CauseFunc
	cfg     *Config
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

// Start starts renewing a lock taken with a command sent at sent, that
// made it live ttl: every renewal calls extend. The lease keeps the values
// of ctx but not its cancellation: it lasts until the lock is lost or
// released, or the maximum hold time is reached; cause makes the causes
// it ends with.
func Start(ctx context.Context, cfg *Config, sent time.Time, ttl time.Duration, extend ExtendFunc, cause CauseFunc) *Lease {
	lctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	le := &Lease{
		extend:  extend,
		cause:   cause,
		cfg:     cfg,
		ctx:     lctx,
		cancel:  cancel,
		ttl:     ttl,
		every:   cfg.Interval(ttl),
		holdEnd: sent.Add(cfg.MaxHold),
		done:    make(chan struct{}),
	}
	le.mu.Lock() // the timers' functions wait for the lease to be complete
	le.deadline = sent.Add(ttl - cfg.LeaseMargin(ttl))
	le.expiry = time.AfterFunc(time.Until(le.deadline), le.expire)
	le.hold = time.AfterFunc(time.Until(le.holdEnd), func() { le.End(MaxHold, nil) })
	le.mu.Unlock()
	// A reply that came after the deadline (a slow network, a loaded
	// machine) gives a lock whose lease has already ended: the holder
	// must find it so when the acquire returns, not when the timer runs.
	le.endIfDue()
	go le.renew()
	return le
}

// Context returns the lease: a context that ends the moment the lock may
// have been lost, or when it is released. Asked for past the deadline or
// the maximum hold time, it has ended, even if the timer that ends it has
// not run yet: on a loaded machine a timer runs late, and a holder that
// checks its lease must not find it alive while the key may be gone.
func (le *Lease) Context() context.Context {
	le.endIfDue()
	return le.ctx
}

// endIfDue ends the lease at once when its deadline or the maximum hold
// time has passed, as its timers would.
func (le *Lease) endIfDue() {
	le.mu.Lock()
	now := time.Now()
	due := !le.ended && (!now.Before(le.deadline) || !now.Before(le.holdEnd))
	le.mu.Unlock()
	if due {
		le.expire()
	}
}

// Done is closed when the renewal goroutine has returned.
func (le *Lease) Done() <-chan struct{} { return le.done }

// Ended returns nil while the lease lasts, and then an error matching
// strategy.ErrNotHeld and the cause of its end.
func (le *Lease) Ended() error {
	le.endIfDue()
	if le.ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", strategy.ErrNotHeld, context.Cause(le.ctx))
}

// Release ends the lease for the holder's Release, and returns a function
// that waits, until ctx is done, for the renewal goroutine to return, so
// that nothing of the lock runs after its Release: the renewal's command
// was cancelled with the lease.
func (le *Lease) Release() (wait func(ctx context.Context)) {
	le.End(Released, nil)
	return func(ctx context.Context) {
		select {
		case <-le.done:
		case <-ctx.Done():
		}
	}
}

// Refresh runs the holder's Refresh: extend, and on success the deadline
// moves as after a renewal; a failure that proves the lock lost ends the
// lease. Call Ended first.
func (le *Lease) Refresh(ctx context.Context, ttl time.Duration) error {
	sent := time.Now()
	err := le.extend(ctx, ttl)
	if err != nil {
		if Permanent(err) {
			le.End(Lost, err)
		}
		return err
	}
	le.Extended(sent, ttl.Truncate(time.Millisecond))
	return nil
}

// End ends the lease for reason r (see Reason for err), unless it has
// ended already.
func (le *Lease) End(r Reason, err error) { le.end(le.cause(r, err)) }

// end ends the lease with cause, unless it has ended already.
func (le *Lease) end(cause error) {
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
func (le *Lease) expire() {
	le.mu.Lock()
	r, last := Expired, le.lastErr
	if !time.Now().Before(le.holdEnd) {
		r, last = MaxHold, nil
	}
	le.mu.Unlock()
	le.End(r, last)
}

// Extended moves the deadline after a command sent at sent made the lock
// live at least ttl.
func (le *Lease) Extended(sent time.Time, ttl time.Duration) {
	dl := sent.Add(ttl - le.cfg.LeaseMargin(ttl))
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
func (le *Lease) renew() {
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
		ttl := min(le.ttl, left+le.cfg.LeaseMargin(le.ttl))
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
		if Permanent(err) {
			le.End(Lost, err)
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
func (le *Lease) renewOnce(ttl time.Duration) error {
	le.mu.Lock()
	dl := le.deadline
	le.mu.Unlock()
	ctx, cancel := context.WithDeadline(le.ctx, dl)
	defer cancel()
	sent := time.Now()
	if err := le.extend(ctx, ttl); err != nil {
		return err
	}
	le.Extended(sent, ttl.Truncate(time.Millisecond))
	return nil
}

// retryDelay is the wait before retrying a renewal that failed failures times
// in a row: 5ms doubling, at most a quarter of the renewal interval.
func retryDelay(failures int, every time.Duration) time.Duration {
	d := 5 * time.Millisecond << min(failures-1, 10)
	return max(min(d, every/4), time.Millisecond)
}

// Permanent reports whether a failed command proves the lock lost: the lock
// was found gone or someone else's, or the server refused the command (a
// redis.Error reply such as WRONGTYPE). Other errors (network, timeouts, a
// full pool) may pass and are retried while the lease lasts.
func Permanent(err error) bool {
	if errors.Is(err, strategy.ErrNotHeld) {
		return true
	}
	var re redis.Error
	if errors.As(err, &re) {
		// NOSCRIPT is handled by eval; a READONLY or LOADING reply is the
		// server's passing state, not a verdict on the lock.
		msg := string(re)
		return !strings.HasPrefix(msg, "READONLY") && !strings.HasPrefix(msg, "LOADING") &&
			!strings.HasPrefix(msg, "BUSY") && !strings.HasPrefix(msg, "TRYAGAIN")
	}
	return false
}
