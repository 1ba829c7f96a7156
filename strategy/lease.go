package strategy

import (
	"context"
	"time"
)

// Fenced is implemented by locks that can carry a fencing token: a number
// that increases strictly with every acquisition of the key, by any client,
// as long as the counter it is drawn from survives (a failover to a replica
// behind the primary, or a restart without persistence, can lose its last
// increments). A resource that remembers the highest token it has seen can
// refuse the writes of a holder whose lock has since passed to someone else.
//
// FencingToken returns the lock's token, and ok false when this lock
// carries none: a strategy whose fencing is an option returns one lock type
// whether it is on or off.
type Fenced interface {
	Lock
	FencingToken() (token int64, ok bool)
}

// Leased is implemented by locks that can renew themselves while held.
// Lease returns a context that is cancelled the moment the lock may have
// been lost (a renewal failed, found the lock gone, or could not finish
// before the TTL ran out) or when the lock is released; context.Cause tells
// why. It returns ok false, and a nil context, when this lock does not
// renew itself: a strategy whose renewal is an option returns one lock type
// whether it is on or off.
type Leased interface {
	Lock
	Lease() (lease context.Context, ok bool)
}

// Refresher is implemented by locks that can extend themselves while held.
// Refresh makes the lock live ttl from now if it is still this holder's, and
// returns ErrNotHeld (possibly wrapped) when it is gone or someone else's:
// a late Refresh must neither extend another holder's lock nor take it back.
// The conformance suite's safe-refresh property checks exactly that.
type Refresher interface {
	Lock
	Refresh(ctx context.Context, ttl time.Duration) error
}

// Granular is implemented by strategies whose TTLs count in steps coarser
// than a millisecond: a lock that sends EX, or a library whose expiry is a
// whole number of seconds. Granularity returns that step; the conformance
// suite then asks only for TTLs that are whole multiples of it
// (locktest.Timing.Granularity).
type Granular interface {
	Strategy
	Granularity() time.Duration
}

// Keyed is implemented by strategies that keep a lock's state under keys
// other than the one they are given (rueidislock writes
// rueidislock:<i>:<name> for each of its keys). Keys returns them for a
// lock on key; the conformance suite then reads those wherever it reads
// the lock's key: its remaining time, whether it is gone.
type Keyed interface {
	Strategy
	Keys(key string) []string
}

// SideKeyed is implemented by strategies that write keys beside those
// that say whether a lock is held (key, or Keyed's): a waiting writer's
// intent, a counter of fencing tokens, keys named after each holder.
// SideKeys returns their names for a lock on key, a * in a name standing
// for any text (a holder's id, drawn as the lock goes). The conformance
// suite counts the keys written that match as the lock's own, and reads
// none of them: it judges the lock by its Keys.
type SideKeyed interface {
	Strategy
	SideKeys(key string) []string
}

// OwnClock is implemented by strategies that read a clock of their own,
// which Client.Clock in the conformance suite cannot replace (a library
// that calls time.Now), and send absolute times taken from it (PXAT,
// EXAT, PEXPIREAT, EXPIREAT, a timestamp in a script's arguments).
// OwnClock reports whether it does. For a client whose clock the suite
// skews, its proxy then moves those times by the skew on their way to
// Redis, as the client's own clock would have.
type OwnClock interface {
	Strategy
	OwnClock() bool
}

// FencingToken returns l's fencing token, and false when l carries none
// (it is not Fenced, or its FencingToken says so).
func FencingToken(l Lock) (int64, bool) {
	if f, ok := l.(Fenced); ok {
		return f.FencingToken()
	}
	return 0, false
}

// Lease returns l's lease, and false when l has none (it is not Leased, or
// its Lease says so).
func Lease(l Lock) (context.Context, bool) {
	if ll, ok := l.(Leased); ok {
		return ll.Lease()
	}
	return nil, false
}
