package redlock_test

import (
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/redlock"
)

// TestOneMaster runs the conformance suite on Redlock over one master,
// where the quorum is that master and the suite's one-Redis scenarios
// apply: it must keep every property luatoken keeps, and break the same
// three overruns, which every lease without renewal or fencing breaks.
// This says nothing of Redlock under the failures of several masters,
// which the suite does not run yet.
func TestOneMaster(t *testing.T) {
	m := sharedMasters(t)
	locktest.RunConfig(t, locktest.Config{
		Addr: m.Nodes[0].Addr,
		Key:  redistest.Key(t),
		New: func(c locktest.Client) (strategy.Strategy, error) {
			return redlock.New([]strategy.Pool{c.Pool}, redlock.WithClock(c.Clock))
		},
	}, locktest.Expect{
		Breaks: []locktest.Property{locktest.HolderOverrun, locktest.FencedOverrun, locktest.RenewedOverrun},
	})
}
