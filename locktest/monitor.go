package locktest

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
)

// A verdict is only as good as the server it was found on: a server that
// stalls (a fork for a snapshot, DEBUG SLEEP, a swapped-out process), drops
// connections, restarts or evicts keys (maxmemory with an allkeys-* or
// volatile-* policy: every lock key has a TTL) in the middle of a check can
// make a correct lock look broken, or a broken one look correct. So while a
// check runs, the suite PINGs the server on a connection of its own and
// reads its evicted_keys (INFO stats), and a check during which a PING
// failed or took longer than the Short TTL, or the server evicted a key, is
// run again, on fresh keys; if it is disturbed every time, it ends without
// a verdict.

// ErrInconclusive is returned when every run of the check was disturbed.
var ErrInconclusive = errors.New("locktest: inconclusive: the server was disturbed during every run of the check")

// ErrEvicted is returned when the server evicted keys during the check.
var ErrEvicted = errors.New("locktest: the server evicted keys during the check")

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
	// evictions is the monitor's own: watch, then run, then stop (once
	// run is done) read it.
	evictions evictions
	// pause, for the package's tests, runs before each probe: a stall
	// of the suite's own process.
	pause func()
}

// watch starts PINGing p every pingEvery, and reading evicted_keys; a PING
// that fails or takes longer than stall, or a key evicted, is a
// disturbance. The first reading is taken before watch returns, so that
// every key evicted during the check counts.
func watch(ctx context.Context, p strategy.Pool, stall time.Duration) *monitor {
	return watchPausing(ctx, p, stall, nil)
}

// watchPausing is watch, pause running before each probe.
func watchPausing(ctx context.Context, p strategy.Pool, stall time.Duration, pause func()) *monitor {
	m := &monitor{stopped: make(chan struct{}), done: make(chan struct{}), pause: pause}
	conn, err := p.GetContext(ctx)
	if err != nil {
		conn = nil // run tries again, and says what is wrong
	} else if !m.readEvictions(ctx, conn, stall) {
		conn.Close()
		conn = nil
	}
	go m.run(ctx, p, stall, conn)
	return m
}

func (m *monitor) Disturbed(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.first == nil {
		m.first = err
	}
}

func (m *monitor) run(ctx context.Context, p strategy.Pool, stall time.Duration, conn redis.Conn) {
	defer close(m.done)
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	tick := time.NewTicker(pingEvery)
	defer tick.Stop()
	// When the last probe ended: a probe begins pingEvery after it, and
	// a gap of more than stall besides says that the suite's own process
	// was stalled (descheduled on a machine too busy), which delays what
	// its clients record as much as a stalled server delays their
	// commands: the times of a run are then not the times of its
	// commands.
	var last time.Time
	for {
		if m.pause != nil {
			m.pause()
		}
		if gap := time.Since(last); !last.IsZero() && gap > pingEvery+stall {
			m.Disturbed(sim.Failure(mSuiteStalled.New(gap.Round(time.Millisecond), pingEvery, stall)))
		}
		if conn == nil {
			c, err := p.GetContext(ctx)
			if err != nil {
				if ctx.Err() == nil {
					m.Disturbed(sim.Failure(mNoServer.New(err.Error()), err))
				}
			} else {
				conn = c
			}
		}
		if conn != nil && !m.probe(ctx, conn, stall) {
			conn.Close()
			conn = nil
		}
		last = time.Now()
		select {
		case <-m.stopped:
			// The last reading counts the keys evicted up to the end of
			// the check.
			if conn != nil {
				m.readEvictions(ctx, conn, stall)
			}
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// probe PINGs the server on conn and reads its evicted_keys; it returns
// false when conn failed.
func (m *monitor) probe(ctx context.Context, conn redis.Conn, stall time.Duration) bool {
	start := time.Now()
	pctx, cancel := context.WithTimeout(ctx, 10*stall)
	_, err := redis.DoContext(conn, pctx, "PING")
	cancel()
	took := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return true // the check is over; run returns
		}
		m.Disturbed(sim.Failure(mPingFailed.New(took.Round(time.Millisecond), err.Error()), err))
		return false
	}
	if took > stall {
		m.Disturbed(sim.Failure(mPingStalled.New(took.Round(time.Millisecond), stall)))
	}
	// A stall that begins after the PING's reply stalls the INFO: timed
	// the same, or the monitor is blind for that part of each probe.
	start = time.Now()
	ok := m.readEvictions(ctx, conn, stall)
	if took := time.Since(start); ok && took > stall {
		m.Disturbed(sim.Failure(mInfoStalled.New(took.Round(time.Millisecond), stall)))
	}
	return ok
}

// readEvictions reads evicted_keys on conn; it returns false when conn
// failed.
func (m *monitor) readEvictions(ctx context.Context, conn redis.Conn, stall time.Duration) bool {
	ictx, cancel := context.WithTimeout(ctx, 10*stall)
	defer cancel()
	if err := m.evictions.read(ictx, conn); err != nil {
		if ctx.Err() == nil {
			m.Disturbed(sim.Failure(mInfoFailed.New(err.Error()), err))
		}
		return false
	}
	return true
}

// lost is told of a connection the server cut under a client: a
// disturbance, as a stall is.
func (m *monitor) lost(err error) {
	m.Disturbed(sim.Failure(mConnCut.New(err.Error()), err))
}

// stop ends the watch and returns the disturbance seen, if any: keys
// evicted, or else the first other one. An evicted key is data lost, and
// explains a verdict (and a stall that came with it) better than a stall
// does.
func (m *monitor) stop() error {
	close(m.stopped)
	<-m.done
	if m.evictions.count > 0 {
		return m.evictions.Err()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.first
}

// evictions follows a server's evicted_keys (INFO stats).
type evictions struct {
	blind  bool   // the server refuses INFO (an ACL user without it), or does not count evictions
	known  bool   // last is a reading
	last   int64  // evicted_keys at the last reading
	count  int64  // keys evicted since the first reading
	policy string // the server's maxmemory_policy, read once a key was evicted
}

// read reads evicted_keys on c. Its error is c's: a server that refuses
// INFO only leaves the evictions unseen.
func (e *evictions) read(ctx context.Context, c redis.Conn) error {
	if e.blind {
		return nil
	}
	fields, err := redistest.Info(ctx, c, "stats")
	var refused redis.Error
	if errors.As(err, &refused) {
		e.blind = true
		return nil
	}
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(fields["evicted_keys"], 10, 64)
	if err != nil {
		e.blind = true
		return nil
	}
	switch {
	case !e.known:
	case n >= e.last:
		e.count += n - e.last
	default: // the server restarted, and counts from 0 again
		e.count += n
	}
	e.known, e.last = true, n
	if e.count > 0 && e.policy == "" {
		if mem, err := redistest.Info(ctx, c, "memory"); err == nil {
			e.policy = mem["maxmemory_policy"]
		}
	}
	return nil
}

// Err is the disturbance of a check during which the server evicted
// keys: any of them may have been a lock's.
func (e *evictions) Err() error {
	policy := e.policy
	if policy == "" {
		policy = "unknown"
	}
	return sim.Failure(mEvicted.New(int(e.count), policy), ErrEvicted)
}
