package locktest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
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

// everyMaster is a broken lock over several masters: it needs every one
// of them, so a single master down makes it unusable.
type everyMaster struct{ pools []strategy.Pool }

type everyLock struct {
	s   everyMaster
	key string
}

func (s everyMaster) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if ttl <= 0 {
		return nil, strategy.ErrInvalidTTL
	}
	for i, p := range s.pools {
		c, err := p.GetContext(ctx)
		if err != nil {
			everyLock{s, key}.Release(ctx)
			return nil, err
		}
		_, err = redis.String(redis.DoContext(c, ctx, "SET", key, "1", "NX", "PX", ttl.Milliseconds()))
		c.Close()
		if err != nil {
			if i > 0 || !errors.Is(err, redis.ErrNil) {
				everyLock{s, key}.Release(ctx)
			}
			if errors.Is(err, redis.ErrNil) {
				return nil, strategy.ErrNotAcquired
			}
			return nil, err
		}
	}
	return everyLock{s, key}, nil
}

func (l everyLock) Key() string { return l.key }

func (l everyLock) Release(ctx context.Context) error {
	var errs []error
	for _, p := range l.s.pools {
		c, err := p.GetContext(ctx)
		if err == nil {
			_, err = redis.DoContext(c, ctx, "DEL", l.key)
			c.Close()
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// TestTopologyEveryMaster: a lock that needs every master breaks
// minority-down: with two of five down, nobody can take it.
func TestTopologyEveryMaster(t *testing.T) {
	cfg := locktest.Config{Masters: 5, New: func(c locktest.Client) (strategy.Strategy, error) { return everyMaster{c.Pools}, nil },
		Addr: redistest.Shared(t).Addr, Key: redistest.Key(t)}
	res := locktest.Check(context.Background(), cfg, locktest.MinorityDown)
	if res.Err != nil || res.Verdict != locktest.Breaks {
		t.Fatalf("minority-down: %s (%s, %v); want breaks", res.Verdict, res.Reason, res.Err)
	}
	if !strings.Contains(res.Reason, "A could not acquire the free lock with a majority of the masters up") {
		t.Errorf("reason: %s", res.Reason)
	}
	t.Log(res.Reason)
}

// TestTopologyConfig: a Masters or RestartDelay out of range is a clear
// error, before any server starts.
func TestTopologyConfig(t *testing.T) {
	f := func(c locktest.Client) (strategy.Strategy, error) { return setnxpx.New(c.Pool) }
	for _, tc := range []struct {
		cfg  locktest.Config
		want string
	}{
		{locktest.Config{Masters: -1}, "Masters = -1: want 0 to 9"},
		{locktest.Config{Masters: 10}, "Masters = 10: want 0 to 9"},
		{locktest.Config{RestartDelay: -time.Second}, "RestartDelay = -1s: want 0 or more"},
	} {
		tc.cfg.New, tc.cfg.Addr, tc.cfg.Key = f, "127.0.0.1:1", "k"
		res := locktest.Check(context.Background(), tc.cfg, locktest.RestartAmnesia)
		if res.Err == nil || !strings.Contains(res.Err.Error(), tc.want) {
			t.Errorf("%+v: %v; want an error saying %q", tc.cfg, res.Err, tc.want)
		}
	}
}

// TestTopologyEveryMasterNotApplicable: a lock that cannot be taken with a
// minority of the masters out of reach leaves restart-amnesia and
// node-clock-jump nothing to play: n/a, with minority-down named.
func TestTopologyEveryMasterNotApplicable(t *testing.T) {
	cfg := locktest.Config{Masters: 5, New: func(c locktest.Client) (strategy.Strategy, error) { return everyMaster{c.Pools}, nil },
		Addr: redistest.Shared(t).Addr, Key: redistest.Key(t)}
	for _, p := range []locktest.Property{locktest.RestartAmnesia, locktest.NodeClockJump} {
		res := locktest.Check(context.Background(), cfg, p)
		if res.Err != nil || res.Verdict != locktest.NotApplicable || !strings.Contains(res.Reason, "see minority-down") {
			t.Errorf("%s: %s (%s, %v); want n/a pointing to minority-down", p, res.Verdict, res.Reason, res.Err)
		}
	}
}
