package locktest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/redlock"
	"github.com/locklab/locklab/strategy/setnxdel"
	"github.com/locklab/locklab/strategy/setnxpx"
)

var topology = []locktest.Property{locktest.Failover, locktest.RestartAmnesia, locktest.NodeClockJump, locktest.MinorityDown}

// checkTopology runs the topology properties on cfg and returns their
// verdicts in order, logging each reason and timeline.
func checkTopology(t *testing.T, cfg locktest.Config) map[locktest.Property]locktest.Result {
	t.Helper()
	cfg.Addr = redistest.Shared(t).Addr
	cfg.Key = redistest.Key(t)
	out := map[locktest.Property]locktest.Result{}
	for _, p := range topology {
		res := locktest.Check(context.Background(), cfg, p)
		if res.Err != nil {
			t.Fatalf("%s: %v\n%s", p, res.Err, locktest.FormatTimeline(res.Timeline))
		}
		t.Logf("%s: %s: %s\n%s", p, res.Verdict, res.Reason, locktest.FormatTimeline(res.Timeline))
		out[p] = res
	}
	return out
}

func wantVerdicts(t *testing.T, got map[locktest.Property]locktest.Result, want ...locktest.Verdict) {
	t.Helper()
	for i, p := range topology {
		if got[p].Verdict != want[i] {
			t.Errorf("%s: %s (%s); want %s", p, got[p].Verdict, got[p].Reason, want[i])
		}
	}
}

const (
	holds  = locktest.Holds
	breaks = locktest.Breaks
	na     = locktest.NotApplicable
)

func TestTopologySingleRedis(t *testing.T) {
	res := checkTopology(t, locktest.Config{New: func(c locktest.Client) (strategy.Strategy, error) { return setnxpx.New(c.Pool) }})
	wantVerdicts(t, res, breaks, breaks, breaks, na)
}

func TestTopologyNoExpiry(t *testing.T) {
	res := checkTopology(t, locktest.Config{New: func(c locktest.Client) (strategy.Strategy, error) { return setnxdel.New(c.Pool) }})
	wantVerdicts(t, res, breaks, breaks, holds, na)
}

func TestTopologyRedlock(t *testing.T) {
	res := checkTopology(t, locktest.Config{Masters: 5, New: func(c locktest.Client) (strategy.Strategy, error) {
		return redlock.New(c.Pools, redlock.WithClock(c.Clock))
	}})
	wantVerdicts(t, res, na, breaks, breaks, holds)
	if tl := locktest.FormatTimeline(res[locktest.RestartAmnesia].Timeline); !strings.Contains(tl, "@master-4") {
		t.Errorf("the timeline does not name the masters:\n%s", tl)
	}
}

func TestTopologyRedlockDelayedRestart(t *testing.T) {
	res := checkTopology(t, locktest.Config{Masters: 5, RestartDelay: 6 * time.Second, New: func(c locktest.Client) (strategy.Strategy, error) {
		return redlock.New(c.Pools, redlock.WithClock(c.Clock))
	}})
	wantVerdicts(t, res, na, holds, breaks, holds)
}
