package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/setnxdel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNextChoices walks the depth-first order over a tree whose choice
// points do not depend on time: 2, then 3, then 2 clients waiting, every
// schedule once, each further along than the one before.
func TestNextChoices(t *testing.T) {
	shape := []int{2, 3, 2}
	met := func(prefix []int) []point {
		ps := make([]point, len(shape))
		for j, of := range shape {
			ps[j].of = of
			if j < len(prefix) {
				ps[j].rank = min(prefix[j], of-1)
			}
		}
		return ps
	}
	var got []string
	p := Plan{Sched: Schedule{Kind: Exhaustive, Index: 1}}
	runs, complete := enumerate(p, met(nil), func(q Plan) ([]point, bool) {
		got = append(got, fmt.Sprint(q.Sched.Choices))
		assert.Equal(t, len(got)+1, q.Sched.Index, "each schedule names its run of the plan")
		return met(q.Sched.Choices), true
	})
	assert.True(t, complete)
	assert.Equal(t, 2*3*2-1, runs, "every schedule but the first run's, once: %v", got)
	assert.Len(t, got, runs)
	assert.Equal(t, "[0 0 1]", got[0])
	assert.Equal(t, "[1 2 1]", got[len(got)-1])
	seen := map[string]bool{}
	for _, s := range got {
		assert.False(t, seen[s], "schedule %s run twice", s)
		seen[s] = true
	}
}

// TestNextChoicesDiverged: a run that met fewer clients than its prefix
// named still moves the search on, and it ends.
func TestNextChoicesDiverged(t *testing.T) {
	next, ok := nextChoices([]int{1, 1}, []point{{rank: 1, of: 2}, {rank: 0, of: 1}})
	assert.False(t, ok, "nothing is left after [1 1]: %v", next)
	next, ok = nextChoices([]int{0, 1}, []point{{rank: 0, of: 2}})
	assert.True(t, ok)
	assert.Equal(t, []int{1}, next)
	// A run that meets ever more choice points still ends, at the cap.
	runs, complete := enumerate(Plan{}, []point{{0, 2}}, func(q Plan) ([]point, bool) {
		ps := make([]point, len(q.Sched.Choices)+1)
		for j := range ps {
			ps[j] = point{of: 2}
		}
		return ps, true
	})
	assert.False(t, complete)
	assert.Equal(t, maxSchedules-1, runs)
}

// TestSmall: a plan is small by the choice points its first run met.
func TestSmall(t *testing.T) {
	assert.Equal(t, 1, schedulesOf(nil))
	assert.Equal(t, 32, schedulesOf([]point{{0, 2}, {0, 2}, {0, 2}, {0, 2}, {0, 2}}))
	assert.Greater(t, schedulesOf([]point{{0, 3}, {0, 3}, {0, 3}, {0, 2}}), smallSchedules)
}

// TestEnumerateOnRedis runs every schedule of a tiny plan on a real Redis:
// two clients each try setnxdel's lock once and release it. Its choice
// points are who goes first and, once the first holds, whether its
// release goes before the other's try: four schedules, when each client
// comes back to the gate within the scheduler's quantum (a loaded machine
// can make a run meet fewer). Each schedule is its own: no two runs meet
// the same choice points, and each client is granted first in some.
func TestEnumerateOnRedis(t *testing.T) {
	p, runOnRedis := twoSessions(t, Schedule{Kind: Exhaustive, Index: 1})
	var firsts []string
	run := func(q Plan) []point {
		tr, first := runOnRedis(q)
		firsts = append(firsts, first)
		t.Logf("%s: met %v, %s first", q.String()[strings.LastIndex(q.String(), "schedule:"):], tr.get(), first)
		return tr.get()
	}
	var traces []string
	first := run(p)
	traces = append(traces, fmt.Sprint(first))
	require.LessOrEqual(t, schedulesOf(first), smallSchedules, "the plan is small: %v", first)
	runs, complete := enumerate(p, first, func(q Plan) ([]point, bool) {
		ps := run(q)
		traces = append(traces, fmt.Sprint(ps))
		return ps, true
	})
	assert.True(t, complete, "every schedule ran within %d runs", maxSchedules)
	assert.GreaterOrEqual(t, runs+1, 2)
	assert.LessOrEqual(t, runs+1, 4, "%v", traces)
	assert.Equal(t, len(traces), len(slices.Compact(slices.Sorted(slices.Values(traces)))), "no schedule twice: %v", traces)
	assert.Contains(t, firsts, "A")
	assert.Contains(t, firsts, "B")
}

// twoSessions is the plan of two clients, A and B, each taking
// setnxdel's lock once and releasing it, under schedule s, and how to
// run a plan of it on the shared Redis: the trail its scheduler left,
// and the first client granted.
func twoSessions(t *testing.T, s Schedule) (Plan, func(Plan) (*trail, string)) {
	t.Helper()
	ctx := context.Background()
	srv := redistest.Shared(t)
	pool := srv.NewPool()
	t.Cleanup(func() { pool.Close() })
	setting := harness.Setting{Dial: harness.DialTCP(srv.Addr), Perms: &sim.Permissions{}, NoLogin: &atomic.Bool{},
		Factory: func(i sim.ClientInfo) (strategy.Strategy, error) { return setnxdel.New(i.Pool) }}
	lock := Lock{Kind: strategy.Mutex, Short: 60 * time.Millisecond, Slack: 500 * time.Millisecond,
		Long: 5 * time.Second, Poll: 5 * time.Millisecond}
	session := []Op{{Kind: Try, Mode: history.Exclusive, N: 1, TTL: time.Second}, {Kind: Release}}
	p := Plan{Seed: 1, Clients: []Script{{Name: "A", Ops: session}, {Name: "B", Ops: session}}, Sched: s}
	return p, func(q Plan) (*trail, string) {
		r := harness.NewRun(ctx, setting, pool, redistest.Key(t))
		defer r.Shutdown()
		tr := &trail{}
		q.Sched.trail = tr
		out := Execute(r, q, lock)
		require.NoError(t, out.Err)
		tl, _ := r.Rec.Timeline()
		i := slices.IndexFunc(tl, func(e history.Event) bool { return e.Kind == history.EvAcquired && e.Err == "" })
		require.GreaterOrEqual(t, i, 0, "someone is granted")
		return tr, tl[i].Client
	}
}
