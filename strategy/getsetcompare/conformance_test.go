package getsetcompare_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/getsetcompare"
)

// TestSafeRelease shows getsetcompare's own flaw with the conformance suite
// on a real Redis: the plain DEL release of document 004 deletes the next
// holder's lock when it comes late. go test -v logs the timeline of commands
// that breaks it. Example_lateRelease shows it step by step. Package catalog
// declares every verdict of getsetcompare, and its test checks them.
func TestSafeRelease(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return getsetcompare.New(c.Pool, getsetcompare.WithClock(c.Clock))
	}, locktest.Expect{Breaks: []locktest.Property{locktest.SafeRelease}}, locktest.SafeRelease)
}
