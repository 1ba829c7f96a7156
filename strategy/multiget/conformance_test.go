package multiget_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/multiget"
)

// TestReleaseFrees shows multiget's own flaw with the conformance suite on a
// real Redis: Release deletes nothing, so every waiter waits for the
// holder's TTL. go test -v logs the timeline of commands that breaks it.
// Example shows it step by step. Package catalog declares every verdict of
// multiget, and its test checks them.
func TestReleaseFrees(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return multiget.New(c.Pool)
	}, locktest.Expect{Breaks: []locktest.Property{locktest.ReleaseFrees}}, locktest.ReleaseFrees)
}
