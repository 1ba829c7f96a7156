package harness

import (
	"context"
	"fmt"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// lateHolder starts the run of boundary k of a scenario in which A, late,
// finishes an operation on a lock that has passed to B: A holds the lock
// with the short TTL, and B and C are ready to wait for it.
func lateHolder(newRun func(string) *Run, k int) (r *Run, a, b, c *Client, la strategy.Lock) {
	r = newRun(fmt.Sprintf("/boundary-%d", k))
	a, b, c = r.NewClient("A", 0), r.NewClient("B", 0), r.NewClient("C", 0)
	la = a.MustAcquire(r.Tm.Short)
	return r, a, b, c, la
}

// LateRun is what a late operation left, at one boundary, for its
// scenario to judge: the run, C (ready to try for the lock), the
// boundary, whether K still existed right after B got it, and what A's
// late operation did to B's lock ("" when nothing).
type LateRun struct {
	R     *Run
	C     *Client
	At    msg.Msg
	Held  bool
	Broke finding
}

// LateAtEachBoundary is the skeleton of safe-release and safe-refresh: at
// each boundary of A's operation op of n commands in turn (before its
// one command when n is 0 or 1), A holds the lock (lateHolder), start
// returns the operation on la, which is paused there (pauseInside), B
// takes the lock over (takeoverWhilePaused), and judge says what A's
// late operation left: a break, or nil to go on. It returns the last run,
// whose holds its scenario says, and judge's break, or n/a when B could
// not get the lock.
func LateAtEachBoundary(newRun func(string) *Run, n int, op string, start func(r *Run, a *Client, la strategy.Lock) func(), judge func(LateRun) *Outcome) (*Run, *Outcome) {
	var last *Run
	for k := range max(n, 1) {
		r, a, b, c, la := lateHolder(newRun, k)
		last = r
		p := a.PauseInside(k, n, op, start(r, a, la))
		if !p.Reached {
			r.Shutdown()
			continue
		}
		lb, held, broke, why := takeoverWhilePaused(r, p, b, c)
		if lb == nil {
			res := r.NotApplicable(MsgNobodyWhilePaused.New(why))
			return r, &res
		}
		if res := judge(LateRun{R: r, C: c, At: Boundary(k, n, op), Held: held, Broke: broke}); res != nil {
			return r, res
		}
		r.Shutdown()
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
func takeoverWhilePaused(r *Run, p *pausedOp, b, c *Client) (lb strategy.Lock, held bool, broke finding, why msg.Msg) {
	if lb, why = WaitWhilePaused(r, p, b); lb == nil {
		return nil, false, finding{}, why
	}
	held, broke = StepsAfterTakeover(r, p, b, c)
	return lb, held, broke, msg.Msg{}
}

// WaitWhilePaused is the first half of takeoverWhilePaused: B waits for
// the lock; when it gets nothing, A resumes and p is waited for, and why
// says why the lock had not expired.
func WaitWhilePaused(r *Run, p *pausedOp, b *Client) (lb strategy.Lock, why msg.Msg) {
	r.Note(MsgLatePaused.New(r.Tm.Short, r.Tm.Short+r.Tm.Slack))
	lb = b.WaitFree(r.Tm.Long, r.Tm.Short+r.Tm.Slack, r.Tm.Short+r.Tm.StaleAfter())
	if lb == nil {
		why = r.Unexpired(r.Tm.Short, r.Tm.Short+r.Tm.Slack)
		p.c.Resume()
		r.Note(MsgLateResumes.New())
		p.Wait()
	}
	return lb, why
}

// StepsAfterTakeover is its second half, once B holds the lock: A's
// operation goes on one command at a time (lateSteps).
func StepsAfterTakeover(r *Run, p *pausedOp, b, c *Client) (held bool, broke finding) {
	held = r.KeyExists()
	r.Note(mLateSteps.New())
	if broke = LateSteps(r, p, b, c); broke.IsZero() {
		p.Wait()
	}
	return held, broke
}

// WhoFreed says, in case C then acquires while B holds the lock, what the
// timeline shows: whether A's operation op, the last thing A did, deleted
// the key B's lock was at (held: K existed while B held it), or whether C
// got in although K was still there. It reads K, so call it before C's
// attempt.
func WhoFreed(r *Run, held bool, op string) msg.Msg {
	switch {
	case held && !r.KeyExists():
		return mFreedDeleted.New("A", op)
	case held:
		return mFreedStillThere.New()
	default:
		return mFreedWhileHeld.New()
	}
}

// OverrunTakeover is the start of the scenarios where A's lease runs out: A
// acquires with a short TTL, then B waits for the lock. It returns B's lock,
// or nil when B could not get it in TTL + slack; then, for a paused A, why
// the lock had not expired.
// A paused client sends nothing while B waits, not even a renewal; it
// resumes once B is done waiting. A holder inside the critical section
// whose lock has a lease leaves as soon as the lease is lost.
//
// With inside, A works in the critical section; done ends its work and
// reports whether A had already stopped because its lease was lost.
func OverrunTakeover(r *Run, a, b *Client, inside, paused bool) (la, lb strategy.Lock, done func() bool, why msg.Msg) {
	l := a.MustAcquire(r.Tm.Short)
	done = func() bool { return false }
	if inside {
		r.Det.Enter("A")
		done = WatchLease(r, "A", l)
	}
	if paused {
		a.Pause()
		r.Note(mLateStalled.New(r.Tm.Short, r.Tm.Short+r.Tm.Slack))
		defer func() { a.Resume(); r.Note(MsgLateResumes.New()) }()
	} else {
		r.Note(mLateWorks.New(r.Tm.Short, r.Tm.Short+r.Tm.Slack))
	}
	lb = b.WaitFree(r.Tm.Long, r.Tm.Short+r.Tm.Slack, r.Tm.Short+r.Tm.StaleAfter())
	if lb == nil && paused { // read before A resumes and may release
		why = r.Unexpired(r.Tm.Short, r.Tm.Short+r.Tm.Slack)
	}
	return l, lb, done, why
}

// LeaseOf returns the lock's lease context, or nil when it has none.
func LeaseOf(l strategy.Lock) context.Context {
	ctx, _ := strategy.Lease(l)
	return ctx
}

// WatchLease makes who leave the critical section the moment l's lease is
// lost, as a holder that heeds its Lease context does. It returns the
// function to call when who is done working: it stops the watch and
// reports whether who had already left because its lease was lost. Locks
// without a lease are not watched.
func WatchLease(r *Run, who string, l strategy.Lock) (done func() (left bool)) {
	ctx := LeaseOf(l)
	if ctx == nil {
		return func() bool { return false }
	}
	stop := make(chan struct{})
	left := make(chan bool, 1)
	go func() {
		select {
		case <-ctx.Done():
			r.Det.Leave(who)
			r.Note(mLeaseLost.New(who, fmt.Sprint(context.Cause(ctx))))
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
