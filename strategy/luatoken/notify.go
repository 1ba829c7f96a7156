package luatoken

import (
	"context"

	"github.com/locklab/locklab/strategy"
)

// ChannelPrefix begins the name of every release channel.
const ChannelPrefix = "luatoken:released:"

// ChannelName returns the Pub/Sub channel on which Release announces the
// release of key with WithNotify: ChannelPrefix + key. (Pub/Sub channels
// ignore the database number: keys of the same name in two databases share a
// channel, which costs a waiter an early attempt, nothing else.)
func ChannelName(key string) string { return ChannelPrefix + key }

var _ strategy.Notifier = (*Strategy)(nil)

// Subscribe implements strategy.Notifier: the channel it returns receives
// after a release of key (made with WithNotify), until stop is called. Each
// release wakes one subscriber of the Strategy, the one waiting longest, as
// only one can take the lock; one that stops without using its wake passes
// it on.
// Subscribe returns once the server has confirmed the subscription, so a
// release that happens after it returns is never missed. Without WithNotify
// it returns a nil channel, and Acquire only polls.
//
// All the subscriptions of a Strategy share one Pub/Sub connection from its
// pool, opened on the first Subscribe and given back when the last
// subscription stops; it is kept alive with PINGs and reopened when it
// breaks, and then every waiter is woken, as a release may have been missed.
// When it cannot be opened, Subscribe fails with a *strategy.OpError; when
// ctx ends first, the error matches strategy.ErrNotAcquired and ctx.Err(),
// as Acquire's does.
func (s *Strategy) Subscribe(ctx context.Context, key string) (wake <-chan struct{}, stop func(), err error) {
	if s.hub == nil {
		return nil, func() {}, nil
	}
	return s.hub.Subscribe(ctx, key)
}
