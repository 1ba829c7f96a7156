package redlock

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
	"github.com/rs/xid"
)

// name is the strategy's name in errors.
const name = "redlock"

var (
	//go:embed release.lua
	releaseSrc string
	//go:embed refresh.lua
	refreshSrc string

	releaseScript = redis.NewScript(1, releaseSrc)
	refreshScript = redis.NewScript(1, refreshSrc)
)

// Strategy is Redlock over a fixed set of independent Redis masters, one
// strategy.Pool each. It is safe for concurrent use.
type Strategy struct {
	nodes  []strategy.Pool
	quorum int
	cfg    config
	retry  strategy.Retry
}

// New returns Redlock over the masters that pools reach, in that order:
// a lock needs a quorum of len(pools)/2+1 of them. The masters must be
// independent (no replication between them, not shards of one Cluster);
// an odd number, five as antirez suggests, tolerates the most failures for
// its size. A bad option makes New fail with an error matching
// ErrInvalidOption; no pool, or a nil one, with strategy.ErrNilPool.
func New(pools []strategy.Pool, opts ...Option) (*Strategy, error) {
	if len(pools) == 0 {
		return nil, fmt.Errorf("%s: %w: no pools", name, strategy.ErrNilPool)
	}
	for i, p := range pools {
		if err := strategy.CheckPool(fmt.Sprintf("%s: node %d", name, i), p); err != nil {
			return nil, err
		}
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return &Strategy{
		nodes:  append([]strategy.Pool(nil), pools...),
		quorum: len(pools)/2 + 1,
		cfg:    cfg,
		retry:  jitter(cfg.retryDelay),
	}, nil
}

// Quorum returns how many nodes a lock needs: a majority.
func (s *Strategy) Quorum() int { return s.quorum }

// Acquire waits for the lock: it calls TryAcquire until it succeeds, fails
// with another error than strategy.ErrNotAcquired, or ctx is done, and
// waits a random time between attempts (see WithRetryDelay). It is
// strategy.Acquire with that retry policy.
func (s *Strategy) Acquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return strategy.Acquire(ctx, s, key, ttl, s.retry)
}

// TryAcquire makes one attempt to lock key for ttl on a quorum of nodes:
//
//  1. it reads the clock (WithClock) and makes a new random token;
//  2. it sends SET key <token> NX PX ttl to every node at once, each
//     bounded by the node timeout (WithNodeTimeout);
//  3. once all have answered or timed out, it reads the clock again: the
//     lock's validity is ttl, less the time elapsed, less the drift
//     allowance (WithDriftFactor, plus 2ms);
//  4. with a quorum of nodes locked and a positive validity, the lock is
//     held; otherwise it deletes its token (compare-and-delete) from every
//     node it may have locked and fails.
//
// The deletions of step 4 are waited for on the nodes that answered OK; on
// those whose answer did not come (the SET may have got through), they run
// in the background, bounded by the node timeout. An attempt that fails
// with some nodes answering, or only too late for the node timeout, fails
// with an error matching strategy.ErrNotAcquired, whose message says how
// many nodes it locked and why the others failed. One that reached no node
// at all (every connection refused, or ctx ended) fails with the nodes'
// errors and not with strategy.ErrNotAcquired, as every strategy does when
// Redis cannot be reached. ttl counts whole milliseconds and must exceed
// the drift allowance, or the error matches strategy.ErrInvalidTTL.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if err := strategy.Validate(key, ttl); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ttl = ttl.Truncate(time.Millisecond)
	drift := s.cfg.drift(ttl)
	if ttl <= drift {
		return nil, fmt.Errorf("%s: %w: a TTL of %v leaves no validity after the clock drift allowance of %v",
			name, strategy.ErrInvalidTTL, ttl, drift)
	}
	token := xid.New().String()
	start := s.cfg.clock.Now()
	replies := s.onNodes(ctx, s.cfg.timeout(ttl), func(ctx context.Context, c redis.Conn) (bool, error) {
		_, err := redis.String(recipe.Do(ctx, c, "SET", key, token, "NX", "PX", ttl.Milliseconds()))
		if errors.Is(err, redis.ErrNil) {
			return false, nil // someone else's key
		}
		return err == nil, err
	})
	end := s.cfg.clock.Now()
	until := start.Add(ttl - drift)
	t := count(replies)
	if t.done >= s.quorum && end.Before(until) {
		return &Lock{s: s, key: key, token: token, until: until}, nil
	}
	s.undo(ctx, key, token, ttl, replies)
	if t.answered == 0 && t.late == 0 {
		return nil, opError("SET", key, t.err())
	}
	var why error
	if t.done < s.quorum {
		why = fmt.Errorf("%w: locked %d of %d nodes, quorum %d", strategy.ErrNotAcquired, t.done, len(s.nodes), s.quorum)
	} else {
		why = fmt.Errorf("%w: locked %d of %d nodes, but the attempt took %v of the %v TTL, which leaves no validity after the %v drift allowance",
			strategy.ErrNotAcquired, t.done, len(s.nodes), end.Sub(start), ttl, drift)
	}
	if err := t.err(); err != nil {
		why = fmt.Errorf("%w; %w", why, err)
	}
	return nil, opError("acquire", key, why)
}

