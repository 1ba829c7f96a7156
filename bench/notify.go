package bench

import (
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/luatoken"
)

// notifySubject is luatoken whose release publishes, so that a waiter in
// strategy.Acquire wakes at once instead of at its next retry.
func notifySubject() *Subject {
	return &Subject{
		Name: NotifyName, Client: ClientRedigo, Cycle: "SUBSCRIBE, SET NX PX · EVALSHA, UNSUBSCRIBE",
		Waits: []string{WaitNotify},
		Conns: 2, Apart: true,
		open: locklabOpener(func(p strategy.Pool) (strategy.Strategy, error) {
			return luatoken.New(p, luatoken.WithNotify())
		}),
	}
}
