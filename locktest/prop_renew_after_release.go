package locktest

import (
	"time"

	"github.com/locklab/locklab/internal/msg"
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
	register(property{
		id: "renew-after-release", order: 155, scenario: renewAfterRelease,
		breaks: "the lock sent a command on its keys after its Release had returned: a renewal, or a watchdog, outlived the release",
		// A lock that does not renew itself has nothing to stop.
		structural: true,
	}, func(tm timing) floors {
		// A holds for its TTL (and, renewing, until its next renewal),
		// then the suite watches for a TTL and Short more.
		d := 2*tm.renewedTTL() + tm.Short
		return floors{any: d, holds: d}
	})
}

// renewAfterRelease: A acquires with renewed-overrun's TTL and holds it
// for that TTL, doing nothing, then until its lock's next renewal, if it
// renews itself; then A releases and the suite watches A's commands for
// the TTL and Short more: a lock that renews itself does so within each
// TTL, so a renewal Release did not stop comes in that time.
func renewAfterRelease(newRun func(string) *run) outcome {
	r := newRun("")
	a := r.newClient("A", 0)
	ttl := r.tm.renewedTTL()
	la := a.mustAcquire(ttl)
	a.watchLockCommands()
	r.note(mRenewHolding.New(ttl))
	time.Sleep(ttl)
	renewed := a.lockCommandsSent() > 0
	if renewed {
		// Release right after a renewal is sent: the next one, a whole
		// interval away, cannot fall inside the release.
		n := a.lockCommandsSent()
		for end := time.Now().Add(ttl); a.lockCommandsSent() == n && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(r.tm.Poll) // for its reply
	}
	a.lockCommands()
	a.release(la)
	a.watchLockCommands()
	window := ttl + r.tm.Short
	r.note(mRenewWatching.New(window))
	time.Sleep(window)
	after := a.lockCommands()
	switch {
	case len(after) > 0:
		return r.breaks(mRenewBreaks.New(after[0].name, window))
	case !renewed:
		return r.notApplicable(mRenewNA.New(ttl, window))
	}
	return r.holds(mRenewHolds.New(window))
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
