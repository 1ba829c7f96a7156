package fixedpassword_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/fixedpassword"
)

// TestSafeRelease shows fixedpassword's own flaw with the conformance suite
// on a real Redis: every lock holds the same password, so a holder whose TTL
// ran out deletes the next holder's lock. go test -v logs the timeline of
// commands that breaks it. Example_lateRelease shows it step by step.
// Package catalog declares every verdict of fixedpassword, and its test
// checks them.
func TestSafeRelease(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return fixedpassword.New(c.Pool)
	}, locktest.Expect{Breaks: []locktest.Property{locktest.SafeRelease}}, locktest.SafeRelease)
}
