package locktest_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/luatoken"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// silentLease is luatoken with its watchdog, whose locks hand their
// holder a lease that ends only at their release: a renewal that fails,
// or never gets through, is kept from the holder, who works on while
// another client holds the lock. It is the lease a blog's watchdog
// written on a goroutine and a context of its own gives.
type silentLease struct{ *luatoken.Strategy }

type silentLock struct {
	*luatoken.Lock
	lease  context.Context
	cancel context.CancelFunc
}

func (s silentLease) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	l, err := s.Strategy.TryAcquire(ctx, key, ttl)
	if l == nil || err != nil {
		return l, err
	}
	lease, cancel := context.WithCancel(context.Background())
	return &silentLock{Lock: l.(*luatoken.Lock), lease: lease, cancel: cancel}, nil
}

func (l *silentLock) Lease() (context.Context, bool) { return l.lease, true }

func (l *silentLock) Release(ctx context.Context) error {
	l.cancel()
	return l.Lock.Release(ctx)
}

func newRenewing(c locktest.Client) (*luatoken.Strategy, error) {
	return luatoken.New(c.Pool, luatoken.WithAutoRenew(0), luatoken.WithLeaseMargin(20*time.Millisecond))
}

// TestExploreHeedsTheLease: the explorer's holders of a leased lock
// leave when their lease is lost, so a lease that is never lost is
// found, with a client inside while another one is; luatoken's own
// lease, which ends before its key can expire, shows no violation.
func TestExploreHeedsTheLease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	addr := redistest.Shared(t).Addr
	explore := func(name string, f locktest.Factory, runs int) locktest.Result {
		t.Helper()
		cfg := locktest.Config{Addr: addr, New: f, Key: redistest.Key(t) + ":" + name}
		res, err := locktest.Explore(ctx, cfg, locktest.ExploreOptions{Seed: 1, Runs: runs, Budget: time.Minute})
		require.NoError(t, err)
		t.Logf("%s: %s: %s", name, res.Verdict, res.Reason())
		for _, n := range res.Notes {
			t.Logf("  %s", n)
		}
		return res
	}

	res := explore("silent", func(c locktest.Client) (strategy.Strategy, error) {
		s, err := newRenewing(c)
		return silentLease{s}, err
	}, 300)
	require.Equal(t, locktest.Breaks, res.Verdict, res.Reason())
	var claim *history.Check
	for _, e := range res.Timeline {
		if e.Kind == history.EvCheck && e.Check != nil && e.Check.Broken {
			claim = e.Check
		}
	}
	require.NotNil(t, claim, "the break's history holds its claim")
	assert.Equal(t, history.OneInside, claim.Rule, res.Reason())
	again, err := locktest.Judge(res)
	require.NoError(t, err)
	assert.Equal(t, locktest.Breaks, again.Verdict, "Judge confirms the break from its history: %s", again.Reason())

	res = explore("heeded", func(c locktest.Client) (strategy.Strategy, error) { return newRenewing(c) }, 20)
	assert.Equal(t, locktest.Holds, res.Verdict, res.Reason())
}
