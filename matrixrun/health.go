package matrixrun

import (
	"context"
	"fmt"
	"github.com/locklab/locklab/locktest"
	"time"

	"github.com/locklab/locklab/redistest"
)

// How long the run waits for a server that stopped answering before it
// gives up on it: a few tries on fresh connections, the delay doubling.
const (
	healthAttempts = 4
	healthDelay    = 100 * time.Millisecond
)

// health watches the server a run checks on. After every check it asks,
// on a fresh connection, for the server's run_id: a server that no longer
// answers, or answers with another run_id (it restarted, and forgot the
// keys of the check under way), ends the run without a verdict for that
// check. The suite's own monitor only reruns a disturbed check; a server
// that is gone or restarted is not a disturbance a rerun can wait out.
type health struct {
	srv   *redistest.Server
	runID string
}

// newHealth reads the server's run_id.
func newHealth(ctx context.Context, srv *redistest.Server) (*health, error) {
	h := &health{srv: srv}
	id, err := h.read(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the run_id of the Redis at %s: %w", srv.Addr, err)
	}
	h.runID = id
	return h, nil
}

// check returns nil while the server answers with the run_id it had at the
// start; otherwise an error that says what happened to it.
func (h *health) check(ctx context.Context) error {
	var err error
	delay := healthDelay
	for attempt := 1; attempt <= healthAttempts; attempt++ {
		var id string
		id, err = h.read(ctx)
		if err == nil {
			if id != h.runID {
				return fmt.Errorf("the Redis at %s restarted during the run (its run_id changed from %s to %s), "+
					"and the keys of the check under way went with it", h.srv.Addr, h.runID, id)
			}
			return nil
		}
		if ctx.Err() != nil || attempt == healthAttempts {
			break
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
		}
		delay *= 2
	}
	if ctx.Err() != nil {
		return nil // the run was stopped; the caller says so
	}
	return fmt.Errorf("the Redis at %s stopped answering (%v, %d tries over %v)",
		h.srv.Addr, err, healthAttempts, healthDelay*(1<<(healthAttempts-1)-1))
}

// read returns the server's run_id, on a connection of its own.
func (h *health) read(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return h.srv.ServerInfo(ctx, "run_id")
}

// lostServer is the error of a run that ended because its server was
// lost: how far it got, and why.
type lostServer struct {
	err error
	interruption
}

func (e *lostServer) Error() string {
	return fmt.Sprintf("%v; %s; no verdict is printed", e.err, e.interruption.Error())
}

func (e *lostServer) Unwrap() error { return e.err }

// errNoLogin stops a run whose program does not log in to its proxy:
// every check would fail the same way, which is no verdict of the lock.
// err is the check's, which matches locktest.ErrNoLogin.
type errNoLogin struct {
	current string
	err     error
}

func (e errNoLogin) Error() string {
	return fmt.Sprintf("%s: %v; no verdict is printed", e.current, e.err)
}

func (e errNoLogin) Unwrap() error { return locktest.ErrNoLogin }
