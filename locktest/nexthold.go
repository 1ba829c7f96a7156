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

// String says what the view shows, for the timeline.
func (v keyView) String() string {
	switch v.pttl {
	case -2:
		return "K is gone"
	case -1:
		return "K has no expiry"
	}
	return fmt.Sprintf("K expires in %v", shown(v.pttl))
}

// shown rounds a PTTL to a tenth of a second: what the timeline and the
// reasons say of it is the same on every run.
func shown(ms int64) time.Duration {
	return (time.Duration(ms) * time.Millisecond).Round(100 * time.Millisecond)
}

// changedFrom says how after differs from before in what the holder's
// lock must keep, or "" when it does not. A holder that is not paused
// may push its own expiry back (its renewals): pushed says whether that
// counts.
func (after keyView) changedFrom(before keyView, holder string, pushed bool) string {
	switch {
	case before.pttl == -2:
		return "" // the holder's lock is not at K: nothing to compare
	case after.pttl == -2:
		return fmt.Sprintf("deleted K, %s's lock", holder)
	case after.value != before.value:
		return fmt.Sprintf("overwrote K, %s's lock, with another value", holder)
	case before.pttl >= 0 && after.pttl == -1:
		return fmt.Sprintf("removed the expiry of K, %s's lock: should %s die, the lock is never freed", holder, holder)
	case pushed && before.pttl >= 0 && after.pttl > before.pttl:
		return fmt.Sprintf("pushed the expiry of K, %s's lock, back from %v to %v", holder, shown(before.pttl), shown(after.pttl))
	}
	return ""
}

// lateSteps takes A's late operation p, paused at a boundary while B holds
// the lock, one command at a time to its end, with B paused meanwhile:
// after each command K must be as it was, and at each boundary C must not
// acquire. It returns what went wrong, or "" once p has ended with B's
// lock as it was.
func (r *run) lateSteps(p *pausedOp, b, c *simClient) string {
	return r.lateStepsOf(p, "B", b, c)
}

// lateStepsOf is lateSteps for the lock of holder, whose client b is
// paused meanwhile; b is nil when the holder is a goroutine of p's own
// client, which cannot be paused without p.
func (r *run) lateStepsOf(p *pausedOp, holder string, b, c *simClient) string {
	var view keyView
	if b != nil {
		b.pause()
		defer b.resume()
		view = r.viewKey()
		r.note("%s is paused; the suite reads K: %v", holder, view)
	} else {
		view = r.viewKey()
		r.note("the suite reads K: %v", view)
	}
	for {
		from := p.k
		more := p.next()
		after := r.viewKey()
		if what := after.changedFrom(view, holder, b != nil); what != "" {
			r.note("the suite reads K: %v", after)
			broke := fmt.Sprintf("its %s %s", p.op, what)
			if p.n > 1 {
				broke += fmt.Sprintf(" (its %s command)", ordinal(from+1))
			}
			for more {
				more = p.next() // the rest of A's operation, to its end
			}
			if c.tryAcquire(r.tm.Long) != nil {
				broke += fmt.Sprintf(": C acquired it while %s still held it", holder)
			}
			return broke
		}
		if !more {
			r.note("A's %s is over; the suite reads K: %v", p.op, after)
			return ""
		}
		if c.tryAcquire(r.tm.Long) != nil {
			return fmt.Sprintf("C acquired the lock while %s held it, with A paused %s: A's late %s had let a third holder in",
				holder, boundaryText(p.k, p.n, p.op), p.op)
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
