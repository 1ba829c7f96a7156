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
	"github.com/rs/xid"
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
		t.Logf("%s: %s: %s\n%s", p, res.Verdict, res.Reason(), locktest.FormatTimeline(res.Timeline))
		out[p] = res
	}
	return out
}

func wantVerdicts(t *testing.T, got map[locktest.Property]locktest.Result, want ...locktest.Verdict) {
	t.Helper()
	for i, p := range topology {
		if got[p].Verdict != want[i] {
			t.Errorf("%s: %s (%s); want %s", p, got[p].Verdict, got[p].Reason(), want[i])
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

// countingLock is a lock over several masters that holds K when at least
// need of them took its SET NX PX; a failed attempt deletes what it set.
// need = every master is unusable with one down; need below a majority
// lets two clients each hold the lock.
type countingLock struct {
	pools []strategy.Pool
	need  int
}

type countedLock struct {
	s   countingLock
	key string
	tok string
}

func (s countingLock) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if ttl <= 0 {
		return nil, strategy.ErrInvalidTTL
	}
	l := countedLock{s, key, xid.New().String()}
	took, errs := 0, []error{}
	for _, p := range s.pools {
		reply, err := redis.String(do(ctx, p, "SET", key, l.tok, "NX", "PX", ttl.Milliseconds()))
		switch {
		case err == nil && reply == "OK":
			took++
		case err != nil && !errors.Is(err, redis.ErrNil):
			errs = append(errs, err)
		}
	}
	if took >= s.need {
		return l, nil
	}
	l.Release(ctx)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return nil, strategy.ErrNotAcquired
}

func (l countedLock) Key() string { return l.key }

// Release deletes K where it still holds the lock's token: GET, then DEL,
// which the topology scenarios never split.
func (l countedLock) Release(ctx context.Context) error {
	for _, p := range l.s.pools {
		if v, err := redis.String(do(ctx, p, "GET", l.key)); err == nil && v == l.tok {
			do(ctx, p, "DEL", l.key)
		}
	}
	return nil
}

// do sends one command on a connection of p.
func do(ctx context.Context, p strategy.Pool, cmd string, args ...any) (any, error) {
	c, err := p.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return redis.DoContext(c, ctx, cmd, args...)
}

func counting(need func(masters int) int) locktest.Factory {
	return func(c locktest.Client) (strategy.Strategy, error) {
		return countingLock{c.Pools, need(len(c.Pools))}, nil
	}
}

// TestTopologyCountingLock: the counting lock at a majority holds
// minority-down, as Redlock does; needing every master breaks it (nobody
// can lock with two of five down); needing less than a majority breaks it
// too (a client reaching two masters is granted the lock).
func TestTopologyCountingLock(t *testing.T) {
	for _, tc := range []struct {
		name   string
		need   func(int) int
		want   locktest.Verdict
		reason string
	}{
		{"majority", func(n int) int { return n/2 + 1 }, holds, "C, reaching a minority of the masters, was refused"},
		{"every", func(n int) int { return n }, breaks, "A could not acquire the free lock with a majority of the masters up"},
		{"minority", func(n int) int { return n / 2 }, breaks, "C acquired K reaching only 2 of 5 masters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := locktest.Config{Masters: 5, New: counting(tc.need), Addr: redistest.Shared(t).Addr, Key: redistest.Key(t)}
			res := locktest.Check(context.Background(), cfg, locktest.MinorityDown)
			if res.Err != nil || res.Verdict != tc.want || !strings.Contains(res.Reason(), tc.reason) {
				t.Fatalf("minority-down: %s (%s, %v); want %s, saying %q\n%s", res.Verdict, res.Reason(), res.Err, tc.want, tc.reason, locktest.FormatTimeline(res.Timeline))
			}
		})
	}
}

// TestTopologyEveryMasterNotApplicable: a lock that cannot be taken with a
// minority of the masters out of reach leaves restart-amnesia and
// node-clock-jump nothing to play: n/a, with minority-down named.
func TestTopologyEveryMasterNotApplicable(t *testing.T) {
	cfg := locktest.Config{Masters: 5, New: func(c locktest.Client) (strategy.Strategy, error) { return countingLock{c.Pools, len(c.Pools)}, nil },
		Addr: redistest.Shared(t).Addr, Key: redistest.Key(t)}
	for _, p := range []locktest.Property{locktest.RestartAmnesia, locktest.NodeClockJump} {
		res := locktest.Check(context.Background(), cfg, p)
		if res.Err != nil || res.Verdict != locktest.NotApplicable || !strings.Contains(res.Reason(), "see minority-down") {
			t.Errorf("%s: %s (%s, %v); want n/a pointing to minority-down", p, res.Verdict, res.Reason(), res.Err)
		}
	}
}

// waitLock is a correct, unusual lock for a primary with a replica: it
// holds K only once a replica has acknowledged its SET (WAIT 1), and
// otherwise takes its SET back.
type waitLock struct{ p strategy.Pool }

func (s waitLock) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if ttl <= 0 {
		return nil, strategy.ErrInvalidTTL
	}
	l := countedLock{countingLock{[]strategy.Pool{s.p}, 1}, key, xid.New().String()}
	if _, err := redis.String(do(ctx, s.p, "SET", key, l.tok, "NX", "PX", ttl.Milliseconds())); err != nil {
		if errors.Is(err, redis.ErrNil) {
			return nil, strategy.ErrNotAcquired
		}
		return nil, err
	}
	n, err := redis.Int(do(ctx, s.p, "WAIT", 1, 1000))
	if err == nil && n < 1 {
		err = errors.New("waitlock: no replica acknowledged the lock")
	}
	if err != nil {
		l.Release(ctx)
		return nil, err
	}
	return l, nil
}

// TestTopologyWaitLock: a lock that waits for its replica grants nothing
// a failover can lose: failover holds, where SET NX PX alone breaks it
// (TestTopologySingleRedis).
func TestTopologyWaitLock(t *testing.T) {
	cfg := locktest.Config{New: func(c locktest.Client) (strategy.Strategy, error) { return waitLock{c.Pool}, nil },
		Addr: redistest.Shared(t).Addr, Key: redistest.Key(t)}
	res := locktest.Check(context.Background(), cfg, locktest.Failover)
	if res.Err != nil || res.Verdict != holds || !strings.Contains(res.Reason(), "grants nothing a failover can lose") {
		t.Fatalf("failover: %s (%s, %v); want holds\n%s", res.Verdict, res.Reason(), res.Err, locktest.FormatTimeline(res.Timeline))
	}
}
