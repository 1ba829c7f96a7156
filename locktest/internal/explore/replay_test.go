package explore

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/judge"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeeps: a candidate is kept in Keep of Tries at least, and in about
// as many as the plans kept before it broke in.
func TestKeeps(t *testing.T) {
	assert.True(t, keeps(2, 0), "a plan that broke in no rerun: Keep")
	assert.True(t, keeps(2, 2))
	assert.False(t, keeps(1, 1), "one break is luck")
	assert.False(t, keeps(2, 5), "2 of 5 does not replace 5 of 5")
	assert.False(t, keeps(3, 5))
	assert.True(t, keeps(4, 5), "a run's luck")
	assert.True(t, keeps(5, 5))
	assert.True(t, keeps(3, 4))
	assert.False(t, keeps(2, 4))
}

// rates runs a fake plan: the plan of key k breaks in rate[k] of each
// Tries calls, in the order they come; a plan not named never breaks.
type rates struct {
	mu    sync.Mutex
	rate  map[string][]int // per batch of Tries calls: how many break; the last stands for the rest
	calls map[string]int
}

func (r *rates) fails(p Plan) (harness.Outcome, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := planKey(p)
	n := r.calls[k]
	r.calls[k]++
	batches := r.rate[k]
	if len(batches) == 0 {
		return harness.Outcome{Verdict: judge.Holds}, false
	}
	rate := batches[min(n/Tries, len(batches)-1)]
	if n%Tries < rate {
		return harness.Outcome{Verdict: judge.Breaks, Message: msg.Msg{ID: "x"}}, true
	}
	return harness.Outcome{Verdict: judge.Holds}, false
}

// planKey names a fake plan by its clients and their operations' count.
func planKey(p Plan) string {
	k := ""
	for _, c := range p.Clients {
		k += c.Name + string(rune('0'+len(c.Ops)))
	}
	return k
}

func fakePlan() Plan {
	session := []Op{{Kind: Acquire, TTL: time.Second}, {Kind: Release}}
	return Plan{Seed: 7, Clients: []Script{{Name: "A", Ops: session}, {Name: "B", Ops: session}, {Name: "C", Ops: session}},
		Sched: Schedule{Kind: Ordered, Order: []int{0, 1, 2, 1, 0, 2}}}
}

// TestShrinkKeepsReliability: a candidate that breaks in 2 of 5 does not
// replace a plan that broke in 5 of 5 (the old rule kept it), one that
// breaks in 4 of 5 does; a plan that broke in 2 of 5 is shrunk as before.
func TestShrinkKeepsReliability(t *testing.T) {
	r := &rates{calls: map[string]int{}, rate: map[string][]int{
		"A2B2C2": {5},
		"B2C2":   {2}, // without A: less reliable
		"A2C2":   {4}, // without B: about as reliable
		"A2":     {2},
	}}
	chain, runs := Shrink([]Plan{fakePlan()}, r.fails)
	require.Len(t, chain, 2, "%v", chain)
	assert.Equal(t, "A2C2", planKey(chain[1].Plan))
	assert.Equal(t, 4, chain[1].Broke)
	assert.Equal(t, []int{0, 1, 0, 1}, chain[1].Plan.Sched.Order, "B's steps left the order; C is the second client now")
	assert.Equal(t, 5, chain[0].Broke)
	assert.Positive(t, runs)
	assert.Equal(t, Tries, r.calls["A2"], "tried, and not kept: 2 of 5 after 5 of 5")
	// A plan that broke in 2 of 5 takes candidates that break in 2.
	r = &rates{calls: map[string]int{}, rate: map[string][]int{"A2B2C2": {2}, "B2C2": {2}}}
	chain, _ = Shrink([]Plan{fakePlan()}, r.fails)
	assert.Equal(t, "B2C2", planKey(chain[len(chain)-1].Plan))
}

