package semlua

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/notify"
	"github.com/locklab/locklab/strategy/internal/tokenset"
	"github.com/rs/xid"
)

// name is the strategy's name in errors.
const name = "semlua"

var (
	//go:embed acquire.lua
	acquireSrc string

	acquireScript = tokenset.Script(1, acquireSrc)
)

// ErrInvalidPermits means a number of permits that cannot be: New's below
// 1, or TryAcquireN's below 1 or above Permits.
var ErrInvalidPermits = errors.New("semlua: invalid number of permits")

// Strategy is the semaphore. Its number of permits and its options are
// fixed by New; it is safe for concurrent use.
type Strategy struct {
	b       *tokenset.Base
	permits int
}

var (
	_ strategy.Weighted = (*Strategy)(nil)
	_ strategy.Notifier = (*Strategy)(nil)
)

// New returns the semaphore of permits permits on pool p: at most permits
// holds of one permit each (or fewer holding several) hold a key at once.
// Every client of a key must use the same number: each one counts against
// its own. permits below 1 makes New fail with an error matching
// ErrInvalidPermits. The options add auto-renewal (WithAutoRenew,
// WithMaxHold, WithLeaseMargin) and release notifications (WithNotify); a
// bad option makes New fail with an error matching ErrInvalidOption.
func New(p strategy.Pool, permits int, opts ...Option) (*Strategy, error) {
	if permits < 1 {
		return nil, fmt.Errorf("%w: %d permits: a semaphore has at least 1", ErrInvalidPermits, permits)
	}
	cfg := config{Config: tokenset.Config{Invalid: ErrInvalidOption}}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	b, err := tokenset.NewBase(name, p, &cfg.Config, ChannelPrefix)
	if err != nil {
		return nil, err
	}
	return &Strategy{b: b, permits: permits}, nil
}

// Permits returns the number of permits of every key.
func (s *Strategy) Permits() int { return s.permits }

// TryAcquire makes one attempt to take one permit of key for ttl; it is
// TryAcquireN with n = 1.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.TryAcquireN(ctx, key, 1, ttl)
}

// TryAcquireN makes one attempt to take n permits of key for ttl, all or
// none, with one script: it removes the holds whose time has passed by the
// server's clock, and adds n members for this hold if n permits are left.
// Otherwise it returns an error matching strategy.ErrNotAcquired. n below
// 1 or above Permits fails with an error matching ErrInvalidPermits. ttl
// counts whole milliseconds.
//
// The lock returned is a *Lock whatever the options; its Release gives the
// n permits back once. With WithAutoRenew, ttl must leave room for a
// renewal before the lease ends; otherwise the error matches
// strategy.ErrInvalidTTL.
func (s *Strategy) TryAcquireN(ctx context.Context, key string, n int, ttl time.Duration) (strategy.Lock, error) {
	if n < 1 || n > s.permits {
		return nil, fmt.Errorf("%s: %q: %w: %d, of %d", name, key, ErrInvalidPermits, n, s.permits)
	}
	if err := s.b.Check(key, ttl); err != nil {
		return nil, err
	}
	token := xid.New().String()
	h := tokenset.Hold{Key: key, Token: token, Members: make([]any, n), Wake: notify.WakePrefix + strconv.Itoa(n)}
	for i := range n {
		h.Members[i] = token + ":" + strconv.Itoa(i+1)
	}
	args := make([]any, 0, 3+n)
	args = append(args, key, ttl.Milliseconds(), s.permits)
	l, err := s.b.Acquire(ctx, h, ttl, acquireScript, func(reply any) error {
		held, err := redis.Int(reply, nil)
		switch {
		case err != nil:
			return &strategy.OpError{Strategy: name, Op: "acquire", Key: key, Err: err}
		case held == 1:
			return nil
		}
		return s.b.NotAcquired(key, fmt.Sprintf("%d of %d permits taken, %d wanted", -held, s.permits, n))
	}, append(args, h.Members...)...)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// ChannelPrefix begins the name of every release channel.
const ChannelPrefix = "semlua:released:"

// ChannelName returns the Pub/Sub channel on which, with WithNotify, a
// release of permits of key is announced: ChannelPrefix + key.
func ChannelName(key string) string { return ChannelPrefix + key }

// Subscribe implements strategy.Notifier: the channel it returns receives
// after a release of permits of key (made with WithNotify), until stop is
// called; a release of n permits wakes n waiters of the Strategy, those
// waiting longest. It returns once the server has confirmed the
// subscription, so a release after it returns is never missed. Without
// WithNotify it returns a nil channel, and Acquire only polls.
func (s *Strategy) Subscribe(ctx context.Context, key string) (wake <-chan struct{}, stop func(), err error) {
	return s.b.Subscribe(ctx, key)
}

// Lock is one holder's permits, the one type TryAcquire and TryAcquireN
// return. Release gives its own permits back, once; Refresh extends them
// only (never another holder's, never once expired); TTL reads their time
// left by the server's clock; Lease, with WithAutoRenew, ends when they
// may be lost.
type Lock = tokenset.Lock
