package getset_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/getset"
)

// TestClockSkew shows getset's own flaw with the conformance suite on a real
// Redis: a client whose clock runs ahead takes over a lock that is still
// held. go test -v logs the timeline of commands that breaks it.
// Example_clockSkew shows it step by step. Package catalog declares every
// verdict of getset, and its test checks them.
func TestClockSkew(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return getset.New(c.Pool, getset.WithClock(c.Clock))
	}, locktest.Expect{Breaks: []locktest.Property{locktest.ClockSkew}}, locktest.ClockSkew)
}
