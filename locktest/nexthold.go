package locktest

import (
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
)

// A late operation of A's (a release, a refresh, a second release) on a
// lock that has passed to B must leave B's lock exactly as B took it: the
// same value at K, an expiry no later than before and still there, and
// nobody else let in while it runs. The suite reads K before and after
// each command of A's, with B paused (its own renewals do not count), and
// lets C try at every boundary in between.

// keyView is what the suite reads of K: its value, whatever its type
// (DUMP), and its remaining lifetime (PTTL: -1 without expiry, -2 when
// there is no key).
type keyView struct {
	value string
	pttl  int64
}

// viewKey reads K on the suite's own connection.
func (r *run) viewKey() keyView {
	var v keyView
	r.redis(func(c redis.Conn) error {
		dump, err := redis.String(c.Do("DUMP", r.key))
		if err != nil && err != redis.ErrNil {
			return err
		}
		v.value = dump
		v.pttl, err = redis.Int64(c.Do("PTTL", r.key))
		return err
	})
	return v
}

// msg says what the view shows, for the timeline.
func (v keyView) msg() Message {
	switch v.pttl {
	case -2:
		return mKeyGone.New()
	case -1:
		return mKeyNoExpiry.New()
	}
	return mKeyExpiresIn.New(shown(v.pttl))
}

// shown rounds a PTTL to a tenth of a second: what the timeline and the
// reasons say of it is the same on every run.
func shown(ms int64) time.Duration {
	return (time.Duration(ms) * time.Millisecond).Round(100 * time.Millisecond)
}

// changedFrom says how after differs from before in what B's lock must
// keep, or no message when it does not.
func (after keyView) changedFrom(before keyView) Message {
	switch {
	case before.pttl == -2:
		return Message{} // B's lock is not at K: nothing to compare
	case after.pttl == -2:
		return mDeleted.New()
	case after.value != before.value:
		return mOverwrote.New()
	case before.pttl >= 0 && after.pttl == -1:
		return mExpiryRemoved.New()
	case before.pttl >= 0 && after.pttl > before.pttl:
		return mExpiryPushed.New(shown(before.pttl), shown(after.pttl))
	}
	return Message{}
}

// lateSteps takes A's late operation p, paused at a boundary while B holds
// the lock, one command at a time to its end, with B paused meanwhile:
// after each command K must be as it was, and at each boundary C must not
// acquire. It returns what went wrong, or no message once p has ended
// with B's lock as it was.
func (r *run) lateSteps(p *pausedOp, b, c *simClient) Message {
	b.pause()
	defer b.resume()
	view := r.viewKey()
	r.note(mBPausedReads.New(view.msg()))
	for {
		from := p.k
		more := p.next()
		after := r.viewKey()
		if what := after.changedFrom(view); !what.IsZero() {
			r.note(mReadsK.New(after.msg()))
			for more {
				more = p.next() // the rest of A's operation, to its end
			}
			took := c.tryAcquire(r.tm.Long) != nil
			switch {
			case p.n > 1 && took:
				return mItsOpDidAtC.New(p.op, what, from+1)
			case p.n > 1:
				return mItsOpDidAt.New(p.op, what, from+1)
			case took:
				return mItsOpDidC.New(p.op, what)
			}
			return mItsOpDid.New(p.op, what)
		}
		if !more {
			r.note(mOpOverReads.New(p.op, after.msg()))
			return Message{}
		}
		if c.tryAcquire(r.tm.Long) != nil {
			return mThirdHolder.New(boundary(p.k, p.n, p.op), p.op)
		}
		view = after
	}
}

// ordinal spells k as an ordinal: "first", "second", ..., "6th".
func ordinal(k int) string {
	if names := []string{"first", "second", "third", "fourth", "fifth"}; k >= 1 && k <= len(names) {
		return names[k-1]
	}
	return fmt.Sprintf("%dth", k)
}
