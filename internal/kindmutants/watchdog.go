package kindmutants

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	mutex "github.com/locklab/locklab/internal/mutants"
)

// lease is the TTL a hold's watchdog renews it with: the last one its
// holder asked for, by its acquire or a Refresh, so that a renewal never
// cuts a lease that a Refresh lengthened.
type lease struct {
	ttl atomic.Int64
	// extending orders a Refresh and a renewal: one that read the TTL
	// before a Refresh stored a longer one, and ran after it, would cut
	// the lease it lengthened.
	extending sync.Mutex
}

// extender extends a hold to live ttl.
type extender func(ctx context.Context, ttl time.Duration) error

// asked is a Refresh with ttl by the holder, which the watchdog renews
// with from then on, once it succeeded.
func (l *lease) asked(ctx context.Context, ttl time.Duration, extend extender) error {
	l.extending.Lock()
	defer l.extending.Unlock()
	err := extend(ctx, ttl)
	if err == nil {
		l.ttl.Store(int64(ttl))
	}
	return err
}

// watch starts the watchdog of a hold taken with ttl, every third of it
// (the mutex corpus's Watchdog): it returns what stops it, which does nothing with
// outlives (the slip).
func (l *lease) watch(ttl time.Duration, extend extender, outlives bool) (stop func()) {
	l.ttl.Store(int64(ttl))
	return mutex.Watchdog(renewal{l, extend}, ttl, !outlives)
}

// renewal is a hold as its watchdog refreshes it: with the lease's TTL,
// whatever it is asked.
type renewal struct {
	l      *lease
	extend extender
}

func (r renewal) Refresh(ctx context.Context, _ time.Duration) error {
	r.l.extending.Lock()
	defer r.l.extending.Unlock()
	return r.extend(ctx, time.Duration(r.l.ttl.Load()))
}
