package watchdel_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/watchdel"
)

// TestCrashMidAcquire shows watchdel's own flaw with the conformance suite
// on a real Redis: a client that dies between SETNX and EXPIRE leaves a lock
// that never expires. go test -v logs the timeline of commands that breaks
// it. Example_crashMidAcquire shows it step by step. Package catalog
// declares every verdict of watchdel, and its test checks them.
func TestCrashMidAcquire(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return watchdel.New(c.Pool)
	}, locktest.Expect{Breaks: []locktest.Property{locktest.CrashMidAcquire}}, locktest.CrashMidAcquire)
}
