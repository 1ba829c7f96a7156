package strategy

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Retry decides how Acquire waits between attempts. Implementations must be
// safe for concurrent use: one Retry may serve many Acquire calls.
type Retry interface {
	// Delay returns how long to wait after the failed-th failed attempt
	// (failed ≥ 1) before trying again, or false to give up.
	Delay(failed int) (time.Duration, bool)
}

// minDelay keeps a retry loop from spinning on Redis.
const minDelay = time.Millisecond

type noRetry struct{}

func (noRetry) Delay(int) (time.Duration, bool) { return 0, false }

// NoRetry makes Acquire give up after the first failed attempt.
func NoRetry() Retry { return noRetry{} }

type fixedInterval time.Duration

func (f fixedInterval) Delay(int) (time.Duration, bool) { return time.Duration(f), true }

// FixedInterval retries every d, the sleep loop of the source documents.
// A d below 1ms is raised to 1ms.
func FixedInterval(d time.Duration) Retry { return fixedInterval(max(d, minDelay)) }

type backoff struct{ min, max time.Duration }

func (b backoff) Delay(failed int) (time.Duration, bool) {
	d := b.min
	for i := 1; i < failed && d < b.max; i++ {
		if d > b.max/2 { // doubling would pass the cap, or overflow
			d = b.max
			break
		}
		d *= 2
	}
	// Equal jitter: half fixed, half random, so waiters that failed together
	// spread out without ever retrying at once.
	half := d / 2
	return half + rand.N(d-half+1), true
}

// Backoff retries with exponential backoff and jitter: the n-th delay is
// drawn from [d/2, d] where d = lo·2^(n-1), capped at hi. A lo below 1ms is
// raised to 1ms; a hi below lo is raised to lo.
func Backoff(lo, hi time.Duration) Retry {
	lo = max(lo, minDelay)
	return backoff{min: lo, max: max(hi, lo)}
}

type limitTries struct {
	r     Retry
	tries int
}

func (l limitTries) Delay(failed int) (time.Duration, bool) {
	if failed >= l.tries {
		return 0, false
	}
	return l.r.Delay(failed)
}

// LimitTries makes at most n attempts in all, waiting between them as r says.
// An n below 1 is raised to 1.
func LimitTries(r Retry, n int) Retry { return limitTries{r: r, tries: max(n, 1)} }

// Notifier is implemented by strategies that announce releases. Acquire
// subscribes when its first attempt finds the lock taken, tries again at
// once, and from then on wakes as soon as the key is released, keeping the
// Retry delays as a fallback so that a lost message never strands a waiter.
// A Notifier whose Subscribe returns a nil channel announces nothing, and
// Acquire waits for it as for any Strategy, without the second attempt.
type Notifier interface {
	// Subscribe returns a channel that receives after each release of key,
	// or nil when the strategy announces none, and a function that ends
	// the subscription.
	Subscribe(ctx context.Context, key string) (wake <-chan struct{}, stop func(), err error)
}

// EagerNotifier is a Notifier whose Subscribe may cost nothing worth
// saving, such as one whose waiters are woken in the process only. When
// SubscribeFirst reports true, Acquire subscribes before its first
// attempt rather than after it: no release between an attempt and the
// subscription can then go unseen, and Acquire makes no attempt at once
// after subscribing, but waits for a wake or r's delay from the first
// refusal on.
type EagerNotifier interface {
	Notifier
	SubscribeFirst() bool
}

// Acquire waits for the lock on key: it calls s.TryAcquire, and after each
// ErrNotAcquired waits as r says (or until a release is announced, when s is
// a Notifier) and tries again. A nil r means NoRetry.
//
// With a Notifier, the attempt made right after subscribing takes the place
// of the first wait: it counts as an attempt (LimitTries(r, 2) never waits
// for a release message), and the first delay Acquire sleeps is r.Delay(2).
// An EagerNotifier that subscribes first makes no such attempt.
//
// It gives up when r does or when ctx is done; then the error matches
// ErrNotAcquired, and also ctx.Err() when the context ended the wait. Any
// other error (bad input, Redis unreachable) is returned at once.
func Acquire(ctx context.Context, s Strategy, key string, ttl time.Duration, r Retry) (Lock, error) {
	if s == nil {
		return nil, fmt.Errorf("locklab: Acquire with a nil Strategy")
	}
	if err := Validate(key, ttl); err != nil {
		return nil, err
	}
	if r == nil {
		r = NoRetry()
	}
	notifier, _ := s.(Notifier)
	subscribed := notifier == nil
	var wake <-chan struct{}
	if e, ok := s.(EagerNotifier); ok && e.SubscribeFirst() {
		w, stop, err := e.Subscribe(ctx, key)
		if err != nil {
			return nil, err
		}
		defer stop()
		wake, subscribed = w, true
	}
	var timer *time.Timer
	for failed := 1; ; failed++ {
		lock, err := s.TryAcquire(ctx, key, ttl)
		if err == nil {
			return lock, nil
		}
		if cerr := contextDone(ctx, err); cerr != nil {
			// Keep the cause: the error matches ErrNotAcquired, the
			// context's error, and whatever the attempt failed with.
			switch {
			case errors.Is(err, ErrNotAcquired):
				return nil, fmt.Errorf("%w: %w", err, cerr)
			case errors.Is(err, cerr):
				return nil, fmt.Errorf("%w: %w", ErrNotAcquired, err)
			default:
				return nil, fmt.Errorf("%w: %w: %w", ErrNotAcquired, cerr, err)
			}
		}
		if !errors.Is(err, ErrNotAcquired) {
			return nil, err
		}
		d, again := r.Delay(failed)
		if !again {
			return nil, err
		}
		if !subscribed {
			// Subscribe only once the lock is found taken, so that an
			// uncontended Acquire costs no subscription; then try again
			// at once: the lock may have been released before the
			// subscription was in place. A nil channel subscribes to
			// nothing (the strategies without notifications): then
			// nothing was missed, and Acquire waits as r says.
			w, stop, err := notifier.Subscribe(ctx, key)
			if err != nil {
				return nil, err
			}
			defer stop()
			wake, subscribed = w, true
			if wake != nil {
				continue
			}
		}
		if timer == nil {
			timer = time.NewTimer(d)
			defer timer.Stop()
		} else {
			timer.Reset(d)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %q: %w", ErrNotAcquired, key, ctx.Err())
		case <-timer.C:
		case <-wake:
			// Since Go 1.23, Reset discards a value the timer may have sent.
		}
	}
}

// contextDone returns the context's error when ctx ended the attempt: it is
// done, or err is its error, or its deadline has passed (a network deadline
// set from it can fire a moment before the context's own timer).
func contextDone(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	for _, cerr := range []error{context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, cerr) {
			return cerr
		}
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}