// undo deletes the token of a failed attempt from the nodes that may hold
// it: waiting for those that answered OK, in the background on those that
// did not answer. A node that answered nil holds someone else's key.
func (s *Strategy) undo(ctx context.Context, key, token string, ttl time.Duration, replies []reply) {
	ctx = context.WithoutCancel(ctx)
	timeout := s.cfg.timeout(ttl)
	var wg sync.WaitGroup
	for i, r := range replies {
		release := func() {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			if c, err := s.nodes[i].GetContext(ctx); err == nil {
				_, _ = recipe.Eval(ctx, c, releaseScript, key, token)
				c.Close()
			}
		}
		switch {
		case r.done:
			wg.Go(release)
		case r.err != nil:
			go release()
		}
	}
	wg.Wait()
}

// Lock is a lock held on a quorum of nodes. Its methods are safe for
// concurrent use.
type Lock struct {
	s     *Strategy
	key   string
	token string

	mu    sync.Mutex
	until time.Time // by the strategy's clock: the end of the validity
}

var (
	_ strategy.Lock      = (*Lock)(nil)
	_ strategy.Refresher = (*Lock)(nil)
)

// Key returns the locked key.
func (l *Lock) Key() string { return l.key }

// Token returns the random value the lock wrote on every node.
func (l *Lock) Token() string { return l.token }

// Validity returns how much of the lock's validity is left now, by the
// strategy's clock: the TTL, less the time the acquire (or the last
// Refresh) took, less the drift allowance, less the time since. Work under
// the lock must end before it reaches zero; it is negative once it has
// passed. Nothing is sent to the nodes.
func (l *Lock) Validity() time.Duration {
	l.mu.Lock()
	until := l.until
	l.mu.Unlock()
	return until.Sub(l.s.cfg.clock.Now())
}

// Release deletes the lock's token from every node at once, with a Lua
// compare-and-delete that leaves another holder's key alone. It returns
// nil when at least one node deleted it; an error matching
// strategy.ErrNotHeld when every node answered and none held it (it had
// expired, or was released already); otherwise the nodes' errors. A node
// that could not be reached keeps the key until its TTL ends. Release
// waits for every node until ctx ends: give it a deadline, so that a
// master that hangs does not hold it up.
func (l *Lock) Release(ctx context.Context) error {
	replies := l.s.onNodes(ctx, 0, func(ctx context.Context, c redis.Conn) (bool, error) {
		n, err := redis.Int(recipe.Eval(ctx, c, releaseScript, l.key, l.token))
		return n == 1, err
	})
	t := count(replies)
	switch {
	case t.done > 0:
		return nil
	case t.answered < len(replies):
		return opError("release", l.key, t.err())
	}
	return opError("release", l.key, strategy.ErrNotHeld)
}

