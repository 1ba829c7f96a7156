package delsetnxcheck_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/delsetnxcheck"
)

// TestExclusion shows delsetnxcheck's own flaw with the conformance suite on
// a real Redis: with no fault at all, a waiter that reads no time takes the
// lock over while another client holds it. go test -v logs the timeline of
// commands that breaks it. Package catalog declares every verdict of
// delsetnxcheck, and its test checks them.
func TestExclusion(t *testing.T) {
	locktest.RunProperties(t, func(p strategy.Pool, c strategy.Clock) (strategy.Strategy, error) {
		return delsetnxcheck.New(p, delsetnxcheck.WithClock(c))
	}, locktest.Expect{Breaks: []locktest.Property{locktest.Exclusion}}, locktest.Exclusion)
}
