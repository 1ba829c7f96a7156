package locktest_test

import (
	"context"
	"testing"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMonitorSeesTheSuiteStall: a stall of the suite's own process
// between two of its monitor's probes, longer than the timing allows,
// disturbs the run, as a stalled server does: the times its clients
// record are late by as much. Without one, nothing does.
func TestMonitorSeesTheSuiteStall(t *testing.T) {
	pool := redistest.Shared(t).NewPool()
	defer pool.Close()
	ctx := context.Background()
	err := locktest.WatchStalled(ctx, pool, 200*time.Millisecond, 400*time.Millisecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the suite itself stalled")
	assert.NoError(t, locktest.WatchStalled(ctx, pool, 200*time.Millisecond, 0))
}
