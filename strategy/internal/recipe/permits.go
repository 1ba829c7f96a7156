package recipe

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrInvalidPermits means a semaphore made with fewer than one permit, or
// an acquire of fewer than one permit or of more than the semaphore has.
// The semaphore packages export it as their own.
var ErrInvalidPermits = errors.New("locklab: invalid number of permits")

// CheckPermits checks the number of permits a semaphore is made with.
func CheckPermits(name string, permits int) error {
	if permits < 1 {
		return fmt.Errorf("%s: %w: a semaphore of %d permits", name, ErrInvalidPermits, permits)
	}
	return nil
}

// BeginN is Begin for an acquire of n of a semaphore's permits: it also
// checks that n is between 1 and permits.
func (b *Base) BeginN(ctx context.Context, key string, n, permits int, ttl time.Duration) (*Session, error) {
	if n < 1 || n > permits {
		return nil, fmt.Errorf("%s: %w: %d of %d", b.Name, ErrInvalidPermits, n, permits)
	}
	return b.Begin(ctx, key, ttl)
}
