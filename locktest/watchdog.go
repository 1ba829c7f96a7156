package locktest

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/locklab/locklab/locktest/internal/sim"
)

// watchdog runs f on a goroutine of its own with a context that ends after
// timeout, so that a lock that hangs or panics costs an error, never a hung
// suite. It returns what f returned; or the error of an abort f raised;
// or a *panicked for any other panic; or a *hung when f did not return
// before the context ended (its deadline, or ctx cancelled).
func watchdog[T any](ctx context.Context, timeout time.Duration, f func(ctx context.Context) T) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				if a, ok := v.(sim.Abort); ok {
					done <- outcome{err: a.Err}
					return
				}
				done <- outcome{err: &panicked{v: v, stack: debug.Stack()}}
			}
		}()
		done <- outcome{v: f(ctx)}
	}()
	select {
	case o := <-done:
		return o.v, o.err
	case <-ctx.Done():
		var zero T
		return zero, &hung{after: timeout, err: ctx.Err()}
	}
}

// panicked is the error of a watchdog whose function panicked.
type panicked struct {
	v     any
	stack []byte
}

func (p *panicked) Error() string { return fmt.Sprintf("panicked: %v\n%s", p.v, p.stack) }

// hung is the error of a watchdog whose function did not return in time.
type hung struct {
	after time.Duration
	err   error
}

func (h *hung) Error() string { return fmt.Sprintf("no return after %v: %v", h.after, h.err) }
func (h *hung) Unwrap() error { return h.err }
