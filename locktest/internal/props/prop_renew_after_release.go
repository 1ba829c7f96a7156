package props

import (
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// RenewAfterRelease: a lock that renews itself while held (a watchdog, a
// lease) stops when it is released. The holder acquires and does nothing
// for its TTL, in which a lock that renews itself must renew; then it
// releases, and for a TTL more the suite watches, on the client's proxy,
// whether it sends any command on the lock's keys after its Release
// returned: the send counts, not the reply, so a renewal in flight when
// Release was called and waited for is no break. A lock that sent nothing
// of its own while held does not renew itself: n/a, as safe-refresh is
// for a lock without Refresh, unless it too sends something after its
// release.

func init() {
	register(Property{
		id: "renew-after-release", order: 155, Scenario: renewAfterRelease,
		breaks: "the lock sent a command on its keys after its Release had returned: a renewal, or a watchdog, outlived the release",
		// A lock that does not renew itself has nothing to stop.
		Structural: true,
	}, func(tm sim.Timing) floors {
		// A holds for its TTL (and, renewing, until its next renewal),
		// then the suite watches for a TTL and Short more.
		d := 2*tm.RenewedTTL() + tm.Short
		return floors{Any: d, Holds: d}
	})
}

// renewAfterRelease: A acquires with renewed-overrun's TTL and holds it
// for that TTL, doing nothing, then until its lock's next renewal, if it
// renews itself; then A releases and the suite watches A's commands for
// the TTL and Short more: a lock that renews itself does so within each
// TTL, so a renewal Release did not stop comes in that time.
func renewAfterRelease(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	a := r.NewClient("A", 0)
	la := a.MustAcquire(r.Tm.RenewedTTL())
	return renewWatched(r, a, func() { a.Release(la) })
}

// renewWatched is renew-after-release once A has taken its hold with
// renewed-overrun's TTL: release gives it up.
func renewWatched(r *harness.Run, a *harness.Client, release func()) harness.Outcome {
	ttl := r.Tm.RenewedTTL()
	a.WatchLockCommands()
	r.Note(mRenewHolding.New(ttl))
	time.Sleep(ttl)
	renewed := a.LockCommandsSent() > 0
	if renewed {
		// Release right after a renewal is sent: the next one, a whole
		// interval away, cannot fall inside the release.
		n := a.LockCommandsSent()
		for end := time.Now().Add(ttl); a.LockCommandsSent() == n && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(r.Tm.Poll) // for its reply
	}
	a.LockCommands()
	release()
	a.WatchLockCommands()
	window := ttl + r.Tm.Short
	r.Note(mRenewWatching.New(window))
	time.Sleep(window)
	after := a.LockCommands()
	switch {
	case len(after) > 0:
		return r.Breaks(mRenewBreaks.New(after[0].Name, window))
	case !renewed:
		return r.NotApplicable(mRenewNA.New(ttl, window))
	}
	return r.Holds(mRenewHolds.New(window))
}

// renew-after-release's messages.
var (
	mRenewHolding = msg.Define("renew-after-release.holding", msg.K(msg.Duration),
		"A holds the lock for {0}, its TTL, doing nothing: what A sends on K meanwhile, its lock sends of its own accord")
	mRenewWatching = msg.Define("renew-after-release.watching", msg.K(msg.Duration),
		"A's Release has returned; the suite watches A's commands on K for {0}")
	mRenewBreaks = msg.Define("renew-after-release.breaks", msg.K(msg.Text, msg.Duration),
		"after its Release had returned, A sent {0} on K (watched for {1}): something of the released hold, such as a renewal its Release did not stop, still worked on the lock")
	mRenewNA = msg.Define("renew-after-release.n/a", msg.K(msg.Duration, msg.Duration),
		"A's lock sent no command of its own on K while A held it for {0}: it does not renew itself, so no renewal can outlive its release (nor did A send anything on K for {1} after its Release returned)")
	mRenewHolds = msg.Define("renew-after-release.holds", msg.K(msg.Duration),
		"A's lock sent commands of its own on K while A held it, as a lock that renews itself does; once its Release had returned, A sent nothing more on K for {0}")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("renew-after-release.scenario", nil,
		"the holder does nothing for its TTL while the suite lists what its lock sends of its own accord (renewals); then it releases, and the suite watches its commands for a TTL more")
	_ = msg.Define("renew-after-release.must", nil,
		"once Release has returned, the lock sends no command on its keys: no renewal outlives the release")
)
