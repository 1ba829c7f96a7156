package locktest

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// HolderOverrun: the holder's work outlasts its TTL while others wait;
// they must not enter while it is still inside.

func init() {
	register(property{
		id: "holder-overrun", order: 130, scenario: holderOverrun,
		breaks: "a holder whose work outlasted its TTL was still inside when the next one entered; every TTL lock without a lease (strategy.Leased) breaks it",
	}, func(tm timing) floors {
		// B may get in as soon as A's Short TTL runs out, or wait it out
		// twice with Slack; the verdict alone does not say which.
		return floors{}
	})
}

// holderOverrun: A's work outlasts its TTL while B waits; B must not enter
// while A is inside.
func holderOverrun(newRun func(string) *run) outcome {
	r := newRun("")
	a, b := r.newClient("A", 0), r.newClient("B", 0)
	la, lb, done, _ := overrunTakeover(r, a, b, true, false)
	slowly, slow := false, r.tm.outlast(r.tm.Short)
	if lb == nil {
		// An acquire that writes even when it fails (a PEXPIRE queued
		// beside a losing SETNX) keeps the holder's key alive for as long
		// as a waiter keeps trying. Does the key outlive A's TTL once the
		// waiter, asking for the holder's TTL, tries less often than it?
		r.note(mTriesAgain.New(r.tm.Short, slow, r.tm.Short+r.tm.Slack))
		lb = b.waitFreeEvery(r.tm.Short, r.tm.Short+r.tm.Slack, slow, r.tm.Short+r.tm.staleAfter())
		slowly = lb != nil
	}
	if lb != nil {
		r.enterPast("B", "A", la)
		r.det.leave("B")
		b.release(lb)
	}
	if !done() {
		r.det.leave("A")
	}
	if o, ok := r.det.firstOverlap(); ok {
		a.release(la)
		if slowly {
			return r.breaksRule(history.OneInside, mOverrunKeptAlive.New(r.tm.Poll, slow, o))
		}
		return r.breaksRule(history.OneInside, mOverrunBreaks.New(o))
	}
	if lb == nil {
		// Kept by A's renewals, or never expiring at all? Without A, a
		// lock that expires frees within its TTL.
		a.crash(mCrashInsteadOfRelease.New())
		if b.waitFree(r.tm.Short, r.tm.Short+r.tm.Slack, r.tm.Short+r.tm.staleAfter()) == nil {
			return r.notApplicable(mOverrunNA.New(r.unexpired(r.tm.Short, r.tm.Short+r.tm.Slack)))
		}
	} else {
		a.release(la)
	}
	return r.holds(mOverrunHolds.New())
}

// holder-overrun's messages.
var (
	mTriesAgain = msg.Define("holder-overrun.tries-again", msg.K(msg.Duration, msg.Duration, msg.Duration),
		"B tries again with A's TTL ({0}), every {1}, for up to {2}")
	mOverrunKeptAlive = msg.Define("holder-overrun.breaks-kept-alive", msg.K(msg.Duration, msg.Duration, msg.Sub),
		"A's TTL ran out while it worked: B, polling every {0}, could not acquire the lock, yet trying every {1} with A's TTL it did: B's own failed attempts had kept A's key alive: {2}")
	mOverrunBreaks = msg.Define("holder-overrun.breaks", msg.K(msg.Sub),
		"A's TTL ran out while it worked and B acquired the lock: {0}")
	mOverrunNA = msg.Define("holder-overrun.n/a", msg.K(msg.Sub),
		"nobody else acquired the lock while A overran, nor after A died: {0}")
	mOverrunHolds = msg.Define("holder-overrun.holds", nil,
		"B did not acquire the lock while A overran its TTL")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("holder-overrun.scenario", nil,
		"the holder's work outlasts its TTL while others wait")
	_ = msg.Define("holder-overrun.must", nil,
		"nobody enters while it is still inside")
)
