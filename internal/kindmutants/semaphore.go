package kindmutants

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
	mutex "github.com/locklab/locklab/internal/mutants"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
)

// permits is how many permits the corpus's semaphores have.
const permits = 2

// The semaphore's scripts take KEYS[1] K; ARGV[1] the permits N, ARGV[2]
// the permits n of the hold, ARGV[3] its id, ARGV[4] its TTL in
// milliseconds and, when leases are scored by the client's clock,
// ARGV[5] the client's now in Unix milliseconds. A hold's members are
// <id>_0 … <id>_n-1, scored by the expiry of its lease.

// semScripts are one semaphore's scripts, made with its slips.
type semScripts struct{ acquire, release, refresh, count, add, lease, park *redis.Script }

func semScriptsOf(s slip) semScripts {
	now := redisNow
	if s.clientClock {
		now = `local now = tonumber(ARGV[5])`
	}
	keep := `redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[4])))`
	if s.expiryOutright {
		keep = `redis.call('pexpire', KEYS[1], ARGV[4])`
	}
	addAt := func(score string) string {
		return `
for i = 0, tonumber(ARGV[2]) - 1 do
	redis.call('zadd', KEYS[1], ` + score + `, ARGV[3] .. '_' .. i)
end
` + keep + `
return 1`
	}
	add := addAt(`now + tonumber(ARGV[4])`)
	join := add
	if s.joinThenLease {
		join = addAt(`'inf'`)
	}
	// The halves of the acquire and the release that the slips split
	// out: the lease set after the join, the park before the removal.
	each := func(cmd string) string {
		return `
for i = 0, tonumber(ARGV[2]) - 1 do
	redis.call('zadd', KEYS[1], 'xx', ` + cmd + `, ARGV[3] .. '_' .. i)
end
return 1`
	}
	release := `
local n = 0
for i = 0, tonumber(ARGV[2]) - 1 do
	n = n + redis.call('zrem', KEYS[1], ARGV[3] .. '_' .. i)
end
return n`
	if s.releaseAny {
		release = `return #redis.call('zpopmin', KEYS[1], ARGV[2]) / 2`
	}
	first := ""
	if s.expireFirst {
		first = `redis.call('pexpire', KEYS[1], ARGV[4])`
	}
	held := `if not redis.call('zscore', KEYS[1], ARGV[3] .. '_0') then return 0 end`
	if s.refreshReAdds {
		held = ""
	}
	return semScripts{
		acquire: redis.NewScript(1, now+`
redis.call('zremrangebyscore', KEYS[1], '-inf', now)
`+first+`
if redis.call('zcard', KEYS[1]) + tonumber(ARGV[2]) > tonumber(ARGV[1]) then return 0 end
`+join),
		refresh: redis.NewScript(1, now+`
redis.call('zremrangebyscore', KEYS[1], '-inf', now)
`+held+add),
		release: redis.NewScript(1, release),
		// The count-then-add slip's two halves of the acquire.
		count: redis.NewScript(1, now+`
redis.call('zremrangebyscore', KEYS[1], '-inf', now)
return redis.call('zcard', KEYS[1])`),
		add:   redis.NewScript(1, now+add),
		lease: redis.NewScript(1, now+each(`now + tonumber(ARGV[4])`)),
		park:  redis.NewScript(1, each(`'inf'`)),
	}
}

// semaphore is the semaphore on one client.
type semaphore struct {
	p     strategy.Pool
	clock strategy.Clock
	sc    semScripts
	slip  slip
}

var _ strategy.Weighted = (*semaphore)(nil)

func newSemaphore(c locktest.Client, s slip) (strategy.Strategy, error) {
	return &semaphore{p: c.Pool, clock: c.Clock, sc: semScriptsOf(s), slip: s}, nil
}

// Permits returns N.
func (s *semaphore) Permits() int { return permits }

// TryAcquire takes one permit.
func (s *semaphore) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.TryAcquireN(ctx, key, 1, ttl)
}

