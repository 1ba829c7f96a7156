package explore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/judge"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// Execute runs p on r and gives the judge's verdict on its history: a
// break where the history shows a violation, else holds. A run that went
// wrong for the suite (an abort, the lock's own unexpected error) gives
// no verdict.
func Execute(r *harness.Run, p Plan, lock Lock) harness.Outcome {
	clients := make([]*harness.Client, len(p.Clients))
	for i, s := range p.Clients {
		clients[i] = r.NewClient(s.Name, s.Skew)
	}
	r.Note(mPlan.New(p.String()))
	sc := gateClients(p.Sched, clients)
	var wg sync.WaitGroup
	in := &insiders{}
	aborts := make(chan any, len(clients))
	for i := range clients {
		wg.Go(func() {
			defer func() {
				sc.leave(i)
				if v := recover(); v != nil {
					aborts <- v
				}
			}()
			play(r, clients[i], p.Clients[i], lock, in)
		})
	}
	wg.Wait()
	sc.stop()
	for _, c := range clients {
		c.SetGate(nil)
	}
	select {
	case v := <-aborts:
		panic(v) // the run's abort, which Check's watchdog turns into no verdict
	default:
	}
	return judgeRun(r, lock, len(p.Clients))
}

// judgeRun asks the judge for the first violation the history shows, with
// no claim to go on (judge.Free), and records it as the run's claim, which
// the judge then checks as it checks a scenario's: a saved run is judged
// again the same way. The explorer reads nothing of the lock's keys: a
// read made while other clients' commands are in flight cannot say whose
// command changed them, and the judge's rules on reads would blame the
// wrong one (they raised false alarms on luatoken, rwlua and semlua).
func judgeRun(r *harness.Run, lock Lock, clients int) harness.Outcome {
	tl, _ := r.Rec.Timeline()
	slack := lock.Short
	if lock.Renews {
		// Its holds end when it stops renewing them, which the history
		// does not show: no refusal proves it stuck.
		slack = time.Hour
	}
	d, found := judge.Free(tl, judge.Options{Permits: lock.Permits, Fenced: lock.Fenced, Leased: lock.Leased,
		Slack: slack, Quick: lock.Short / 2, WriterIntent: lock.WriterIntent, Late: lateFor(lock)})
	if !found {
		return r.Holds(mHeld.New(clients))
	}
	who := ""
	if d.Event >= 0 && d.Event < len(tl) {
		who = tl[d.Event].Client
	}
	switch d.Rule {
	case history.Unfreed:
		return r.BreaksUnfreedBy(who, lock.Permits, d.Reason)
	case history.FreeRefused:
		return r.BreaksFreeRefusedOf(who, lock.Permits, d.Reason)
	}
	return r.BreaksRuleOf(d.Rule, lock.Permits, d.Reason)
}

// lateFor is how long a late reply is held (Fault.For of a Late fault):
// its command is recorded when the reply goes, up to that long after the
// call that sent it gave up.
func lateFor(lock Lock) time.Duration { return 2 * lock.Short }

// play runs script s on c. Every grant is a hold of its own in the
// history (sim.Held), a mutex's too: a release or a refresh names the
// hold it acts on, so that a late second release of an earlier hold is
// told from one of the client's current hold.
func play(r *harness.Run, c *harness.Client, s Script, lock Lock, in *insiders) {
	var cur, last *sim.Held
	var mode history.Mode // cur's
	ps := &pauses{c: c}
	for _, op := range s.Ops {
		if c.IsCrashed() {
			return
		}
		// An operation with no hold to act on does nothing, and its
		// fault strikes nothing: not the next operation's commands.
		switch op.Kind {
		case Work, Refresh, Release:
			if cur == nil {
				continue
			}
		case ReleaseAgain:
			if last == nil {
				continue
			}
		}
		drop := arm(c, op.Fault, ps)
		switch op.Kind {
		case Acquire, Try:
			cur = nil
			deadline := time.Now().Add(op.For)
			for {
				h, err := c.TryModeErr(op.Mode, op.N, op.TTL)
				if err == nil {
					cur, mode = &h, op.Mode
					break
				}
				if !errors.Is(err, strategy.ErrNotAcquired) || op.Kind == Try || !time.Now().Add(lock.Poll).Before(deadline) || c.IsCrashed() {
					break
				}
				time.Sleep(lock.Poll)
			}
		case Work:
			work(r, c, cur.L, mode, op, lock, in)
		case Refresh:
			if _, ok := cur.L.(strategy.Refresher); ok {
				if err := c.RefreshHeldErr(*cur, op.TTL); err != nil {
					cur = nil // a refused refresh: the hold is not to be relied on
				}
			}
		case Release:
			_ = c.ReleaseHeldErr(*cur)
			cur, last = nil, cur
		case ReleaseAgain:
			_ = c.ReleaseHeldErr(*last)
		case Crash:
			c.Crash(mCrashes.New())
			return
		}
		disarm(c, op.Fault, drop)
	}
	if cur != nil && !c.IsCrashed() {
		_ = c.ReleaseHeldErr(*cur)
	}
}

