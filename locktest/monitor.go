package locktest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

// A verdict is only as good as the server it was found on: a server that
// stalls (a fork for a snapshot, DEBUG SLEEP, a swapped-out process), drops
// connections or restarts in the middle of a check can make a correct lock
// look broken, or a broken one look correct. So while a check runs, the
// suite PINGs the server on a connection of its own, and a check during
// which a PING failed or took longer than the Short TTL is run again, on
// fresh keys; if it is disturbed every time, it ends without a verdict.

// ErrInconclusive is the error of a Result whose check was disturbed by the
// server in each of its runs: it says nothing about the strategy.
var ErrInconclusive = errors.New("locktest: inconclusive: the server was disturbed during every run of the check")

// checkRuns is how many times a disturbed check is run in all.
const checkRuns = 3

// pingEvery is how often the monitor PINGs the server.
const pingEvery = 10 * time.Millisecond

// monitor watches a server while a check runs.
type monitor struct {
	stopped chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	first   error // the first disturbance seen
}

// watch starts PINGing p every pingEvery; a PING that fails or takes longer
// than stall is a disturbance.
func watch(ctx context.Context, p strategy.Pool, stall time.Duration) *monitor {
	m := &monitor{stopped: make(chan struct{}), done: make(chan struct{})}
	go m.run(ctx, p, stall)
	return m
}

func (m *monitor) disturbed(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.first == nil {
		m.first = err
	}
}

func (m *monitor) run(ctx context.Context, p strategy.Pool, stall time.Duration) {
	defer close(m.done)
	var conn redis.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	tick := time.NewTicker(pingEvery)
	defer tick.Stop()
	for {
		if conn == nil {
			c, err := p.GetContext(ctx)
			if err != nil {
				if ctx.Err() == nil {
					m.disturbed(fmt.Errorf("no connection to the server: %w", err))
				}
			} else {
				conn = c
			}
		}
		if conn != nil {
			start := time.Now()
			pctx, cancel := context.WithTimeout(ctx, 10*stall)
			_, err := redis.DoContext(conn, pctx, "PING")
			cancel()
			took := time.Since(start)
			switch {
			case err != nil && ctx.Err() == nil:
				m.disturbed(fmt.Errorf("PING failed after %v: %w", took.Round(time.Millisecond), err))
				conn.Close()
				conn = nil
			case err == nil && took > stall:
				m.disturbed(fmt.Errorf("the server stalled: a PING took %v, more than the %v a scenario's timing allows", took.Round(time.Millisecond), stall))
			}
		}
		select {
		case <-m.stopped:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// lost is told of a connection the server cut under a client: a
// disturbance, as a stall is.
func (m *monitor) lost(err error) {
	m.disturbed(fmt.Errorf("the server cut a client's connection: %w", err))
}

// stop ends the watch and returns the first disturbance seen, if any.
func (m *monitor) stop() error {
	close(m.stopped)
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.first
}
