package locktest_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locklab/locklab/internal/mutants"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowOnce is a correct lock whose client's first attempt is refused
// after a long wait, as on a machine too loaded for the scenario's
// timing; every later attempt is the correct lock's.
type slowOnce struct {
	strategy.Strategy
	tried atomic.Bool
}

func (s *slowOnce) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if !s.tried.Swap(true) {
		time.Sleep(100 * time.Millisecond)
		return nil, fmt.Errorf("slow once: %w", strategy.ErrNotAcquired)
	}
	return s.Strategy.TryAcquire(ctx, key, ttl)
}

// TestFreeLockRefusals: a lock that refuses a free lock in every attempt
// breaks release-frees, however slow its refusals (the mutant
// acquire-waits-for-replica refuses each after a 100ms WAIT), and every
// other property says why it has no verdict; a lock refused slowly once,
// as on a loaded machine, is disturbed: no break, no error of the lock's.
func TestFreeLockRefusals(t *testing.T) {
	m := mutant(t, "acquire-waits-for-replica")
	res := check(t, m.New, locktest.ReleaseFrees, 0)
	require.NoError(t, res.Err)
	assert.Equal(t, locktest.Breaks, res.Verdict, res.Reason())
	assert.Regexp(t, `^A could not acquire a free lock: all 4 of its attempts were refused, 4 of them after more than 30ms`, res.Reason())
	res = check(t, m.New, locktest.CrashRecovery, 0)
	require.Error(t, res.Err)
	assert.Contains(t, res.Err.Error(), "the lock refuses free locks (release-frees breaks)")
	assert.False(t, errors.Is(res.Err, locktest.ErrInconclusive), "%v", res.Err)

	correct, ok := mutants.LookupVariant("correct")
	require.True(t, ok)
	slow := func(c locktest.Client) (strategy.Strategy, error) {
		s, err := correct.New(c)
		return &slowOnce{Strategy: s}, err
	}
	for _, p := range []locktest.Property{locktest.ReleaseFrees, locktest.CrashRecovery} {
		res := check(t, slow, p, 0)
		assert.NotEqual(t, locktest.Breaks, res.Verdict, "%s: %s", p, res.Reason())
		assert.ErrorIs(t, res.Err, locktest.ErrInconclusive, "%s", p)
	}
}