// work stays inside the critical section for op.For, on lock l. The
// holder of a leased lock heeds its lease, as the lock asks of it: it
// does not enter once its lease is lost, and leaves the moment it is.
func work(r *harness.Run, c *harness.Client, l strategy.Lock, mode history.Mode, op Op, lock Lock, in *insiders) {
	if !lock.Leased || harness.LeaseOf(l) == nil {
		r.Det.Enter(c.Name)
		time.Sleep(op.For)
		r.Det.Leave(c.Name)
		return
	}
	if ctx := harness.LeaseOf(l); ctx != nil && ctx.Err() != nil {
		r.Note(mLeaseGone.New(c.Name, fmt.Sprint(context.Cause(ctx))))
		return
	}
	in.enter(r, c.Name, inside{l, mode})
	defer in.leave(c.Name)
	done := harness.WatchLease(r, c.Name, l)
	time.Sleep(op.For)
	if !done() {
		r.Det.Leave(c.Name)
	}
}

// insiders are the holders of a leased lock inside the critical section,
// with their locks: one whose lease has ended but whose goroutine that
// heeds it has not run yet, as another enters whose hold conflicts with
// its own, leaves the order of the two to the scheduler, and the run is
// disturbed (harness.LeaseOrdered). Two readers do not conflict; permits
// are taken to, as the judge counts them, which at worst costs a verdict.
type insiders struct {
	mu sync.Mutex
	in map[string]inside
}

// inside is one holder inside: its lock, and its hold's mode.
type inside struct {
	l    strategy.Lock
	mode history.Mode
}

func (s *insiders) enter(r *harness.Run, who string, h inside) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for holder, o := range s.in {
		if !(h.mode == history.Shared && o.mode == history.Shared) {
			r.LeaseOrdered(who, holder, o.l)
		}
	}
	if s.in == nil {
		s.in = map[string]inside{}
	}
	s.in[who] = h
	r.Det.Enter(who)
}

func (s *insiders) leave(who string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.in, who)
}

// pauses counts the pauses of one client's plan that are on or armed:
// they share the client's one stalled connection, which resumes when
// the last of them ends, so that a pause does not end another early (a
// stall in work that outlasts the work, and a pause of the operation
// after it).
type pauses struct {
	c  *harness.Client
	mu sync.Mutex
	n  int
}

func (p *pauses) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
}

func (p *pauses) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n--; p.n == 0 {
		p.c.Resume()
	}
}

// arm arms f on the client's next commands: those of the operation
// about to begin. What it returns ends a pause that its operation did
// not reach (disarm), and returns once the pause has been counted out:
// a pause armed at the operation's last command, which no command of
// the operation waited on, must not outlive it into the next one (a
// next operation armed first kept the count above zero, and the
// client waited for good on a pause nobody ended).
func arm(c *harness.Client, f Fault, ps *pauses) func() {
	switch f.Kind {
	case NoFault:
	case CrashAt:
		c.CrashAfterNext(f.At)
	case PauseAt:
		ps.start()
		if f.At == 0 {
			// In its work: the connection stalls now, for f.For,
			// whether a command comes or not (a renewal of its lock).
			c.PauseAtBoundary(0, mStalled.New(f.For))
			go func() {
				time.Sleep(f.For)
				ps.end()
			}()
			return nil
		}
		reached := c.PauseAtBoundary(f.At-1, mPausedAt.New(f.At, f.For))
		drop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			select {
			case <-reached:
				time.Sleep(f.For)
			case <-drop:
			case <-time.After(f.For + time.Second):
			}
			ps.end()
		}()
		return func() { close(drop); <-done }
	case Dropped:
		c.ArmFault(sim.Fault{Kind: sim.FaultDropped, At: f.At})
	case Lost:
		c.ArmFault(sim.Fault{Kind: sim.FaultLost, At: f.At})
	case Late:
		// A reply held past its caller's deadline: the call gives up
		// and returns an error, its outcome unknown.
		c.SetCallTimeout(f.For / 2)
		c.ArmFault(sim.Fault{Kind: sim.FaultLate, At: f.At, Until: time.Now().Add(f.For)})
	case InState:
		c.ArmFault(sim.Fault{Kind: sim.FaultState, At: f.At, Until: time.Now().Add(f.For), State: f.State})
	}
	return nil
}

// disarm drops what of f has not struck by the end of its operation;
// drop is what arm returned.
func disarm(c *harness.Client, f Fault, drop func()) {
	switch f.Kind {
	case NoFault:
	case CrashAt:
		c.DisarmCrash()
	case PauseAt:
		if f.At > 0 {
			c.DropPause()
			drop()
		}
	case InState:
		// A state lasts its time, past the operation.
	case Late:
		c.SetCallTimeout(0)
		c.DisarmFault()
	default:
		c.DisarmFault()
	}
}

// The explorer's messages.
var (
	mPlan     = msg.Define("explore.plan", msg.K(msg.Text), "the plan: {0}")
	mHeld     = msg.Define("explore.held", msg.K(msg.Count), "{0} clients ran their plan; the judge found no violation")
	mCrashes  = msg.Define("explore.crashes", nil, "crashes, as its plan says")
	mPausedAt = msg.Define("explore.paused-at", msg.K(msg.Count, msg.Duration),
		"before its command {0} of the operation, for {1}")
	mStalled   = msg.Define("explore.stalled", msg.K(msg.Duration), "in its work, for {0}")
	mLeaseGone = msg.Define("explore.lease-gone", msg.K(msg.Client, msg.Text),
		"{0} does not enter: its lease is already lost ({1})")
)

var _ = judge.Breaks
