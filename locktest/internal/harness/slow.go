package harness

import (
	"context"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// A lock that turns a waiter down is judged by it only when the lock had
// a fair chance. On a loaded machine a correct lock's attempt can take
// most of a short TTL (a fresh connection through the client's proxy,
// TLS to Redis, the race detector), and a lock that times its attempts,
// as Redlock does, then refuses a free lock; the server monitor does not
// see it, as its PINGs go on a warm connection of its own. So where a
// scenario concludes from a refusal (a crashed holder's lock that did not
// free, a waiter that never got in while the holder was paused, a free
// lock refused), it asks that an attempt made once the lock had to be
// free came back quickly. When none did, the run is disturbed, as by a
// stall of the server, and the check runs again on fresh keys.

// Disturbed aborts the run as disturbed: the check runs again.
func (r *Run) Disturbed(m msg.Msg) {
	err := sim.Failure(m)
	if r.Disturb != nil {
		r.Disturb(err)
	}
	panic(sim.Abort{Err: err})
}

// RefusedSlowly disturbs the run when c's attempt at a free lock, begun
// at start and refused, was not quick.
func (c *Client) RefusedSlowly(start time.Time) { c.refusedSlowlyIn(time.Since(start)) }

// refusedSlowlyIn is refusedSlowly of an attempt that took took.
func (c *Client) refusedSlowlyIn(took time.Duration) {
	if took > c.R.Tm.Quick() {
		c.R.Disturbed(mSlowAttempt.New(c.Name, took.Round(time.Millisecond), c.R.Tm.Quick()))
	}
}

// WaitFree is acquire of a lock that must be free from free into the
// wait on (its TTL has run out): a refusal counts only when an attempt
// begun by then was turned down quickly, else the run is disturbed.
func (c *Client) WaitFree(ttl, wait, free time.Duration) strategy.Lock {
	return c.WaitFreeEvery(ttl, wait, c.R.Tm.Poll, free)
}

// WaitFreeEvery is waitFree with attempts poll apart.
func (c *Client) WaitFreeEvery(ttl, wait, poll, free time.Duration) strategy.Lock {
	from := time.Now().Add(free)
	var quick time.Time // the start of the last attempt turned down quickly
	var slowest time.Duration
	t := timed{c: c, s: c.S, refused: func(start time.Time, took time.Duration) {
		if start.Before(from) {
			return
		}
		if took <= c.R.Tm.Quick() {
			quick = start
		}
		slowest = max(slowest, took)
	}}
	var s strategy.Strategy = t
	if n, ok := c.S.(strategy.Notifier); ok {
		s = timedNotifier{t, n}
	}
	l := c.AcquireWith(s, ttl, wait, poll)
	if l == nil && quick.IsZero() {
		c.R.Disturbed(mSlowWait.New(c.Name, free, c.R.Tm.Quick(), slowest.Round(time.Millisecond)))
	}
	return l
}

// EnterPast has who enter the critical section after holder, who holds
// l and heeds its lease (watchLease). When the lease has ended but the
// goroutine that heeds it has not run yet, which of the two came first
// is the scheduler's doing on a loaded machine, not the lock's: the run
// is disturbed.
func (r *Run) EnterPast(who, holder string, l strategy.Lock) {
	r.LeaseOrdered(who, holder, l)
	r.Det.Enter(who)
}

// LeaseOrdered disturbs the run when holder, who holds l and heeds its
// lease, is still inside although its lease has ended, as who is about
// to enter: which came first is the scheduler's doing (see EnterPast).
func (r *Run) LeaseOrdered(who, holder string, l strategy.Lock) {
	if ctx := LeaseOf(l); ctx != nil && ctx.Err() != nil && r.Det.IsInside(holder) {
		r.Disturbed(mSlowLease.New(holder, who))
	}
}

// timed is a client's strategy with its refused attempts timed. The
// calls run on the goroutine of the Acquire that makes them.
type timed struct {
	c       *Client
	s       strategy.Strategy
	refused func(start time.Time, took time.Duration)
}

func (t timed) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	start := time.Now()
	l, err := t.s.TryAcquire(ctx, key, ttl)
	if err != nil {
		t.refused(start, time.Since(start))
	}
	return l, err
}

// timedNotifier is timed for a strategy that announces its releases,
// which Acquire waits on.
type timedNotifier struct {
	timed
	strategy.Notifier
}
