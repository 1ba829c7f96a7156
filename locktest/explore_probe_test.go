package locktest_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/internal/kindmutants"
	"github.com/locklab/locklab/internal/mutants"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failsFirst is a strategy whose first attempts fail, as a loaded
// machine's can, before s answers.
type failsFirst struct {
	strategy.Strategy
	left *atomic.Int32
}

const probeTries = 3

func (f failsFirst) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if f.left.Add(-1) >= 0 {
		return nil, errors.New("i/o timeout")
	}
	return f.Strategy.TryAcquire(ctx, key, ttl)
}

// TestExploreProbesAgain: a lock whose holds refresh is explored as one,
// although the first attempts to take it, which show what it offers,
// failed (as they can on a loaded machine): taken for a lock without
// them, its refreshes would never be drawn, nor a lease heeded. One
// that fails every time is explored as it is.
func TestExploreProbesAgain(t *testing.T) {
	var correct mutants.Variant
	for _, v := range mutants.Variants() {
		if v.Name == "correct" {
			correct = v
		}
	}
	require.NotNil(t, correct.New)
	for _, fails := range []int32{0, 1, 10} {
		left := &atomic.Int32{}
		left.Store(fails)
		cfg := locktest.Config{Addr: redistest.Shared(t).Addr, Key: redistest.Key(t), New: func(c locktest.Client) (strategy.Strategy, error) {
			s, err := correct.New(c)
			return failsFirst{s, left}, err
		}}
		refresh, err := locktest.ExploredRefresh(context.Background(), cfg)
		require.NoError(t, err)
		assert.Equal(t, fails < probeTries, refresh, "the first %d attempts fail", fails)
	}
}

// TestExploreFindsThePolicy: the explorer's judge excuses a reader
// refused while a writer waits for the writer intent a lock declares
// (strategy.WriterFirst), and for the longest one writer-progress waits
// out when a lock found to put writers first declares none: taken for
// none, that lock's every such refusal would be a false alarm. A lock
// that lets readers in keeps none.
func TestExploreFindsThePolicy(t *testing.T) {
	for name, want := range map[string]time.Duration{
		"rw-readers-first":            0,
		"rw-writers-first":            5 * time.Second,
		"rw-writers-first-undeclared": 10 * time.Second,
	} {
		v, ok := kindmutants.LookupVariant(name)
		require.True(t, ok, name)
		cfg := locktest.Config{Addr: redistest.Shared(t).Addr, Key: redistest.Key(t), New: v.New}
		intent, err := locktest.ExploredWriterIntent(context.Background(), cfg)
		require.NoError(t, err)
		assert.Equal(t, want, intent, name)
	}
}

// TestExploreProbesCommands: the explorer learns what each operation
// sends on a warm round (its scripts loaded), to draw its faults at
// those commands: luatoken acquires with one SET and refreshes and
// releases with one script each; setnxdel has no refresh.
func TestExploreProbesCommands(t *testing.T) {
	for name, want := range map[string]map[string][]string{
		"luatoken": {"acquire": {"SET"}, "refresh": {"EVALSHA"}, "release": {"EVALSHA"}},
		"setnxdel": {"acquire": {"SETNX"}, "release": {"DEL"}},
	} {
		e, ok := catalog.Lookup(name)
		require.True(t, ok, name)
		cfg := locktest.Config{Addr: redistest.Shared(t).Addr, Key: redistest.Key(t), New: e.New}
		got, err := locktest.ExploredCommands(context.Background(), cfg)
		require.NoError(t, err)
		assert.Equal(t, want, got, name)
	}
}
