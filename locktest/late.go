package locktest

import (
	"context"
	"fmt"

	"github.com/locklab/locklab/strategy"
)

// lateHolder starts the run of boundary k of a scenario in which A, late,
// finishes an operation on a lock that has passed to B: A holds the lock
// with the short TTL, and B and C are ready to wait for it.
func lateHolder(newRun func(string) *run, k int) (r *run, a, b, c *client, la strategy.Lock) {
	r = newRun(fmt.Sprintf("/boundary-%d", k))
	a, b, c = r.newClient("A", 0), r.newClient("B", 0), r.newClient("C", 0)
	la = a.mustAcquire(r.tm.Short)
	return r, a, b, c, la
}

// lateRun is what a late operation left, at one boundary, for its
// scenario to judge: the run, C (ready to try for the lock), the
// boundary, whether K still existed right after B got it, and what A's
// late operation did to B's lock ("" when nothing).
type lateRun struct {
	r     *run
	c     *client
	at    Message
	held  bool
	broke finding
}

// lateAtEachBoundary is the skeleton of safe-release and safe-refresh: at
// each boundary of A's operation op of n commands in turn (before its
// one command when n is 0 or 1), A holds the lock (lateHolder), start
// returns the operation on la, which is paused there (pauseInside), B
// takes the lock over (takeoverWhilePaused), and judge says what A's
// late operation left: a break, or nil to go on. It returns the last run,
// whose holds its scenario says, and judge's break, or n/a when B could
// not get the lock.
func lateAtEachBoundary(newRun func(string) *run, n int, op string, start func(r *run, a *client, la strategy.Lock) func(), judge func(lateRun) *outcome) (*run, *outcome) {
	var last *run
	for k := range max(n, 1) {
		r, a, b, c, la := lateHolder(newRun, k)
		last = r
		p := a.pauseInside(k, n, op, start(r, a, la))
		if !p.reached {
			r.shutdown()
			continue
		}
		lb, held, broke, why := takeoverWhilePaused(r, p, b, c)
		if lb == nil {
			res := r.notApplicable(mNobodyWhilePaused.New(why))
			return r, &res
		}
		if res := judge(lateRun{r: r, c: c, at: boundary(k, n, op), held: held, broke: broke}); res != nil {
			return r, res
		}
		r.shutdown()
	}
	return last, nil
}

// takeoverWhilePaused goes on once A is paused inside an operation p with
// its lock's TTL (Short) still running: B waits for the lock for the TTL
// plus slack; then A resumes, and its operation is taken to its end one
// command at a time (lateSteps), C trying at each boundary. It returns
// B's lock, whether K still existed right after B got it, what A's late
// operation did to B's lock ("" when nothing) and, when B got nothing,
// why the lock had not expired, read before A resumed.
func takeoverWhilePaused(r *run, p *pausedOp, b, c *client) (lb strategy.Lock, held bool, broke finding, why Message) {
	if lb, why = waitWhilePaused(r, p, b); lb == nil {
		return nil, false, finding{}, why
	}
	held, broke = stepsAfterTakeover(r, p, b, c)
	return lb, held, broke, Message{}
}

// waitWhilePaused is the first half of takeoverWhilePaused: B waits for
// the lock; when it gets nothing, A resumes and p is waited for, and why
// says why the lock had not expired.
func waitWhilePaused(r *run, p *pausedOp, b *client) (lb strategy.Lock, why Message) {
	r.note(mLatePaused.New(r.tm.Short, r.tm.Short+r.tm.Slack))
	lb = b.waitFree(r.tm.Long, r.tm.Short+r.tm.Slack, r.tm.Short+r.tm.staleAfter())
	if lb == nil {
		why = r.unexpired(r.tm.Short, r.tm.Short+r.tm.Slack)
		p.c.resume()
		r.note(mLateResumes.New())
		p.wait()
	}
	return lb, why
}

// stepsAfterTakeover is its second half, once B holds the lock: A's
// operation goes on one command at a time (lateSteps).
func stepsAfterTakeover(r *run, p *pausedOp, b, c *client) (held bool, broke finding) {
	held = r.keyExists()
	r.note(mLateSteps.New())
	if broke = r.lateSteps(p, b, c); broke.IsZero() {
		p.wait()
	}
	return held, broke
}

// whoFreed says, in case C then acquires while B holds the lock, what the
// timeline shows: whether A's operation op, the last thing A did, deleted
// the key B's lock was at (held: K existed while B held it), or whether C
// got in although K was still there. It reads K, so call it before C's
// attempt.
func whoFreed(r *run, held bool, op string) Message {
	switch {
	case held && !r.keyExists():
		return mFreedDeleted.New("A", op)
	case held:
		return mFreedStillThere.New()
	default:
		return mFreedWhileHeld.New()
	}
}

// overrunTakeover is the start of the scenarios where A's lease runs out: A
// acquires with a short TTL, then B waits for the lock. It returns B's lock,
// or nil when B could not get it in TTL + slack; then, for a paused A, why
// the lock had not expired.
// A paused client sends nothing while B waits, not even a renewal; it
// resumes once B is done waiting. A holder inside the critical section
// whose lock has a lease leaves as soon as the lease is lost.
//
// With inside, A works in the critical section; done ends its work and
// reports whether A had already stopped because its lease was lost.
func overrunTakeover(r *run, a, b *client, inside, paused bool) (la, lb strategy.Lock, done func() bool, why Message) {
	l := a.mustAcquire(r.tm.Short)
	done = func() bool { return false }
	if inside {
		r.det.enter("A")
		done = watchLease(r, "A", l)
	}
	if paused {
		a.pause()
		r.note(mLateStalled.New(r.tm.Short, r.tm.Short+r.tm.Slack))
		defer func() { a.resume(); r.note(mLateResumes.New()) }()
	} else {
		r.note(mLateWorks.New(r.tm.Short, r.tm.Short+r.tm.Slack))
	}
	lb = b.waitFree(r.tm.Long, r.tm.Short+r.tm.Slack, r.tm.Short+r.tm.staleAfter())
	if lb == nil && paused { // read before A resumes and may release
		why = r.unexpired(r.tm.Short, r.tm.Short+r.tm.Slack)
	}
	return l, lb, done, why
}

// leaseOf returns the lock's lease context, or nil when it has none.
func leaseOf(l strategy.Lock) context.Context {
	ctx, _ := strategy.Lease(l)
	return ctx
}

// watchLease makes who leave the critical section the moment l's lease is
// lost, as a holder that heeds its Lease context does. It returns the
// function to call when who is done working: it stops the watch and
// reports whether who had already left because its lease was lost. Locks
// without a lease are not watched.
func watchLease(r *run, who string, l strategy.Lock) (done func() (left bool)) {
	ctx := leaseOf(l)
	if ctx == nil {
		return func() bool { return false }
	}
	stop := make(chan struct{})
	left := make(chan bool, 1)
	go func() {
		select {
		case <-ctx.Done():
			r.det.leave(who)
			r.note(mLeaseLost.New(who, fmt.Sprint(context.Cause(ctx))))
			left <- true
		case <-stop:
			left <- false
		}
	}()
	return func() bool {
		close(stop)
		return <-left
	}
}
