package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// HolderOverrun: the holder's work outlasts its TTL while others wait;
// they must not enter while it is still inside.

func init() {
	register(Property{
		id: "holder-overrun", order: 130, Scenario: holderOverrun,
		breaks: "a holder whose work outlasted its TTL was still inside when the next one entered; every TTL lock without a lease (strategy.Leased) breaks it",
	}, func(tm sim.Timing) floors {
		// B may get in as soon as A's Short TTL runs out, or wait it out
		// twice with Slack; the verdict alone does not say which.
		return floors{}
	})
}

// holderOverrun: A's work outlasts its TTL while B waits; B must not enter
// while A is inside.
func holderOverrun(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	a, b := r.NewClient("A", 0), r.NewClient("B", 0)
	la, lb, done, _ := harness.OverrunTakeover(r, a, b, true, false)
	slowly, slow := false, r.Tm.Outlast(r.Tm.Short)
	if lb == nil {
		// An acquire that writes even when it fails (a PEXPIRE queued
		// beside a losing SETNX) keeps the holder's key alive for as long
		// as a waiter keeps trying. Does the key outlive A's TTL once the
		// waiter, asking for the holder's TTL, tries less often than it?
		r.Note(mTriesAgain.New(r.Tm.Short, slow, r.Tm.Short+r.Tm.Slack))
		lb = b.WaitFreeEvery(r.Tm.Short, r.Tm.Short+r.Tm.Slack, slow, r.Tm.Short+r.Tm.StaleAfter())
		slowly = lb != nil
	}
	if lb != nil {
		r.EnterPast("B", "A", la)
		r.Det.Leave("B")
		b.Release(lb)
	}
	if !done() {
		r.Det.Leave("A")
	}
	if o, ok := r.Det.FirstOverlap(); ok {
		a.Release(la)
		if slowly {
			return r.BreaksRule(history.OneInside, mOverrunKeptAlive.New(r.Tm.Poll, slow, o))
		}
		return r.BreaksRule(history.OneInside, mOverrunBreaks.New(o))
	}
	if lb == nil {
		// Kept by A's renewals, or never expiring at all? Without A, a
		// lock that expires frees within its TTL.
		a.Crash(mCrashInsteadOfRelease.New())
		if b.WaitFree(r.Tm.Short, r.Tm.Short+r.Tm.Slack, r.Tm.Short+r.Tm.StaleAfter()) == nil {
			return r.NotApplicable(mOverrunNA.New(r.Unexpired(r.Tm.Short, r.Tm.Short+r.Tm.Slack)))
		}
	} else {
		a.Release(la)
	}
	return r.Holds(mOverrunHolds.New())
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
