package delsetnx_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/delsetnx"
)

// TestStaleTakeoverRace shows delsetnx's own flaw with the conformance suite
// on a real Redis: two waiters that read the same stale time both DEL and
// SETNX, and both hold the lock, as document 000 describes. go test -v logs
// the timeline of commands that breaks it. Package catalog declares every
// verdict of delsetnx, and its test checks them.
func TestStaleTakeoverRace(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return delsetnx.New(c.Pool, delsetnx.WithClock(c.Clock))
	}, locktest.Expect{Breaks: []locktest.Property{locktest.StaleTakeoverRace}}, locktest.StaleTakeoverRace)
}
