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
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return delsetnxcheck.New(c.Pool, delsetnxcheck.WithClock(c.Clock))
	}, locktest.Expect{Breaks: []locktest.Property{locktest.Exclusion}}, locktest.Exclusion)
}
