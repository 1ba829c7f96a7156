package luatoken_test

import (
	"testing"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/luatoken"
)

// TestHolderOverrun shows luatoken's one flaw, that of every TTL lock,
// with the conformance suite on a real Redis: a holder whose work outlasts
// its TTL is still working when the next one enters. go test -v logs the
// timeline of commands that breaks it; Example_holderOverrun shows it step
// by step. Package catalog declares every verdict of luatoken, and its
// test checks them.
func TestHolderOverrun(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		return luatoken.New(c.Pool)
	}, locktest.Expect{Breaks: []locktest.Property{locktest.HolderOverrun}}, locktest.HolderOverrun)
}

// TestOverrunAnswered shows, with the suite, that WithAutoRenew and
// WithFencing answer it: the holder is told by its lease to stop before
// the lock can pass on, and the resource refuses the writes of a holder
// whose lock has passed on.
func TestOverrunAnswered(t *testing.T) {
	locktest.Run(t, func(c locktest.Client) (strategy.Strategy, error) {
		// A lease margin that leaves the suite's detector time to see the
		// holder stop before the key can expire.
		return luatoken.New(c.Pool, luatoken.WithAutoRenew(0), luatoken.WithLeaseMargin(20*time.Millisecond), luatoken.WithFencing())
	}, locktest.Expect{}, locktest.HolderOverrun, locktest.RenewedOverrun, locktest.FencedOverrun)
}
