package harness

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// A late operation of A's (a release, a refresh, a second release) on a
// lock that has passed to B must leave B's lock exactly as B took it: the
// same value at K, an expiry no later than before and still there, and
// nobody else let in while it runs. The suite reads K before and after
// each command of A's, with B paused (its own renewals do not count), and
// lets C try at every boundary in between.

// LateSteps takes A's late operation p, paused at a boundary while B holds
// the lock, one command at a time to its end, with B paused meanwhile:
// after each command K must be as it was, and at each boundary C must not
// acquire. It returns what went wrong, or no message once p has ended
// with B's lock as it was.
func LateSteps(r *Run, p *pausedOp, b, c *Client) finding {
	return LateStepsOf(r, p, "A", "B", b, c)
}

// finding is what a scenario found broken, and the rule under which the
// judge finds it in the history: C let in while another held the lock is
// OneHolder, a key changed under its holder is Observed.
type finding struct {
	Msg  msg.Msg
	Rule history.Rule
}

// IsZero says that nothing was found.
func (f finding) IsZero() bool { return f.Msg.IsZero() }

// LateStepsOf is lateSteps for the lock of holder, whose client b is
// paused meanwhile; b is nil when the holder is a goroutine of p's own
// client, which cannot be paused without p. author names the late
// operation's client in what went wrong (A, or its goroutine A1).
func LateStepsOf(r *Run, p *pausedOp, author, holder string, b, c *Client) finding {
	var view KeyView
	if b != nil {
		b.Pause()
		defer b.Resume()
		view = r.ViewKey()
		r.Note(mHolderPausedReads.New(holder, view.Msg()))
	} else {
		view = r.ViewKey()
		r.Note(mReadsK.New(view.Msg()))
	}
	for {
		from := p.k
		more := p.next()
		after := r.ViewKey()
		if what := after.ChangedFrom(view, author, p.c.Name, p.op, holder, b != nil); !what.IsZero() {
			r.Note(mReadsK.New(after.Msg()))
			for more {
				more = p.next() // the rest of A's operation, to its end
			}
			took := c.TryAcquire(r.Tm.Long) != nil
			if p.n > 1 {
				what = mAtCommand.New(what, author, p.op, from+1)
			}
			if took {
				return finding{mThenC.New(what, holder), history.OneHolder}
			}
			return finding{what, history.Observed}
		}
		if !more {
			r.Note(mOpOverReads.New(p.op, after.Msg()))
			return finding{}
		}
		if c.TryAcquire(r.Tm.Long) != nil {
			return finding{mThirdHolder.New(holder, Boundary(p.k, p.n, p.op), p.op), history.OneHolder}
		}
		view = after
	}
}
