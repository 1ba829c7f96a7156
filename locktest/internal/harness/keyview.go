package harness

import (
	"slices"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/judge"
	"github.com/locklab/locklab/locktest/internal/sim"
)

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
		return judge.MsgDeleted.New(author, op, holder)
	case changed && after.Values[i] == "":
		return judge.MsgDeletedKey.New(author, op, sim.ValueArg(history.Arg{Kind: history.ArgLockKey, Text: after.keys[i]}), holder)
	case changed:
		return judge.MsgOverwrote.New(author, op, holder)
	case before.Pttl >= 0 && after.Pttl == -1:
		return judge.MsgExpiryRemoved.New(author, op, holder)
	case pushed && before.Pttl >= 0 && after.Pttl > before.Pttl:
		return judge.MsgExpiryPushed.New(author, op, holder, Shown(before.Pttl), Shown(after.Pttl))
	}
	return msg.Msg{}
}
