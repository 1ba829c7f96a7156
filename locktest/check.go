package locktest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

// Factory builds a strategy instance for one simulated client. The suite
// calls it once per client. Every command of the client must go to c.Addr
// (c.Pool, a strategy.Pool, dials it), where the suite watches and steers it;
// a strategy that reads the time must read it from c.Clock. What the
// factory starts that the client's connections do not end (a client of
// another library, a process) it hands to c.Cleanup.
type Factory func(c Client) (strategy.Strategy, error)

// Config says where and how to check.
type Config struct {
	// Addr is the host:port of the real Redis the scenarios run on. Check
	// PINGs it before any scenario.
	Addr string
	// Dial, when set, opens the connections to Redis, the suite's own and
	// those of the clients' proxies, in place of a TCP dial of Addr.
	Dial func(ctx context.Context) (net.Conn, error)
	// TLS, when set, makes every connection to Redis a TLS one with this
	// configuration (its ServerName defaults to Addr's host). The clients
	// still speak plain RESP to their proxies, which speak TLS to Redis.
	TLS *tls.Config
	// Username, Password and DB log every connection to Redis in (AUTH,
	// with Username for an ACL user) and select its database, before the
	// first command of the suite or of a client crosses it. They never
	// reach the lock under test: a client logs in to its own proxy with a
	// secret of the run's (Client.Password).
	Username string
	Password string
	DB       int
	// New builds the strategy under test.
	New Factory
	// Key is the lock key; the suite derives one key per scenario from it
	// and may leave them behind. It must be unique to this check.
	Key string
	// Timeout bounds each property (the watchdog); 0 means 30s.
	Timeout time.Duration
	// Timing is the time scale of the scenarios; see Timing.
	Timing Timing
	// Masters is, for a lock over several independent Redis masters (such
	// as Redlock), how many it spans: the topology properties start that
	// many, and give each client an address and a pool on each
	// (Client.Addrs, Client.Pools). 0 or 1: a lock on one Redis. Every
	// other property runs on the one Redis at Addr, which the lock then
	// sees as its only master.
	Masters int
	// RestartDelay is how long a master that restart-amnesia restarts
	// stays down first: 0 restarts it at once; antirez's delayed restart
	// keeps it down for longer than the longest TTL (here Timing.Long).
	RestartDelay time.Duration

	perms *permissions // the NOPERMs of the check under way; nil outside one
}

// Timing is the time scale of the scenarios. Sleeps serve only real TTL
// expiry; everything else is ordered by gates and events. The defaults suit
// a lock that honours millisecond TTLs; a lock that rounds TTLs up to whole
// seconds (EX) needs a scale it honours, for example
//
//	Timing{Short: time.Second, Slack: 1500 * time.Millisecond}
//
// Every zero field takes its default.
type Timing struct {
	// Short is a lease meant to run out during a scenario; 60ms. The
	// lease-kept and renewed-overrun holders take five times it.
	Short time.Duration
	// Long is a lease that must not run out during a scenario; 5s.
	Long time.Duration
	// Slack is how long past a TTL a waiter keeps trying; 500ms.
	Slack time.Duration
	// Poll is how often a waiter tries again; 5ms.
	Poll time.Duration
}

// withDefaults fills the zero fields of t.
func (t Timing) withDefaults() Timing {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.Short, 60*time.Millisecond)
	def(&t.Long, 5*time.Second)
	def(&t.Slack, 500*time.Millisecond)
	def(&t.Poll, 5*time.Millisecond)
	return t
}

// lease is the TTL of renewed-overrun's holder: long enough that a renewal
// every third of it, and the detector's bookkeeping, are far inside it.
func (t Timing) lease() time.Duration { return 5 * t.Short }

// kept is the holder's TTL in lease-kept: long enough for many probes.
func (t Timing) kept() time.Duration { return 5 * t.Short }

// keptTolerance is how long before the end of lease-kept's TTL its probes
// stop: a tenth of the TTL, and at least a third of Short.
func (t Timing) keptTolerance() time.Duration { return max(t.kept()/10, t.Short/3) }

// staleAfter is how long past its TTL a lock is waited on before it is
// called stale: timestamps count whole milliseconds and clocks tick apart.
func (t Timing) staleAfter() time.Duration { return t.Short / 3 }

// outlast is an interval between a waiter's attempts just longer than ttl:
// a key that each attempt sets to ttl (an acquire that writes even when it
// fails) can expire between two of them.
func (t Timing) outlast(ttl time.Duration) time.Duration { return ttl + 2*t.Poll }

// Check runs one property and returns its verdict. It never hangs: a
// strategy that does not return within the watchdog's timeout, panics, or
// fails in a way the scenario did not expect yields a Result with Err set.
func Check(ctx context.Context, cfg Config, p Property) Result {
	start := time.Now()
	res := check(ctx, cfg, p)
	res.Property = p
	res.Elapsed = time.Since(start)
	if res.Err != nil {
		res.Verdict = NoVerdict
	}
	return res
}