// TryAcquireN takes n permits, in one script (or, with the slip, one
// script per permit).
func (s *semaphore) TryAcquireN(ctx context.Context, key string, n int, ttl time.Duration) (strategy.Lock, error) {
	if err := checkTTL(ttl); err != nil {
		return nil, err
	}
	if n < 1 || n > permits {
		return nil, fmt.Errorf("kindmutants: %d of %d permits", n, permits)
	}
	l := &permitsHeld{s: s, key: key}
	parts, per := 1, n
	if s.slip.acquireNSingles || s.slip.givesBack {
		parts, per = n, 1
	}
	for range parts {
		h := hold{id: token(), n: per}
		ok, err := s.acquireOne(ctx, key, h, ttl)
		if err != nil {
			return nil, err
		}
		if ok == 0 {
			if s.slip.givesBack && len(l.holds) > 0 {
				// The slip: what it took goes back, so nothing is kept;
				// but another acquire meanwhile met those permits taken.
				if err := l.Release(ctx); err != nil {
					return nil, err
				}
			}
			return nil, strategy.ErrNotAcquired
		}
		l.holds = append(l.holds, h)
	}
	if s.slip.watchdog {
		l.stop = l.lease.Watch(ttl, l.extend, !s.slip.watchdogOutlives)
	}
	return l, nil
}

// acquireOne takes h's permits in one script, or, with the count-then-add
// slip, counts in one and adds in another: 1 when they were taken.
func (s *semaphore) acquireOne(ctx context.Context, key string, h hold, ttl time.Duration) (int, error) {
	if s.slip.joinThenLease {
		ok, err := s.run(ctx, s.sc.acquire, key, h, ttl)
		if err != nil || ok == 0 {
			return ok, err
		}
		return s.run(ctx, s.sc.lease, key, h, ttl)
	}
	if !s.slip.countThenAdd {
		return s.run(ctx, s.sc.acquire, key, h, ttl)
	}
	held, err := s.run(ctx, s.sc.count, key, h, ttl)
	if err != nil || held+h.n > permits {
		return 0, err
	}
	return s.run(ctx, s.sc.add, key, h, ttl)
}

// run runs sc for h with its arguments.
func (s *semaphore) run(ctx context.Context, sc *redis.Script, key string, h hold, ttl time.Duration) (int, error) {
	args := []any{key, permits, h.n, h.id, ms(ttl)}
	if s.slip.clientClock {
		args = append(args, strconv.FormatInt(s.clock.Now().UnixMilli(), 10))
	}
	return eval(ctx, s.p, sc, args...)
}

// hold is n permits under one id.
type hold struct {
	id string
	n  int
}

// permitsHeld is a holder's permits.
type permitsHeld struct {
	s     *semaphore
	key   string
	holds []hold
	stop  func() // stops the holder's watchdog, with the policy that has one
	lease mutex.Lease
}

var _ strategy.Refresher = (*permitsHeld)(nil)

func (l *permitsHeld) Key() string { return l.key }

// Release removes the holder's members; ErrNotHeld when none was left.
func (l *permitsHeld) Release(ctx context.Context) error {
	if l.stop != nil {
		l.stop()
	}
	removed := 0
	for _, h := range l.holds {
		if l.s.slip.parkThenRemove {
			if _, err := l.s.run(ctx, l.s.sc.park, l.key, h, time.Millisecond); err != nil {
				return err
			}
		}
		n, err := l.s.run(ctx, l.s.sc.release, l.key, h, time.Millisecond)
		switch {
		case err != nil && l.s.slip.releaseSwallows:
			return nil // the slip: the error is dropped
		case err != nil:
			return err
		}
		removed += n
	}
	if removed == 0 {
		return strategy.ErrNotHeld
	}
	return nil
}

// Refresh scores the holder's members again; ErrNotHeld when they are
// gone.
func (l *permitsHeld) Refresh(ctx context.Context, ttl time.Duration) error {
	return l.lease.Asked(ctx, ttl, l.extend)
}

// extend runs the refresh script with ttl for each of the holder's holds.
func (l *permitsHeld) extend(ctx context.Context, ttl time.Duration) error {
	if err := checkTTL(ttl); err != nil {
		return err
	}
	for _, h := range l.holds {
		n, err := l.s.run(ctx, l.s.sc.refresh, l.key, h, ttl)
		if err != nil {
			return err
		}
		if n == 0 {
			return strategy.ErrNotHeld
		}
	}
	return nil
}
