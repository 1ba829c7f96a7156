package explore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGateTwoCommandsOfOneClient: two commands of one client wait at its
// gate at once (a lock's renewal goroutine and its holder's refresh, on
// two connections); both go, one turn each. The gate kept one waiting
// grant a client, and the second command's took the first's place: the
// first never went, and the run hung until the suite's watchdog ended it
// after 30 s, without a verdict.
func TestGateTwoCommandsOfOneClient(t *testing.T) {
	sc := newScheduler(Schedule{Kind: PCT, Priorities: []int{1, 0}}, 2)
	defer sc.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for _, i := range []int{0, 0, 1} {
		wg.Go(func() { errs <- sc.gate(ctx, i) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err, "a command was not let through its gate")
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	assert.ElementsMatch(t, []int{0, 0, 1}, sc.order, "each command went at a turn of its own")
}