func check(ctx context.Context, cfg Config, p Property) Result {
	row, ok := lookup(p)
	scenario := row.scenario
	if !ok {
		return Result{Err: fmt.Errorf("unknown property %q", p)}
	}
	switch {
	case cfg.New == nil:
		return Result{Err: errors.New("nil Factory")}
	case cfg.Addr == "" && cfg.Dial == nil:
		return Result{Err: errors.New("no Addr: the suite needs a Redis server to run on")}
	case cfg.Key == "":
		return Result{Err: errors.New("empty Key")}
	case cfg.Masters < 0 || cfg.Masters > maxMasters:
		return Result{Err: fmt.Errorf("config: Masters = %d: want 0 to %d", cfg.Masters, maxMasters)}
	case cfg.DB < 0:
		return Result{Err: fmt.Errorf("config: DB = %d: want 0 or more", cfg.DB)}
	case cfg.Username != "" && cfg.Password == "":
		return Result{Err: fmt.Errorf("config: Username %q without a Password", cfg.Username)}
	case cfg.RestartDelay < 0:
		return Result{Err: fmt.Errorf("config: RestartDelay = %v: want 0 or more", cfg.RestartDelay)}
	}
	cfg.perms = &permissions{}
	pool := cfg.pool()
	defer pool.Close()
	if err := checkPool(ctx, pool); err != nil {
		return Result{Err: err}
	}
	tm := cfg.Timing.withDefaults()
	var res Result
	for n := 1; n <= checkRuns; n++ {
		suffix := ""
		if n > 1 {
			suffix = fmt.Sprintf("/rerun-%d", n) // fresh keys: the last run may have left its own
		}
		m := watch(ctx, pool, tm.Short)
		res = checkOnce(ctx, cfg, pool, m, p, scenario, suffix)
		why := m.stop()
		if err := cfg.perms.err(); err != nil && !errors.Is(res.Err, ErrInterrupted) {
			return Result{Err: err, Timeline: res.Timeline, Key: res.Key, Start: res.Start, Tokens: res.Tokens}
		}
		if why == nil || errors.Is(res.Err, ErrInterrupted) {
			return res
		}
		res.Timeline = append(res.Timeline, Event{Kind: EvNote, Text: fmt.Sprintf("run %d of the check was disturbed: %v", n, why)})
		res = Result{Err: fmt.Errorf("%w (%d runs); the last: %w", ErrInconclusive, n, why),
			Timeline: res.Timeline, Key: res.Key, Start: res.Start, Tokens: res.Tokens}
	}
	return res
}

// checkOnce runs a property once, on keys under cfg.Key, p and suffix.
func checkOnce(ctx context.Context, cfg Config, pool *redis.Pool, m *monitor, p Property, sc scenario, suffix string) Result {
	timeout := cfg.timeout()
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	done := make(chan Result, 1)
	var r *run
	var runsMu sync.Mutex
	var runs []*run
	// Whatever way the check ends, every client it made is stopped, so
	// that nothing it started (a renewal) outlives it.
	defer func() {
		runsMu.Lock()
		defer runsMu.Unlock()
		for _, r := range runs {
			r.shutdown()
		}
	}()
	newRun := func(name string) *run {
		r = cfg.newRun(ctx, pool, cfg.Key+":"+string(p)+suffix+name)
		r.lost = m.lost
		runsMu.Lock()
		runs = append(runs, r)
		runsMu.Unlock()
		return r
	}
	go func() {
		defer func() {
			if v := recover(); v != nil {
				a, ok := v.(abort)
				if !ok {
					panic(v)
				}
				res := Result{Err: a.err}
				if r != nil {
					res = r.counterexample(res)
				}
				done <- res
			}
		}()
		done <- sc(newRun)
	}()
	select {
	case res := <-done:
		if parent.Err() != nil {
			// Cut short from outside: whatever the run found is not a verdict.
			return Result{Err: fmt.Errorf("%w: %w", ErrInterrupted, context.Cause(parent))}
		}
		return res
	case <-ctx.Done():
		if parent.Err() != nil {
			return Result{Err: fmt.Errorf("%w: %w", ErrInterrupted, context.Cause(parent))}
		}
		return Result{Err: fmt.Errorf("watchdog: no verdict after %v: the strategy hung (%w)", timeout, ctx.Err())}
	}
}

// ErrInterrupted is the error of a Result whose check was stopped from
// outside (its context was cancelled) before it reached a verdict: it says
// nothing about the strategy.
var ErrInterrupted = errors.New("locktest: interrupted before a verdict")

// timeout is the watchdog's bound on a property, a contract check or
// Detect: Config.Timeout, or 30s.
func (cfg Config) timeout() time.Duration {
	if cfg.Timeout <= 0 {
		return 30 * time.Second
	}
	return cfg.Timeout
}

// newRun starts a run on key, with the suite's own connections from pool:
// its timeline, starting now, and its detector.
func (cfg Config) newRun(ctx context.Context, pool *redis.Pool, key string) *run {
	now := time.Now()
	r := &run{ctx: ctx, pool: pool, dial: cfg.dialer(), factory: cfg.New, key: key, perms: cfg.perms,
		tm: cfg.Timing.withDefaults(), t0: now.UnixMilli(), rec: &recorder{start: now},
		masters: cfg.Masters, restartDelay: cfg.RestartDelay}
	r.det = &detector{rec: r.rec}
	return r
}

