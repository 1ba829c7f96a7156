package strategy

import (
	"context"
	"time"
)

// Fenced is implemented by locks that carry a fencing token: a number that
// increases strictly with every acquisition of the key, by any client, as
// long as the counter it is drawn from survives (a failover to a replica
// behind the primary, or a restart without persistence, can lose its last
// increments). A resource that remembers the highest token it has seen can
// refuse the writes of a holder whose lock has since passed to someone else.
type Fenced interface {
	Lock
	FencingToken() int64
}

// Leased is implemented by locks that renew themselves while held. Lease
// returns a context that is cancelled the moment the lock may have been lost
// (a renewal failed, found the lock gone, or could not finish before the TTL
// ran out) or when the lock is released; context.Cause tells why.
type Leased interface {
	Lock
	Lease() context.Context
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
