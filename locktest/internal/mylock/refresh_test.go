package mylock_test

import (
	"time"

	"context"
	"os"
	"strings"
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/locktest/internal/mylock"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRefreshing: the suite finds that NewRefreshing's locks can be
// refreshed, and safe-refresh, which refreshes them late, holds; the plain
// locks of New offer nothing more than a Lock.
func TestRefreshing(t *testing.T) {
	cfg := locktest.Config{Addr: redistest.Shared(t).Addr, Key: redistest.Key(t)}
	cfg.New = func(c locktest.Client) (strategy.Strategy, error) {
		return mylock.New(c.Pool)
	}
	plain, err := locktest.Detect(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, locktest.Capabilities{}, plain)
	assert.Equal(t, "no refresh, no lease, no fencing token, no release notification", plain.String())

	cfg.New = func(c locktest.Client) (strategy.Strategy, error) {
		return mylock.NewRefreshing(c.Pool)
	}
	caps, err := locktest.Detect(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, locktest.Capabilities{Refresh: true}, caps)
	assert.Equal(t, "refresh; no lease, no fencing token, no release notification", caps.String())
	page, err := os.ReadFile(pagePath)
	require.NoError(t, err)
	assert.Contains(t, strings.Join(strings.Fields(string(page)), " "), "`capabilities: "+caps.String()+"`",
		"%s says what the capabilities subtest logs for these locks", pagePath)

	res := locktest.Check(context.Background(), cfg, locktest.SafeRefresh)
	locktest.Report(t, res, locktest.Holds)

	locktest.Run(t, cfg.New, locktest.Expect{
		Breaks: []locktest.Property{locktest.HolderOverrun, locktest.FencedOverrun, locktest.RenewedOverrun},
	})
}

// wholeSeconds is the configuration for a lock that counts whole seconds.
func wholeSeconds(addr, key string, newLock locktest.Factory) locktest.Config {
	return locktest.Config{Addr: addr, New: newLock, Key: key,
		Timing: locktest.Timing{Granularity: time.Second}}
}

// TestWholeSeconds: the configuration docs/your-own-lock.md shows for a
// lock that counts whole seconds resolves to TTLs in whole seconds.
func TestWholeSeconds(t *testing.T) {
	newLock := func(c locktest.Client) (strategy.Strategy, error) { return mylock.New(c.Pool) }
	cfg := wholeSeconds(redistest.Shared(t).Addr, redistest.Key(t), newLock)
	r := cfg.Timing.Resolved()
	for _, d := range []time.Duration{r.Short, r.Long, r.Slack} {
		assert.Zero(t, d%time.Second, "%v is not a whole number of seconds", d)
	}
	assert.Equal(t, time.Second, r.Short)
}
