package rueidislock_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/locktest"
	ruelock "github.com/locklab/locklab/peers/rueidislock"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/redis/rueidis/rueidislock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unkeyed is rueidislock as a user first wraps it: TryAcquire, and the
// clock it reads, but not the keys it keeps the lock under
// (strategy.Keyed).
type unkeyed struct{ l *ruelock.Locks }

func (u unkeyed) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return u.l.TryAcquire(ctx, key, ttl)
}

func (u unkeyed) OwnClock() bool { return u.l.OwnClock() }

// TestUndeclaredKeys: wrapped without strategy.Keyed, rueidislock
// (KeyMajority 1: one key, rueidislock:0:<name>) writes keys the suite
// does not read. acquire-faults, which reads K, gets no verdict, and says
// why, where it broke with "K is not there: B holds nothing"; exclusion,
// judged by who is inside, keeps its verdict with the same note. Nothing
// breaks.
func TestUndeclaredKeys(t *testing.T) {
	srv := redistest.Shared(t)
	cfg := locktest.Config{Addr: srv.Addr, Key: redistest.Key(t),
		Timing: locktest.Timing{Granularity: 250 * time.Millisecond}, // the peers' scale for rueidislock
		New: func(c locktest.Client) (strategy.Strategy, error) {
			l, err := ruelock.New(rueidislock.LockerOption{ClientOption: ruelock.ClientOption(c.Addr, c.Password), KeyMajority: 1, TryNextAfter: time.Second})
			if err != nil {
				return nil, err
			}
			c.Cleanup(l.Close)
			return unkeyed{l}, nil
		}}
	const said = "the lock wrote rueidislock:0:K, not K: declare its keys (strategy.Keyed in Go, keys= on an -exec program's ready line; docs/your-own-lock.md)"

	res := locktest.Check(context.Background(), cfg, locktest.AcquireFaults)
	assert.Equal(t, locktest.NoVerdict, res.Verdict, res.Reason())
	require.Error(t, res.Err)
	assert.Equal(t, said, res.Err.Error())

	// Exclusion reads K only when an attempt is slow, on a loaded
	// machine: then it too has no verdict.
	res = locktest.Check(context.Background(), cfg, locktest.Exclusion)
	if res.Err != nil {
		assert.Equal(t, said, res.Err.Error())
		return
	}
	assert.Equal(t, locktest.Holds, res.Verdict, res.Reason())
	require.Len(t, res.Notes, 1)
	assert.Equal(t, said, res.Notes[0].String())
}