// TestShrinkStartsFromTheMoreReliable: of a plan as drawn and in the
// order of the run that broke, shrinking begins from the one that breaks
// more often.
func TestShrinkStartsFromTheMoreReliable(t *testing.T) {
	drawn := fakePlan()
	drawn.Sched = Schedule{Kind: PCT, Priorities: []int{0, 1, 2}}
	drawn.Clients[2].Name = "D" // tells the two apart by key
	r := &rates{calls: map[string]int{}, rate: map[string][]int{"A2B2C2": {4}, "A2B2D2": {1}}}
	chain, _ := Shrink([]Plan{drawn, fakePlan()}, r.fails)
	require.NotEmpty(t, chain)
	assert.Equal(t, Ordered, chain[0].Plan.Sched.Kind)
	assert.Equal(t, 4, chain[0].Broke)
	chain, _ = Shrink([]Plan{fakePlan(), drawn}, r.fails)
	assert.Equal(t, Ordered, chain[0].Plan.Sched.Kind, "the first on a tie, else the more reliable")
}

// TestShrinkReplaysTheReliable: when the smallest plan kept breaks in
// few of its replays, a plan kept before it that breaks in every one is
// reported, and it is the plan replayed.
func TestShrinkReplaysTheReliable(t *testing.T) {
	r := &rates{calls: map[string]int{}, rate: map[string][]int{
		"A2B2C2": {5},
		"A2C2":   {5},       // kept, and reliable
		"C2":     {4, 1, 1}, // kept in the shrinking, then breaks in 1 of 5
	}}
	var mu sync.Mutex
	ran := map[string]int{}
	run := func(p Plan) harness.Outcome {
		mu.Lock()
		ran[planKey(p)]++
		mu.Unlock()
		o, _ := r.fails(p)
		return o
	}
	f := Found{Plan: fakePlan()}
	out := harness.Outcome{Verdict: judge.Breaks, Message: msg.Msg{ID: "x"}}
	ctx := context.Background()
	f.shrink(ctx, ctx, Options{Replays: 5}, f.startOf(ctx, brokenRun{plan: f.Plan, out: out}, run), run)
	assert.Equal(t, "A2C2", planKey(f.Shrunk), "%s", f.Shrunk)
	assert.Equal(t, 5, f.Reproduced)
	assert.Equal(t, 5, f.Replays)
	assert.Equal(t, 2*Tries, ran["A2C2"], "its try in the shrinking, then its replays")
	assert.Equal(t, 2*Tries, ran["C2"])
	assert.Equal(t, judge.Breaks, f.Outcome.Verdict)
}

// TestOrderedPick: the client the order names goes once it waits; the
// others are held for orderWait at most, then the one next in the order
// goes out of turn; a client that ended has its steps dropped.
func TestOrderedPick(t *testing.T) {
	none := []bool{false, false, false}
	i, rest := orderedPick([]int{1, 0, 2}, []bool{true, true, false}, none, 0)
	assert.Equal(t, 1, i)
	assert.Equal(t, []int{0, 2}, rest)
	i, rest = orderedPick([]int{1, 0, 2}, []bool{true, false, true}, none, orderWait/2)
	assert.Equal(t, -1, i, "B is waited for")
	assert.Equal(t, []int{1, 0, 2}, rest)
	i, rest = orderedPick([]int{1, 2, 0}, []bool{true, false, true}, none, orderWait)
	assert.Equal(t, 2, i, "C's step is the nearest of those waiting")
	assert.Equal(t, []int{1, 0}, rest)
	i, rest = orderedPick([]int{1, 1, 0}, []bool{true, false, false}, []bool{false, true, false}, 0)
	assert.Equal(t, 0, i, "B ended: its steps go")
	assert.Empty(t, rest)
	i, rest = orderedPick(nil, []bool{false, true, true}, none, 0)
	assert.Equal(t, 1, i, "past the order, the first waiting")
	assert.Empty(t, rest)
	i, _ = orderedPick([]int{2}, []bool{true, false, false}, none, orderWait)
	assert.Equal(t, 0, i, "a client the order does not name goes once the wait is over")
}

func TestWithoutClient(t *testing.T) {
	assert.Equal(t, []int{0, 1, 0, 1}, withoutClient([]int{0, 1, 2, 1, 0, 2}, 1))
	assert.Equal(t, []int{0, 0}, withoutClient([]int{0, 1, 0}, 1))
	assert.Nil(t, withoutClient(nil, 0))
}

