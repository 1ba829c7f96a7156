package locktest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTimingGranularity: the defaults derive from the granularity, and
// every TTL the suite asks for is a whole multiple of it.
func TestTimingGranularity(t *testing.T) {
	for _, tt := range []struct {
		in   locktest.Timing
		want locktest.Timing
	}{
		{locktest.Timing{}, locktest.Timing{Granularity: time.Millisecond, Short: 60 * time.Millisecond, Long: 5 * time.Second, Slack: 500 * time.Millisecond, Poll: 5 * time.Millisecond}},
		{locktest.Timing{Granularity: time.Second}, locktest.Timing{Granularity: time.Second, Short: time.Second, Long: 5 * time.Second, Slack: time.Second, Poll: 5 * time.Millisecond}},
		{locktest.Timing{Granularity: 100 * time.Millisecond}, locktest.Timing{Granularity: 100 * time.Millisecond, Short: 100 * time.Millisecond, Long: 5 * time.Second, Slack: 500 * time.Millisecond, Poll: 5 * time.Millisecond}},
		{locktest.Timing{Granularity: 3 * time.Second, Short: 4 * time.Second}, locktest.Timing{Granularity: 3 * time.Second, Short: 6 * time.Second, Long: 6 * time.Second, Slack: 3 * time.Second, Poll: 15 * time.Millisecond}},
	} {
		assert.Equal(t, tt.want, tt.in.Resolved(), "%+v", tt.in)
	}
}

// wholeSeconds is a token lock that can only express whole seconds, and
// says so: it refuses any other TTL, so that a TTL the suite asks for
// that is not a multiple of its granularity is an error, not a verdict.
type wholeSeconds struct{ secondsLock }

func (wholeSeconds) Granularity() time.Duration { return time.Second }

func (s wholeSeconds) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if ttl%time.Second != 0 {
		return nil, fmt.Errorf("wholeSeconds: a TTL of %v is not a whole number of seconds", ttl)
	}
	return s.secondsLock.TryAcquire(ctx, key, ttl)
}

// TestGranularity: a lock that announces a granularity of a second runs
// at it, without being told, and gets a verdict in every row it is asked
// for, each the one a correct token lock without refresh gets.
func TestGranularity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs at a scale of seconds")
	}
	newLock := func(c locktest.Client) (strategy.Strategy, error) { return wholeSeconds{secondsLock{c.Pool}}, nil }
	cfg := locktest.Config{Addr: redistest.Shared(t).Addr, New: newLock, Key: redistest.Key(t)}
	caps, err := locktest.Detect(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, time.Second, caps.Granularity)
	assert.Contains(t, caps.String(), "TTLs in steps of 1s")
	for p, want := range map[locktest.Property]locktest.Verdict{
		locktest.CrashRecovery: locktest.Holds,
		locktest.LeaseKept:     locktest.Holds,
		locktest.SafeRelease:   locktest.Holds,
		locktest.HolderOverrun: locktest.Breaks,
		locktest.ClockSkew:     locktest.NotApplicable,
	} {
		res := locktest.Check(context.Background(), cfg, p)
		require.NoError(t, res.Err, p)
		assert.Equal(t, time.Second, res.Granularity, p)
		assert.Equal(t, want, res.Verdict, "%s at the lock's own scale: %s", p, res.Reason)
	}
}
