package tokengetdel_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/tokengetdel"
)

// TestSafeRelease shows tokengetdel's own flaw with the conformance suite on
// a real Redis: a holder paused between its GET and its DEL, while the lock
// passes on, deletes the next holder's lock. go test -v logs the timeline of
// commands that breaks it. Package catalog declares every verdict of
// tokengetdel, and its test checks them.
func TestSafeRelease(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return tokengetdel.New(c.Pool)
	}, locktest.Expect{Breaks: []locktest.Property{locktest.SafeRelease}}, locktest.SafeRelease)
}
