package setnxdel_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/setnxdel"
)

// TestCrashRecovery shows setnxdel's own flaw with the conformance suite on
// a real Redis: a holder that crashes before its DEL keeps the lock for
// ever, whatever TTL it asked for. go test -v logs the timeline of commands
// that breaks it. Example_crash shows it step by step. Package catalog
// declares every verdict of setnxdel, and its test checks them.
func TestCrashRecovery(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return setnxdel.New(c.Pool)
	}, locktest.Expect{Breaks: []locktest.Property{locktest.CrashRecovery}}, locktest.CrashRecovery)
}
