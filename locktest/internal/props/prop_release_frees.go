package props

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// ReleaseFrees (liveness): right after the holder releases, another
// client's single attempt succeeds, without waiting for the TTL; and a
// Release that reports success when its command failed has still freed
// the lock. A lock that refuses a free lock in every attempt, quickly or
// slowly, breaks it too (refusals.go).

func init() {
	register(Property{
		id: "release-frees", order: 20, Scenario: releaseFrees,
		breaks: "a release did not free the lock for the next client's attempt, or a free lock was refused every time",
	}, func(tm sim.Timing) floors {
		// Acquires and releases with the Long TTL, which never runs out:
		// nothing to wait for.
		return floors{}
	})
}

// releaseFrees: right after A releases, B's single attempt must succeed;
// and a Release that reports success when its command failed must have
// freed the lock all the same.
func releaseFrees(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("/release")
	a, b := r.NewClient("A", 0), r.NewClient("B", 0)
	la, found, took := a.AcquireFree(r.Tm.Long)
	if found != nil {
		return r.BreaksRefused("A", found)
	}
	if la == nil {
		a.AbortRefused(nil, took)
	}
	err := a.ReleaseErr(la)
	if b.TryAcquire(r.Tm.Long) == nil {
		if err != nil {
			return r.BreaksFreeRefused("B", mFreesFailed.New(r.ErrText(err), r.Tm.Long))
		}
		return r.BreaksFreeRefused("B", mFreesBreaks.New(r.Tm.Long))
	}
	r.Shutdown()

	r = newRun("/failed-release")
	a, b = r.NewClient("A", 0), r.NewClient("B", 0)
	la = a.MustAcquire(r.Tm.Long)
	// Every command A sends until its release returns fails: a release
	// that sends several at once (one per key) meets the failure in each,
	// whatever their order, as on a dropped connection.
	a.SetFailing(true)
	r.Note(mNextFails.New())
	err = a.ReleaseErr(la)
	a.SetFailing(false)
	if err != nil {
		return r.Holds(mFreesSaidSo.New(r.ErrText(err)))
	}
	if b.TryAcquire(r.Tm.Long) == nil {
		return r.BreaksFreeRefused("B", mFreesLied.New())
	}
	return r.Holds(mFreesHolds.New())
}

// release-frees's messages.
var (
	mFreesFailed = msg.Define("release-frees.breaks-failed", msg.K(msg.Text, msg.Duration),
		"A's release of the lock it held failed ({0}), and B's attempt right after found it still taken: the lock goes only when its TTL ({1}) runs out")
	mFreesBreaks = msg.Define("release-frees.breaks", msg.K(msg.Duration),
		"A released its lock, and B's attempt right after found it still taken: the release does not free the lock, which goes only when its TTL ({0}) runs out")
	mNextFails = msg.Define("release-frees.next-fails", nil,
		"A's commands fail without being sent until its release returns, as when its connection drops")
	mFreesSaidSo = msg.Define("release-frees.holds-said-so", msg.K(msg.Text),
		"after A released, B acquired at once; a release whose command failed said so ({0})")
	mFreesLied = msg.Define("release-frees.breaks-lied", nil,
		"A's release reported success although its command failed and never reached Redis: B's attempt right after found the lock still taken")
	mFreesHolds = msg.Define("release-frees.holds", nil,
		"after A released, B acquired at once, even when A's first release command failed")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("release-frees.scenario", nil,
		"the holder releases; then again with the release's first command failing on the wire")
	_ = msg.Define("release-frees.must", nil,
		"another client's single attempt right after succeeds, unless the release reported its failure")
)