func TestOrderString(t *testing.T) {
	p := fakePlan()
	p.Sched.Order = []int{0, 0, 1, 2, 2, 2, 0}
	assert.Equal(t, "A×2 B C×3 A", orderString(p.Clients, p.Sched.Order))
	assert.Contains(t, p.String(), "schedule: the order of the run that broke, A×2 B C×3 A, then the first waiting")
	assert.Equal(t, "none", orderString(p.Clients, nil))
}

// TestOrderedOnRedis: on a real Redis, a run given the order of another
// run lets its clients' commands go in that order, wherever each would
// have reached the gate first. A runs before B in the order recorded
// under one PCT schedule; given the order, the run goes the same way,
// and its reverse makes B go first.
func TestOrderedOnRedis(t *testing.T) {
	p, runOnRedis := twoSessions(t, Schedule{Kind: PCT, Priorities: []int{1, 0}})
	run := func(q Plan) ([]int, string) {
		tr, first := runOnRedis(q)
		return tr.went(), first
	}
	order, first := run(p)
	require.NotEmpty(t, order)
	t.Logf("PCT: order %s, %s first", orderString(p.Clients, order), first)
	require.Equal(t, "A", first, "A has the higher priority")
	q := p.clone()
	q.Sched = Schedule{Kind: Ordered, Order: order}
	for range 3 {
		again, first := run(q)
		assert.Equal(t, order, again, "the same order again")
		assert.Equal(t, "A", first)
	}
	rev := slices.Clone(order)
	for j := range rev {
		rev[j] = 1 - rev[j]
	}
	q.Sched.Order = rev
	again, first := run(q)
	assert.Equal(t, rev, again)
	assert.Equal(t, "B", first, "the order names B first")
}

// TestLoopShrinksAReliableFind: when the first violation's plan breaks
// in none of its runs again (its break needed a margin of a few
// milliseconds), the exploration goes on to the next violation, whose
// plan breaks every time, and shrinks that; the first stays the one the
// runs to find it count.
func TestLoopShrinksAReliableFind(t *testing.T) {
	lock := Lock{Kind: strategy.Mutex, Short: 100 * time.Millisecond, Slack: 20 * time.Millisecond,
		Long: time.Second, Poll: 5 * time.Millisecond}
	var mu sync.Mutex
	calls := map[int64]int{}
	run := func(p Plan) harness.Outcome {
		mu.Lock()
		defer mu.Unlock()
		calls[p.Seed]++
		broke := (p.Seed == 3 && calls[p.Seed] == 1) || p.Seed == 5
		if broke {
			return harness.Outcome{Verdict: judge.Breaks, Message: msg.Msg{ID: "x"}}
		}
		return harness.Outcome{Verdict: judge.Holds}
	}
	opts := Options{Seed: 1, Runs: 50, Workers: 1, Replays: 5, Knobs: Knobs{Sched: "pct"}}
	f := Loop(context.Background(), opts, lock, run)
	require.True(t, f.Broken)
	assert.Equal(t, int64(3), f.Plan.Seed, "the first violation")
	assert.Equal(t, 3, f.First)
	assert.Equal(t, 0, f.FirstBroke)
	assert.Equal(t, 2, f.Finds)
	assert.Equal(t, int64(5), f.From.Seed, "the plan shrunk")
	assert.Equal(t, 5, f.FromRun)
	assert.Equal(t, int64(5), f.Shrunk.Seed)
	assert.Equal(t, 5, f.Reproduced)
	assert.Equal(t, 1+Tries, calls[3], "the first's run, then its tries")
	assert.Equal(t, 5, f.Runs, "the exploration stopped at the second violation")

	// A first violation that breaks again is shrunk, and nothing more is
	// explored.
	calls = map[int64]int{}
	f = Loop(context.Background(), Options{Seed: 5, Runs: 50, Workers: 1, Replays: 5, Knobs: Knobs{Sched: "pct"}}, lock, run)
	require.True(t, f.Broken)
	assert.Equal(t, 1, f.First)
	assert.Equal(t, Tries, f.FirstBroke)
	assert.Equal(t, 1, f.Finds)
	assert.Zero(t, f.FromRun)
	assert.Equal(t, 1, f.Runs)
}
