package setnxpx_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/setnxpx"
)

// TestDoubleRelease shows setnxpx's own flaw with the conformance suite on a
// real Redis: DEL deletes the key whoever wrote it, so a second release
// frees the lock someone else took in between. go test -v logs the timeline
// of commands that breaks it. Example_doubleRelease shows it step by step.
// Package catalog declares every verdict of setnxpx, and its test checks
// them.
func TestDoubleRelease(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return setnxpx.New(c.Pool)
	}, locktest.Expect{Breaks: []locktest.Property{locktest.DoubleRelease}}, locktest.DoubleRelease)
}