// dialer returns how to open a connection to Redis: Dial or a TCP dial
// of Addr, then TLS and the login when the configuration asks for them.
func (cfg Config) dialer() func(ctx context.Context) (net.Conn, error) {
	dial := cfg.Dial
	if dial == nil {
		dial = dialTCP(cfg.Addr)
	}
	if cfg.TLS == nil && cfg.Password == "" && cfg.DB == 0 {
		return dial
	}
	tlsConf := cfg.TLS
	if tlsConf != nil && tlsConf.ServerName == "" && !tlsConf.InsecureSkipVerify {
		tlsConf = tlsConf.Clone()
		tlsConf.ServerName, _, _ = net.SplitHostPort(cfg.Addr)
	}
	return func(ctx context.Context) (net.Conn, error) {
		nc, err := dial(ctx)
		if err != nil {
			return nil, err
		}
		if tlsConf != nil {
			tc := tls.Client(nc, tlsConf)
			if err := tc.HandshakeContext(ctx); err != nil {
				nc.Close()
				return nil, fmt.Errorf("TLS with %s: %w", cfg.Addr, err)
			}
			nc = tc
		}
		if err := cfg.login(ctx, nc); err != nil {
			nc.Close()
			return nil, err
		}
		return nc, nil
	}
}

// login logs a fresh connection in and selects the database, in RESP2, so
// that whatever crosses it next finds it as a new connection to a server
// without a password would be.
func (cfg Config) login(ctx context.Context, nc net.Conn) error {
	rc := redis.NewConn(nc, 10*time.Second, 10*time.Second)
	if cfg.Password != "" {
		args := []any{cfg.Password}
		if cfg.Username != "" {
			args = []any{cfg.Username, cfg.Password}
		}
		if _, err := redis.DoContext(rc, ctx, "AUTH", args...); err != nil {
			if cfg.Username == "" {
				return fmt.Errorf("AUTH as the default user: %w", err)
			}
			return fmt.Errorf("AUTH as user %s: %w", cfg.Username, err)
		}
	}
	if cfg.DB != 0 {
		if _, err := redis.DoContext(rc, ctx, "SELECT", cfg.DB); err != nil {
			return fmt.Errorf("SELECT %d: %w", cfg.DB, err)
		}
	}
	return nc.SetDeadline(time.Time{}) // the ones redigo set for the login
}

// dialTCP returns a dial of addr over TCP.
func dialTCP(addr string) func(context.Context) (net.Conn, error) {
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
}

// pool returns a pool of the suite's own connections to Redis, for what
// it reads and writes outside every client (a stale lock's copy, a PTTL).
func (cfg Config) pool() *redis.Pool {
	dial := cfg.dialer()
	return &redis.Pool{
		MaxIdle: 4,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			nc, err := dial(ctx)
			if err != nil {
				return nil, err
			}
			c := redis.NewConn(nc, 10*time.Second, 10*time.Second)
			if cfg.perms != nil {
				return permConn{c.(connWithAll), cfg.perms}, nil
			}
			return c, nil
		},
	}
}

// checkPool makes sure the server answers on a connection of p.
func checkPool(ctx context.Context, p strategy.Pool) error {
	// A pooled connection the server cut since its last use fails its
	// first command; closed with an error, it leaves the pool, and the
	// next one is tried.
	const attempts = 3
	var err error
	for range attempts {
		var failed *connFailed
		if err = pingPool(ctx, p); !errors.As(err, &failed) {
			break
		}
	}
	return err
}

// connFailed is the error of a PING on a connection the pool gave.
type connFailed struct{ err error }

func (e *connFailed) Error() string { return e.err.Error() }
func (e *connFailed) Unwrap() error { return e.err }

// pingPool PINGs on one connection of p.
func pingPool(ctx context.Context, p strategy.Pool) error {
	c, err := p.GetContext(ctx)
	if err != nil {
		return fmt.Errorf("no connection to Redis: %w", err)
	}
	defer c.Close()
	if _, err := redis.DoContext(c, ctx, "PING"); err != nil {
		return fmt.Errorf("PING: %w", &connFailed{err})
	}
	return nil
}

// scenario runs a property; it calls newRun for each fresh run it needs
// (a fresh key and timeline) and reports the verdict of the last one.
type scenario func(newRun func(suffix string) *run) Result

// holds, breaks and notApplicable build results from a run.
func (r *run) holds(reason string, args ...any) Result {
	r.shutdown()
	return Result{Verdict: Holds, Reason: fmt.Sprintf(reason, args...)}
}

func (r *run) breaks(reason string, args ...any) Result {
	r.shutdown()
	return r.counterexample(Result{Verdict: Breaks, Reason: fmt.Sprintf(reason, args...)})
}

func (r *run) notApplicable(reason string, args ...any) Result {
	r.shutdown()
	return Result{Verdict: NotApplicable, Reason: fmt.Sprintf(reason, args...)}
}
