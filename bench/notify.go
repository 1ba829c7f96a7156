package bench

import (
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/luatoken"
)

// notifySubject is luatoken whose release publishes, so that a waiter in
// strategy.Acquire wakes at once instead of at its next retry. Acquire
// subscribes only once an attempt has found the lock taken, so on a free
// lock its cycle is luatoken's: SET NX PX, then the release script, which
// also PUBLISHes (to nobody, uncontended). The commands figure counts
// SUBSCRIBE and UNSUBSCRIBE to show that none is sent.
func notifySubject() *Subject {
	return &Subject{
		Name: NotifyName, Client: ClientRedigo, Cycle: "SET NX PX · EVALSHA",
		Waits: []string{WaitNotify},
		open: locklabOpener(func(p strategy.Pool) (strategy.Strategy, error) {
			return luatoken.New(p, luatoken.WithNotify())
		}),
	}
}
