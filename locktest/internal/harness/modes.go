package harness

import (
	"fmt"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/judge"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// The properties of read-write locks and semaphores run the mutex's
// scenarios in a mode: the holder that crashes, meets a fault or comes
// late is a reader, or holds one permit, and what it leaves behind is
// judged by how the kind's other holders fare: a writer kept out past
// the reader's TTL, a reader let in beside a writer, a permit that never
// comes back, one permit too many. Every grant is a hold of its own in
// the history (sim.Client.TryMode), which the judge counts by mode, and
// every break is claimed as the rule it breaks, which the judge finds in
// the history or gives no verdict: a grant beside a hold that forbids it
// (history.OneHolder, by mode and permits), a refusal with room left
// (history.FreeRefused), a lock kept past the holds' own TTLs and
// releases (history.Unfreed, the window the judge's).

// KindMode is how a property of a kind takes the lock: a reader's shared
// hold of a read-write lock, or one permit of a semaphore of Permits.
type KindMode struct {
	Kind    strategy.Kind
	Permits int // the semaphore's N; 0 for a read-write lock
}

// ModeOf returns the mode of kind that c's lock is taken in, or, when
// c's lock is not of kind, the n/a that says so.
func ModeOf(c *Client, kind strategy.Kind) (KindMode, msg.Msg) {
	switch {
	case kind == strategy.ReadWrite && c.ReadWrite():
		return KindMode{Kind: kind}, msg.Msg{}
	case kind == strategy.Semaphore && c.Permits() > 0:
		return KindMode{Kind: kind, Permits: c.Permits()}, msg.Msg{}
	case kind == strategy.ReadWrite:
		return KindMode{}, sim.MsgNotReadWrite.New()
	}
	return KindMode{}, sim.MsgNotSemaphore.New()
}

// mode is the history's mode of a hold taken in m.
func (m KindMode) mode() history.Mode {
	if m.Kind == strategy.ReadWrite {
		return history.Shared
	}
	return history.Permit
}

// Take makes one attempt of c in m with ttl: a read lock, or one permit.
func (m KindMode) Take(c *Client, ttl time.Duration) (sim.Held, bool) {
	return c.TryMode(m.mode(), m.permits(), ttl)
}

// TakeErr is Take that returns the attempt's error, whatever it is
// (a fault's, on which Take ends the run), recorded with its mode; a
// grant is a hold of its own in the history, which ReleaseHeld ends.
func (m KindMode) TakeErr(c *Client, ttl time.Duration) (sim.Held, error) {
	return c.TryModeErr(m.mode(), m.permits(), ttl)
}

// permits is how many permits a hold in m takes: one of a semaphore's,
// none of a read-write lock.
func (m KindMode) permits() int {
	if m.Kind == strategy.Semaphore {
		return 1
	}
	return 0
}

// Beside has the holders beside the scenario's take the lock with the
// Long TTL: a reader named name for a read-write lock, and for a
// semaphore H1…HN-1, every permit but one, which stay held to the end of
// the run. It returns the release of the reader (nothing for the
// permits) and how many permits are held.
func (m KindMode) Beside(r *Run, name string) (release func(), held int) {
	if m.Kind == strategy.ReadWrite {
		b := r.NewClient(name, 0)
		h, ok := b.TryMode(history.Shared, 0, r.Tm.Long)
		if !ok {
			r.Fail(MsgFailNotFree.New(name))
		}
		return func() { b.ReleaseHeld(h) }, 0
	}
	if _, no := takePermits(r, 0, m.Permits-1); no != "" {
		r.Fail(MsgFailNotFree.New(no))
	}
	return func() {}, m.Permits - 1
}

// takePermits has H<from+1>…H<to> take a permit each with the Long TTL;
// it returns how many did, and the name of the first refused ("" when
// none was).
func takePermits(r *Run, from, to int) (took int, refused string) {
	for i := from + 1; i <= to; i++ {
		name := fmt.Sprintf("H%d", i)
		if _, ok := clientOf(r, name).TryMode(history.Permit, 1, r.Tm.Long); !ok {
			return i - from - 1, name
		}
	}
	return to - from, ""
}

// CountOps counts the commands of a successful acquire, refresh (where
// the hold is a strategy.Refresher) and release in m, with the holders
// beside it (Beside) when beside; a first round loads what a strategy
// loads once per server (a script), so that it is not counted.
func (m KindMode) CountOps(newRun func(string) *Run, beside bool) opCounts {
	var n opCounts
	for _, suffix := range []string{"/warm-up", "/count"} {
		r := newRun(suffix)
		if beside {
			m.Beside(r, "B")
		}
		p := r.NewClient("P", 0)
		from := p.CommandsSent()
		h, ok := m.Take(p, r.Tm.Long)
		if !ok {
			r.Fail(MsgFailNotFree.New("P"))
		}
		n.Acquire = p.CommandsSent() - from
		if rf, ok := h.L.(strategy.Refresher); ok {
			n.Refresher = true
			from = p.CommandsSent()
			_ = p.Refresh(rf, r.Tm.Long) // counted, not judged
			n.Refresh = p.CommandsSent() - from
		}
		from = p.CommandsSent()
		p.ReleaseHeld(h)
		n.Release = p.CommandsSent() - from
		r.Shutdown()
	}
	return n
}

// WaitMode is WaitFree in mode (n permits of a semaphore): attempts Poll
// apart for up to wait, each a hold of its own when granted. A refusal
// counts only when an attempt begun free into the wait, once the lock
// had to be free, was turned down quickly; else the run is disturbed.
func WaitMode(c *Client, mode history.Mode, n int, ttl, wait, free time.Duration) (sim.Held, bool) {
	start := time.Now()
	from, deadline := start.Add(free), start.Add(wait)
	quick := false
	var slowest time.Duration
	for {
		t := time.Now()
		if h, ok := c.TryMode(mode, n, ttl); ok {
			return h, true
		}
		if took := time.Since(t); !t.Before(from) {
			quick = quick || took <= c.R.Tm.Quick()
			slowest = max(slowest, took)
		}
		if !time.Now().Add(c.R.Tm.Poll).Before(deadline) {
			break
		}
		time.Sleep(c.R.Tm.Poll)
	}
	if !quick {
		c.R.Disturbed(mSlowWait.New(c.Name, free, c.R.Tm.Quick(), slowest.Round(time.Millisecond)))
	}
	return sim.Held{}, false
}

// LeftFree checks that what who, a holder in m that crashed or met a
// fault inside an operation on a hold it asked for with ttl at the run's
// time at, leaves the lock as free as the kind requires once ttl has
// passed; what says what who did, for the reasons. For a read-write lock,
// once ttl has passed (the readers beside it released), C reads, W must
// be refused while C reads, and must write within the slack once C has
// released. For a semaphore, with held of its permits held by others
// (Beside), H<held+1>… take all but one, W must take that one within ttl
// and the slack, and X none more. It returns the break, or nil.
func (m KindMode) LeftFree(r *Run, who string, at, ttl time.Duration, held int, what msg.Msg) *Outcome {
	var res Outcome
	if m.Kind == strategy.ReadWrite {
		if d := at + r.Tm.Outlast(ttl) - r.Rec.Now(); d > 0 {
			time.Sleep(d)
		}
		c, w := clientOf(r, "C"), clientOf(r, "W")
		hc, ok := c.TryMode(history.Shared, 0, r.Tm.Long)
		if !ok {
			res = r.BreaksFreeRefused("C", mLeftReadRefused.New(what, who))
			return &res
		}
		if _, ok := w.TryMode(history.Exclusive, 0, r.Tm.Long); ok {
			return twoHolders(r, w.Name, 0, mLeftWriterIn.New(what, who))
		}
		c.ReleaseHeld(hc)
		if _, ok := WaitMode(w, history.Exclusive, 0, r.Tm.Long, r.Tm.Slack, 0); !ok {
			res = r.BreaksUnfreedBy("W", 0, mLeftWriterOut.New(what, who, r.Tm.Slack, r.LifeLeft(ttl, r.Rec.Now()-at)))
			return &res
		}
		return nil
	}
	n := m.Permits
	if took, no := takePermits(r, held, n-1); no != "" {
		res = r.BreaksFreeRefusedOf(no, n, mLeftPermitRefused.New(what, no, held+took, n))
		return &res
	}
	w, x := clientOf(r, "W"), clientOf(r, "X")
	now := r.Rec.Now()
	wait := max(at+ttl+r.Tm.Slack-now, r.Tm.Slack)
	r.Note(mLeftWaits.New("W", wait.Round(100*time.Millisecond), who, ttl))
	if _, ok := WaitMode(w, history.Permit, 1, r.Tm.Long, wait, max(at+ttl+r.Tm.StaleAfter()-now, 0)); !ok {
		// The wait to a tenth of a second, as Shown rounds a PTTL: the
		// reason is the same on every run.
		res = r.BreaksUnfreedBy("W", n, mLeftPermitOut.New(what, n, wait.Round(100*time.Millisecond), r.LifeLeft(ttl, r.Rec.Now()-at)))
		return &res
	}
	if _, ok := x.TryMode(history.Permit, 1, r.Tm.Long); ok {
		return twoHolders(r, x.Name, n, mLeftPermitExtra.New(what, n))
	}
	return nil
}

// clientOf returns r's client named name, made if it has none.
func clientOf(r *Run, name string) *Client {
	if c := r.Client(name); c != nil {
		return c
	}
	return r.NewClient(name, 0)
}

// Excludes checks, while who holds the lock in m, that the kind's others
// find it held: W must be refused the write lock; for a semaphore,
// H1…HN-1 take the other permits and X must be refused one more. what
// says how who came to hold it. It returns the break, or nil, and how
// many permits the others hold (LeftFree's held, once who has released).
func (m KindMode) Excludes(r *Run, who string, what msg.Msg) (*Outcome, int) {
	if m.Kind == strategy.ReadWrite {
		return Refused(clientOf(r, "W"), history.Exclusive, 0, mExcludesWriter.New(what, who)), 0
	}
	n := m.Permits
	if took, no := takePermits(r, 0, n-1); no != "" {
		res := r.BreaksFreeRefusedOf(no, n, mLeftPermitRefused.New(what, no, took+1, n))
		return &res, 0
	}
	return Refused(clientOf(r, "X"), history.Permit, n, mExcludesPermit.New(what, who, n)), n - 1
}

// Released checks, once who has released the hold Excludes found held,
// that the others get in: W, already waiting, must write within the
// slack; for a semaphore, W must take the last permit beside the others'
// held and X none more (LeftFree).
func (m KindMode) Released(r *Run, who string, held int, what msg.Msg) *Outcome {
	if m.Kind == strategy.Semaphore {
		return m.LeftFree(r, who, r.Rec.Now(), 0, held, what)
	}
	if _, ok := WaitMode(clientOf(r, "W"), history.Exclusive, 0, r.Tm.Long, r.Tm.Slack, 0); !ok {
		res := r.BreaksUnfreedBy("W", 0, mReleasedWriterOut.New(what, who, r.Tm.Slack))
		return &res
	}
	return nil
}

// Refused checks that c's attempt in mode is refused while another holds
// the lock in a way that forbids it; a grant is a break the judge finds
// among the holds, which broke explains.
func Refused(c *Client, mode history.Mode, permits int, broke msg.Msg) *Outcome {
	n := 0
	if mode == history.Permit {
		n = 1
	}
	if _, ok := c.TryMode(mode, n, c.R.Tm.Long); !ok {
		return nil
	}
	return twoHolders(c.R, c.Name, permits, broke)
}

// twoHolders claims that who's grant in r broke history.OneHolder (of a
// semaphore of permits), which m explains. A grant that came only once
// the holds that had to keep it out had run out their TTLs (the
// scenario's steps took that long on a loaded machine) is no break: the
// judge would give no verdict, and the run is disturbed instead.
func twoHolders(r *Run, who string, permits int, m msg.Msg) *Outcome {
	tl, _ := r.Rec.Timeline()
	claim := history.Check{Rule: history.OneHolder, Broken: true, Reason: &m, Permits: permits}
	if _, err := judge.Mutex(append(tl, history.Event{Kind: history.EvCheck, Check: &claim})); err != nil {
		r.Disturbed(mGrantedLapsed.New(who))
	}
	res := r.BreaksRuleOf(history.OneHolder, permits, m)
	return &res
}

// TakeOver has the kind's others take the lock from A, paused at at
// inside p past its Short TTL: W waits to write, or, the other permits
// taken by H1…HN-1, for A's. It returns the break when they could not
// (A resumed and done), or nil.
func (m KindMode) TakeOver(r *Run, p *pausedOp, at msg.Msg) *Outcome {
	var res Outcome
	mode, n := history.Exclusive, 0
	if m.Kind == strategy.Semaphore {
		mode, n = history.Permit, 1
		if took, no := takePermits(r, 0, m.Permits-1); no != "" {
			p.Resume()
			res = r.BreaksFreeRefusedOf(no, m.Permits, mLeftPermitRefused.New(mLatePausedAt.New(at), no, took+1, m.Permits))
			return &res
		}
	}
	r.Note(mLateTakeover.New(r.Tm.Short, r.Tm.Short+r.Tm.Slack))
	if _, ok := WaitMode(clientOf(r, "W"), mode, n, r.Tm.Long, r.Tm.Short+r.Tm.Slack, r.Tm.Short+r.Tm.StaleAfter()); !ok {
		// A paused holds nothing past its TTL: what it sent of its
		// operation left a hold that outlives it.
		why := r.LifeLeft(r.Tm.Short, r.Tm.Short+r.Tm.Slack)
		p.Resume()
		res = r.BreaksUnfreedBy("W", m.Permits, mLateKept.New(at, r.Tm.Short+r.Tm.Slack, why))
		return &res
	}
	r.Note(mLateSteps.New())
	return nil
}

// Intruders is the probe of A's late op, paused at at, once W holds the
// lock: R must be refused a read and X the write lock; for a semaphore,
// X a permit.
func (m KindMode) Intruders(r *Run, at msg.Msg, op string) func() *Outcome {
	x := clientOf(r, "X")
	if m.Kind == strategy.Semaphore {
		return func() *Outcome { return Refused(x, history.Permit, m.Permits, mLatePermitIn.New(at, op, m.Permits)) }
	}
	rd := clientOf(r, "R")
	return func() *Outcome {
		if res := Refused(rd, history.Shared, 0, mLateReadIn.New(at, op)); res != nil {
			return res
		}
		return Refused(x, history.Exclusive, 0, mLateWriteIn.New(at, op))
	}
}

// StepLate takes p, an operation paused at a boundary, one command at a
// time to its end; after each command, probe says whether what it did so
// far broke something. It returns probe's break, once p has ended, or nil.
func StepLate(p *pausedOp, probe func() *Outcome) *Outcome {
	for {
		more := p.next()
		if res := probe(); res != nil {
			for more {
				more = p.next()
			}
			return res
		}
		if !more {
			p.Wait()
			return nil
		}
	}
}

// Resume lets p, an operation paused at a boundary, go on to its end.
func (p *pausedOp) Resume() {
	p.c.Resume()
	p.Wait()
}

// What the properties of the kinds run in a mode share.
var (
	mLeftReadRefused = msg.Define("modes.read-refused", msg.K(msg.Sub, msg.Client),
		"{0}; once {1}'s TTL had passed, C was refused a read lock that nobody held")
	mLeftWriterIn = msg.Define("modes.writer-in", msg.K(msg.Sub, msg.Client),
		"{0}; once {1}'s TTL had passed, C read, and W took the lock to write while C held it")
	mLeftWriterOut = msg.Define("modes.writer-out", msg.K(msg.Sub, msg.Client, msg.Duration, msg.Sub),
		"{0}; once {1}'s TTL had passed and C had read and released, W still could not write {2} later: {3}")
	mLeftWaits = msg.Define("modes.waits", msg.K(msg.Client, msg.Duration, msg.Client, msg.Duration),
		"{0} waits up to {1} for the last permit ({2}'s TTL {3} + slack)")
	mLeftPermitRefused = msg.Define("modes.permit-refused", msg.K(msg.Sub, msg.Client, msg.Count, msg.Count),
		"{0}; then {1} was refused a permit while only {2} of the {3} were held")
	mLeftPermitOut = msg.Define("modes.permit-out", msg.K(msg.Sub, msg.Count, msg.Duration, msg.Sub),
		"{0}, and W still could not take the last of the {1} permits in {2}: {3}")
	mLatePausedAt = msg.Define("modes.late-paused", msg.K(msg.Sub),
		"A was paused {0} past its TTL")
	mLateTakeover = msg.Define("modes.late-takeover", msg.K(msg.Duration, msg.Duration),
		"A stays paused past its TTL ({0}); W waits up to {1} to take the lock")
	mLateKept = msg.Define("modes.late-kept", msg.K(msg.Sub, msg.Duration, msg.Sub),
		"A was paused {0} past its TTL, and W still could not take the lock {1} later: {2}")
	mLateReadIn = msg.Define("modes.late-read-in", msg.K(msg.Sub, msg.Op),
		"A was paused {0} until its TTL ran out and W took the lock to write; when A's {1} went on, R got a read lock while W held the write lock")
	mLateWriteIn = msg.Define("modes.late-write-in", msg.K(msg.Sub, msg.Op),
		"A was paused {0} until its TTL ran out and W took the lock to write; when A's {1} went on, X took the write lock while W held it")
	mLatePermitIn = msg.Define("modes.late-permit-in", msg.K(msg.Sub, msg.Op, msg.Count),
		"A was paused {0} until its TTL ran out and W took its permit; when A's {1} went on, X took one permit more than the {2}")
	mReleasedWriterOut = msg.Define("modes.released-writer-out", msg.K(msg.Sub, msg.Client, msg.Duration),
		"{0}; once {1} had released it, W still could not write {2} later")
	mExcludesWriter = msg.Define("modes.excludes-writer", msg.K(msg.Sub, msg.Client),
		"{0}, and W took the lock to write while {1} held its read lock")
	mExcludesPermit = msg.Define("modes.excludes-permit", msg.K(msg.Sub, msg.Client, msg.Count),
		"{0}, and X took a permit while {1} and the others held all {2}")
	mGrantedLapsed = msg.Define("disturbed.granted-lapsed", msg.K(msg.Client),
		"{0} was granted the lock only once the holds that had to keep it out had run out their TTLs: the machine was too slow for the scenario's timing")
	mLeftPermitExtra = msg.Define("modes.permit-extra", msg.K(msg.Sub, msg.Count),
		"{0}; then X took one permit more than the {1} the semaphore has")
)
