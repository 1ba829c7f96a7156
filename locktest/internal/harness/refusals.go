package harness

import (
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// A free lock refused once may be the machine's doing (slow.go), but a
// lock that refuses a free lock every time is broken, however long it
// takes to say so. What tells them apart is not how long a refusal took,
// which load changes, but whether it comes again: once a free lock was
// refused, the client tries again, a few times, Short apart, with the
// Long TTL, which no attempt on a loaded machine runs out, each attempt
// with K free before and after it, as the suite reads it. A lock that
// gets it in any of them was only slow; one refused in all of them
// refuses free locks: release-frees breaks, and every other property,
// whose scenario cannot begin, says why it has no verdict.

// freeRetries is how many times a client tries a free lock again once it
// was refused.
const freeRetries = 3

// refusals is what a client found when a free lock was refused, then
// refused again in every retry: how many attempts, and how many of them
// took longer than a fair attempt may (Timing.quick).
type refusals struct{ attempts, slow int }

// AcquireFree is tryAcquire of a lock that is free: the lock, or, when
// the lock was refused in every attempt with K free (see above), what the
// client found. Neither means an attempt was refused but the suite could
// not tell why: a retry got the lock (and released it), K was not free,
// or no attempt sent a command to Redis.
func (c *Client) AcquireFree(ttl time.Duration) (strategy.Lock, *refusals, time.Duration) {
	start := time.Now()
	if l := c.TryAcquire(ttl); l != nil {
		return l, nil, 0
	}
	took := time.Since(start)
	return nil, c.refusedAgain(took), took
}

// refusedAgain tries a free lock again once c's attempt at it was
// refused in took, and returns the refusals when every retry was refused
// with K free before and after it; nil otherwise.
func (c *Client) refusedAgain(took time.Duration) *refusals {
	r := c.R
	if r.KeyExists() {
		return nil // the refusal may have had a reason
	}
	found := &refusals{attempts: 1}
	if took > r.Tm.Quick() {
		found.slow++
	}
	sent := c.CommandsSent()
	r.Note(mRefusedFree.New(c.Name, freeRetries, r.Tm.Short, r.Tm.Long))
	for range freeRetries {
		time.Sleep(r.Tm.Short)
		if r.KeyExists() {
			return nil
		}
		start := time.Now()
		if l := c.TryAcquire(r.Tm.Long); l != nil {
			c.Release(l)
			return nil
		}
		found.attempts++
		if time.Since(start) > r.Tm.Quick() {
			found.slow++
		}
		if r.KeyExists() {
			return nil
		}
	}
	if c.CommandsSent() == sent {
		return nil // refused without asking Redis: unseen says what that means
	}
	return found
}

// MustAcquire is tryAcquire of a lock that is free: a refusal aborts the
// run (abortRefused).
func (c *Client) MustAcquire(ttl time.Duration) strategy.Lock {
	l, found, took := c.AcquireFree(ttl)
	if l == nil {
		c.AbortRefused(found, took)
	}
	return l
}

// AbortRefused aborts the run once c's attempt at a free lock was refused in
// took: with an error that says so when the lock refuses free locks
// (found), as disturbed when the attempt was not quick, else with an
// error.
func (c *Client) AbortRefused(found *refusals, took time.Duration) {
	if found != nil {
		c.R.Fail(mFailRefusesFree.New(c.Name, found.attempts, found.slow, c.R.Tm.Quick()))
	}
	c.refusedSlowlyIn(took)
	c.R.Fail(MsgFailNotFree.New(c.Name))
}

// BreaksRefused is release-frees's break for a lock that refuses free
// locks: who's last attempt was refused with nothing in its way
// (history.FreeRefused).
func (r *Run) BreaksRefused(who string, found *refusals) Outcome {
	return r.BreaksFreeRefused(who, mFreesRefused.New(who, found.attempts, found.slow, r.Tm.Quick()))
}

// A lock that refuses free locks, as a failure of the other properties.
var mFailRefusesFree = msg.Define("fail.refuses-free", msg.K(msg.Client, msg.Count, msg.Count, msg.Duration),
	"{0} could not acquire a free lock in any of {1} attempts, {2} of them slower than {3}, with K free before and after each: the lock refuses free locks (release-frees breaks)")

// release-frees' message for a lock refused while free.
var mFreesRefused = msg.Define("release-frees.breaks-refused", msg.K(msg.Client, msg.Count, msg.Count, msg.Duration),
	"{0} could not acquire a free lock: all {1} of its attempts were refused, {2} of them after more than {3}, with K free before and after each: the lock refuses a free lock, and nobody ever gets it")
