package harness

import (
	"slices"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// A late operation of A's (a release, a refresh, a second release) on a
// lock that has passed to B must leave B's lock exactly as B took it: the
// same value at K, an expiry no later than before and still there, and
// nobody else let in while it runs. The suite reads K before and after
// each command of A's, with B paused (its own renewals do not count), and
// lets C try at every boundary in between.

// KeyView is what the suite reads of K: its value, whatever its type
// (DUMP), and its remaining lifetime (PTTL: -1 without expiry, -2 when
// there is no key).
type KeyView struct {
	keys    []string   // the lock keys, as the timeline names them
	Values  []string   // each lock key's DUMP, "" where there is none
	writers [][]string // the clients that wrote each key's value (a string), as the recorder knows them
	Pttl    int64
}

// changed reports whether a lock key holds another value than before,
// and which: the first such key. A lock of several keys (a majority of
// them) may lose one that held a value of the late operation's own,
// written by its client alone, while the holder keeps its majority:
// that is not a change of the holder's lock, and C's attempt at each
// boundary catches a majority lost. A key of the holder's that goes is
// a change, whatever is left.
func (after KeyView) changed(before KeyView, by string) (int, bool) {
	for i := range after.Values {
		if i >= len(before.Values) || after.Values[i] == before.Values[i] {
			continue
		}
		if after.Values[i] == "" && len(after.Values) > 1 && i < len(before.writers) && slices.Equal(before.writers[i], []string{by}) {
			continue
		}
		return i, true
	}
	return 0, false
}

// Msg says what the view shows, for the timeline.
func (v KeyView) Msg() msg.Msg {
	switch v.Pttl {
	case -2:
		return mKeyGone.New()
	case -1:
		return mKeyNoExpiry.New()
	}
	return mKeyExpiresIn.New(Shown(v.Pttl))
}

// Shown rounds a PTTL to a tenth of a second: what the timeline and the
// reasons say of it is the same on every run.
func Shown(ms int64) time.Duration {
	return (time.Duration(ms) * time.Millisecond).Round(100 * time.Millisecond)
}

// ChangedFrom says how after differs from before in what the holder's
// lock must keep, which author's operation op did, or no message when it
// does not; by is the author's client, whose own keys of a lock of several
// may go. A holder that is not paused may push its own expiry back (its
// renewals): pushed says whether that counts.
func (after KeyView) ChangedFrom(before KeyView, author, by, op, holder string, pushed bool) msg.Msg {
	i, changed := after.changed(before, by)
	switch {
	case before.Pttl == -2:
		return msg.Msg{} // the holder's lock is not at K: nothing to compare
	case after.Pttl == -2:
		return mDeleted.New(author, op, holder)
	case changed && after.Values[i] == "":
		return mDeletedKey.New(author, op, sim.ValueArg(history.Arg{Kind: history.ArgLockKey, Text: after.keys[i]}), holder)
	case changed:
		return mOverwrote.New(author, op, holder)
	case before.Pttl >= 0 && after.Pttl == -1:
		return mExpiryRemoved.New(author, op, holder)
	case pushed && before.Pttl >= 0 && after.Pttl > before.Pttl:
		return mExpiryPushed.New(author, op, holder, Shown(before.Pttl), Shown(after.Pttl))
	}
	return msg.Msg{}
}

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
