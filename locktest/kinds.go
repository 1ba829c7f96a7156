package locktest

import (
	"errors"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// The clients of a read-write lock or a semaphore take it in a mode (a
// reader's shared hold, a writer's exclusive one, some permits), and may
// hold it several times at once: each grant opens a hold of its own in
// the history (history.Event.Hold), which its release ends, so that the
// judge counts readers and permits hold by hold.

// held is one hold of a lock of a kind: the lock, and its hold in the
// history.
type held struct {
	l  strategy.Lock
	id int
}

// tryMode makes one attempt in mode (n permits, for a semaphore) and
// records it with its mode, its permits and, when granted, a new hold.
// Refusals and crashes give no hold; other errors abort.
func (c *simClient) tryMode(mode history.Mode, n int, ttl time.Duration) (held, bool) {
	var l strategy.Lock
	var err error
	o := c.begin(ttl)
	c.r.guard(c.name, "TryAcquire", func() {
		switch {
		case mode == history.Shared:
			l, err = c.s.(strategy.Shared).TryAcquireShared(c.r.ctx, c.r.key, ttl)
		case n > 1:
			l, err = c.s.(strategy.Weighted).TryAcquireN(c.r.ctx, c.r.key, n, ttl)
		default:
			l, err = c.s.TryAcquire(c.r.ctx, c.r.key, ttl)
		}
	})
	e := c.outcome(o, history.EvAcquired, err)
	if mode == history.Exclusive && c.readWrite() {
		mode = history.Write
	}
	e.Mode = mode
	if mode == history.Permit {
		e.Permits = n
	}
	switch {
	case err == nil && l == nil:
		c.r.fail(mFailNeither.New(c.name))
	case err == nil:
		c.unseen()
		e.Hold = int(c.r.holdIDs.Add(1))
		said := acquiredIn(mode, n)
		e.Msg = &said
		c.r.rec.add(e)
		return held{l, e.Hold}, true
	case errors.Is(err, strategy.ErrNotAcquired):
		e.Kind, e.Err = history.EvNotAcquired, ""
		c.r.rec.add(e)
	case c.isCrashed():
	default:
		c.r.fail(mFailUnexpected.New(c.name, "acquire", err.Error()))
	}
	return held{}, false
}

// releaseHeld gives h up and records it as the end of h's hold.
// ErrNotHeld and crashes are recorded, not fatal.
func (c *simClient) releaseHeld(h held) {
	var err error
	o := c.begin(0)
	c.r.guard(c.name, "Release", func() { err = h.l.Release(c.r.ctx) })
	e := c.outcome(o, history.EvReleased, err)
	e.Hold = h.id
	c.r.rec.add(e)
	if err != nil && !errors.Is(err, strategy.ErrNotHeld) && !c.isCrashed() {
		c.r.fail(mFailUnexpected.New(c.name, "release", err.Error()))
	}
}

// acquiredIn is what a grant in mode of n permits says in a timeline, so
// that a diagram shows who reads, who writes and how many permits each
// holds.
func acquiredIn(mode history.Mode, n int) Message {
	switch mode {
	case history.Shared:
		return mAcquiredRead.New()
	case history.Write:
		return mAcquiredWrite.New()
	case history.Permit:
		return mAcquiredPermits.New(max(n, 1))
	}
	m, _ := history.Said(history.EvAcquired)
	return m
}

// readWrite says whether c's lock is a read-write lock; permits how many
// permits its semaphore has, 0 when it is not one.
func (c *simClient) readWrite() bool { return strategy.KindOf(c.s) == strategy.ReadWrite }

func (c *simClient) permits() int {
	if s, ok := c.s.(strategy.Counting); ok {
		return s.Permits()
	}
	return 0
}

// What the properties of the kinds share.
var (
	mNotReadWrite = msg.Define("kinds.not-read-write", nil,
		"the lock is not a read-write lock (strategy.Shared)")
	mNotSemaphore = msg.Define("kinds.not-semaphore", nil,
		"the lock is not a semaphore (strategy.Counting)")
	mAcquiredRead    = msg.Define("event.acquired-read", nil, "read lock acquired")
	mAcquiredWrite   = msg.Define("event.acquired-write", nil, "write lock acquired")
	mAcquiredPermits = msg.Define("event.acquired-permits", msg.K(msg.Count), "{0} {0|permit|permits} acquired")
)