// Refresh extends the lock to ttl from now, as the acquire took it: a Lua
// compare-and-PEXPIRE on every node at once, which extends only keys that
// still hold the lock's token. It succeeds when a quorum of nodes extended
// it and the new validity (ttl, less the time the refresh took, less the
// drift allowance) is positive; Validity then counts from it. A lock whose
// validity has already ended is not refreshed: Refresh returns an error
// matching strategy.ErrNotHeld without sending anything, as it does when
// too few nodes still held the token. When no node could be reached it
// returns their errors. ttl must exceed the drift allowance, or the error
// matches strategy.ErrInvalidTTL. A failed Refresh leaves extended the
// nodes it extended; Release deletes them. Like Release, Refresh waits for
// every node until ctx ends; a slow master costs it validity, and a
// refresh slower than its new validity fails.
func (l *Lock) Refresh(ctx context.Context, ttl time.Duration) error {
	if ttl < time.Millisecond {
		return fmt.Errorf("%s: refresh %q: %w: %v is below 1ms, the smallest TTL Redis can express",
			name, l.key, strategy.ErrInvalidTTL, ttl)
	}
	s := l.s
	ttl = ttl.Truncate(time.Millisecond)
	drift := s.cfg.drift(ttl)
	if ttl <= drift {
		return fmt.Errorf("%s: refresh %q: %w: a TTL of %v leaves no validity after the clock drift allowance of %v",
			name, l.key, strategy.ErrInvalidTTL, ttl, drift)
	}
	start := s.cfg.clock.Now()
	l.mu.Lock()
	until := l.until
	l.mu.Unlock()
	if !start.Before(until) {
		return opError("refresh", l.key, fmt.Errorf("%w: its validity ended %v ago", strategy.ErrNotHeld, start.Sub(until)))
	}
	replies := s.onNodes(ctx, 0, func(ctx context.Context, c redis.Conn) (bool, error) {
		n, err := redis.Int(recipe.Eval(ctx, c, refreshScript, l.key, l.token, ttl.Milliseconds()))
		return n == 1, err
	})
	end := s.cfg.clock.Now()
	newUntil := start.Add(ttl - drift)
	t := count(replies)
	if t.done >= s.quorum && end.Before(newUntil) {
		l.mu.Lock()
		l.until = newUntil
		l.mu.Unlock()
		return nil
	}
	if t.answered == 0 {
		return opError("refresh", l.key, t.err())
	}
	why := fmt.Errorf("%w: extended on %d of %d nodes, quorum %d", strategy.ErrNotHeld, t.done, len(s.nodes), s.quorum)
	if t.done >= s.quorum {
		why = fmt.Errorf("%w: the refresh took %v of the %v TTL, which leaves no validity after the %v drift allowance",
			strategy.ErrNotHeld, end.Sub(start), ttl, drift)
	}
	if err := t.err(); err != nil {
		why = fmt.Errorf("%w; %w", why, err)
	}
	return opError("refresh", l.key, why)
}

// reply is what one node did with one command.
type reply struct {
	done bool  // it locked, deleted or extended
	err  error // nil when it answered
	late bool  // err is the node timeout's, while the caller's ctx lives
}

// onNodes runs op on every node at once, each on a connection of its own
// and bounded by timeout unless it is 0, and returns their replies in the
// order of the nodes once all have returned.
func (s *Strategy) onNodes(ctx context.Context, timeout time.Duration, op func(context.Context, redis.Conn) (bool, error)) []reply {
	replies := make([]reply, len(s.nodes))
	var wg sync.WaitGroup
	for i, p := range s.nodes {
		wg.Go(func() {
			nctx, own := ctx, false
			var deadline time.Time
			if timeout > 0 {
				deadline = time.Now().Add(timeout)
				dl, ok := ctx.Deadline()
				own = !ok || dl.After(deadline) // the node timeout comes first
				var cancel context.CancelFunc
				nctx, cancel = context.WithDeadline(ctx, deadline)
				defer cancel()
			}
			// A failure at or after the node timeout, the caller's ctx
			// still alive. redigo's read deadline may fire a moment before
			// the context's timer: compare the times, not ctx.Err.
			late := func() bool { return own && !time.Now().Before(deadline) && ctx.Err() == nil }
			c, err := p.GetContext(nctx)
			if err != nil {
				replies[i] = reply{err: fmt.Errorf("node %d: connect: %w", i, err), late: late()}
				return
			}
			defer c.Close()
			done, err := op(nctx, c)
			if err != nil {
				replies[i] = reply{err: fmt.Errorf("node %d: %w", i, err), late: late()}
				return
			}
			replies[i].done = done
		})
	}
	wg.Wait()
	return replies
}

// tally counts the replies of the nodes.
type tally struct {
	done, answered int
	late           int // failed for the node timeout alone
	errs           []error
}

func count(replies []reply) tally {
	var t tally
	for _, r := range replies {
		if r.err != nil {
			t.errs = append(t.errs, r.err)
			if r.late {
				t.late++
			}
			continue
		}
		t.answered++
		if r.done {
			t.done++
		}
	}
	return t
}

// err joins the errors of the nodes that did not answer, nil if all did.
func (t tally) err() error { return errors.Join(t.errs...) }

func opError(op, key string, err error) error {
	return &strategy.OpError{Strategy: name, Op: op, Key: key, Err: err}
}
