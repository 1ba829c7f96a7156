package getsetexpire_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/getsetexpire"
)

// TestSafeRelease shows getsetexpire's own flaw with the conformance suite
// on a real Redis: the release asks whether the key has time left, not whose
// it is, so a holder whose TTL ran out deletes the next holder's lock. go
// test -v logs the timeline of commands that breaks it. Example_lateRelease
// shows it step by step. Package catalog declares every verdict of
// getsetexpire, and its test checks them.
func TestSafeRelease(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return getsetexpire.New(c.Pool, getsetexpire.WithClock(c.Clock))
	}, locktest.Expect{Breaks: []locktest.Property{locktest.SafeRelease}}, locktest.SafeRelease)
}
