package sim

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

// Held is one hold of a lock of a kind: the lock, and its hold in the
// history.
type Held struct {
	L  strategy.Lock
	id int
}

// TryMode makes one attempt in mode (n permits, for a semaphore) and
// records it with its mode, its permits and, when granted, a new hold.
// Refusals and crashes give no hold; other errors abort.
func (c *Client) TryMode(mode history.Mode, n int, ttl time.Duration) (Held, bool) {
	var l strategy.Lock
	var err error
	o := c.Begin(ttl)
	c.r.Guard(c.Name, "TryAcquire", func() {
		switch {
		case mode == history.Shared:
			l, err = c.S.(strategy.Shared).TryAcquireShared(c.r.Ctx, c.r.Key, ttl)
		case n > 1:
			l, err = c.S.(strategy.Weighted).TryAcquireN(c.r.Ctx, c.r.Key, n, ttl)
		default:
			l, err = c.S.TryAcquire(c.r.Ctx, c.r.Key, ttl)
		}
	})
	e := c.Outcome(o, history.EvAcquired, err)
	if mode == history.Exclusive && c.ReadWrite() {
		mode = history.Write
	}
	e.Mode = mode
	if mode == history.Permit {
		e.Permits = n
	}
	switch {
	case err == nil && l == nil:
		c.r.Fail(mFailNeither.New(c.Name))
	case err == nil:
		c.unseen()
		e.Hold = int(c.r.holdIDs.Add(1))
		said := acquiredIn(mode, n)
		e.Msg = &said
		c.r.Rec.Add(e)
		return Held{l, e.Hold}, true
	case errors.Is(err, strategy.ErrNotAcquired):
		e.Kind, e.Err = history.EvNotAcquired, ""
		c.r.Rec.Add(e)
	case c.isCrashed():
	default:
		c.r.Fail(mFailUnexpected.New(c.Name, "acquire", err.Error()))
	}
	return Held{}, false
}

// ReleaseHeld gives h up and records it as the end of h's hold.
// ErrNotHeld and crashes are recorded, not fatal.
func (c *Client) ReleaseHeld(h Held) {
	var err error
	o := c.Begin(0)
	c.r.Guard(c.Name, "Release", func() { err = h.L.Release(c.r.Ctx) })
	e := c.Outcome(o, history.EvReleased, err)
	e.Hold = h.id
	c.r.Rec.Add(e)
	if err != nil && !errors.Is(err, strategy.ErrNotHeld) && !c.isCrashed() {
		c.r.Fail(mFailUnexpected.New(c.Name, "release", err.Error()))
	}
}

// acquiredIn is what a grant in mode of n permits says in a timeline, so
// that a diagram shows who reads, who writes and how many permits each
// holds.
func acquiredIn(mode history.Mode, n int) msg.Msg {
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

// ReadWrite says whether c's lock is a read-write lock; permits how many
// permits its semaphore has, 0 when it is not one.
func (c *Client) ReadWrite() bool { return strategy.KindOf(c.S) == strategy.ReadWrite }

func (c *Client) Permits() int {
	if s, ok := c.S.(strategy.Counting); ok {
		return s.Permits()
	}
	return 0
}

// What the properties of the kinds share.
var (
	MsgNotReadWrite = msg.Define("kinds.not-read-write", nil,
		"the lock is not a read-write lock (strategy.Shared)")
	MsgNotSemaphore = msg.Define("kinds.not-semaphore", nil,
		"the lock is not a semaphore (strategy.Counting)")
	mAcquiredRead    = msg.Define("event.acquired-read", nil, "read lock acquired")
	mAcquiredWrite   = msg.Define("event.acquired-write", nil, "write lock acquired")
	mAcquiredPermits = msg.Define("event.acquired-permits", msg.K(msg.Count), "{0} {0|permit|permits} acquired")
)
