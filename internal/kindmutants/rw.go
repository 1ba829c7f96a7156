package kindmutants

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	mutex "github.com/locklab/locklab/internal/mutants"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
)

// The read-write lock's scripts take KEYS[1] K (the writer), KEYS[2]
// K:readers, KEYS[3] K:intent; ARGV[1] the holder's token, ARGV[2] its
// TTL in milliseconds. Each returns 1 for done, 0 for refused or not
// held.

// rwScripts are one lock's scripts, made with its slips.
type rwScripts struct {
	read, write, readRelease, readRefresh, writeRelease, writeRefresh *redis.Script
	// readLease and readPark, with the slips that split them out, run
	// after read and before readRelease: nil otherwise.
	readLease, readPark *redis.Script
}

// keepReaders is Lua that makes K:readers live at least the TTL, never
// less than it has left.
const keepReaders = `
redis.call('pexpire', KEYS[2], math.max(redis.call('pttl', KEYS[2]), tonumber(ARGV[2])))
`

func rwScriptsOf(s slip) rwScripts {
	intentGuard := ""
	if s.writersFirst {
		intentGuard = `if redis.call('exists', KEYS[3]) == 1 then return 0 end`
	}
	lease := `redis.call('zadd', KEYS[2], 'xx', now + tonumber(ARGV[2]), ARGV[1])
` + keepReaders
	join := `redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
` + keepReaders
	if s.joinThenLease {
		join = `redis.call('zadd', KEYS[2], 'inf', ARGV[1])`
	}
	writer := `if redis.call('exists', KEYS[1]) == 1 then return 0 end`
	if s.reentrant {
		// A holder's own write lock (its id at K, ARGV[3]) lets it read.
		writer = `local w = redis.call('get', KEYS[1])
if w and w ~= ARGV[3] then return 0 end`
	}
	read := redisNow + `
` + writer + `
` + intentGuard + `
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
` + join + `
return 1`

	selfGuard, intent, clear := "", "", `redis.call('del', KEYS[3])`
	capReaders := ""
	if s.writerCapsReaders {
		capReaders = `
	redis.call('pexpire', KEYS[2], ARGV[2])`
	}
	if s.writerBlocksItself {
		selfGuard = `if redis.call('exists', KEYS[3]) == 1 then return 0 end`
	}
	if s.writersFirst {
		intent = `redis.call('set', KEYS[3], ARGV[1], 'px', math.min(tonumber(ARGV[2]), ` + fmt.Sprint(ms(writerIntent)) + `))`
	}
	if s.writersFirst && s.undeclared {
		// As rwlua's: an intent of its own length, whatever the attempt's
		// TTL, longer than the suite's slack.
		intent = `redis.call('set', KEYS[3], ARGV[1], 'px', ` + fmt.Sprint(ms(undeclaredIntent)) + `)`
	}
	if s.intentNeverExpires {
		intent = `redis.call('set', KEYS[3], ARGV[1])`
	}
	if s.intentOutlivesWrite {
		clear = ""
	}
	write := redisNow + selfGuard + `
if redis.call('exists', KEYS[1]) == 1 then return 0 end
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
if redis.call('zcard', KEYS[2]) > 0 then
	` + intent + capReaders + `
	return 0
end
redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[2])
` + clear + `
return 1`

	readRelease := `return redis.call('zrem', KEYS[2], ARGV[1])`
	switch {
	case s.releaseDropsReaders:
		readRelease = `return redis.call('del', KEYS[2])`
	case s.lastReaderDels:
		readRelease = `
local n = redis.call('zrem', KEYS[2], ARGV[1])
if redis.call('zcard', KEYS[2]) == 0 then redis.call('del', KEYS[1]) end
return n`
	}

	renew := `redis.call('zadd', KEYS[2], 'xx', now + tonumber(ARGV[2]), ARGV[1])`
	if s.refreshRenewsAll {
		// Every other reader's lease is pushed on, never cut.
		renew = `for _, m in ipairs(redis.call('zrange', KEYS[2], 0, -1)) do
	redis.call('zadd', KEYS[2], 'xx', 'gt', now + tonumber(ARGV[2]), m)
end
` + renew
	}
	keep := keepReaders
	if s.refreshCutsReaders {
		keep = `redis.call('pexpire', KEYS[2], ARGV[2])`
	}
	held := `if not redis.call('zscore', KEYS[2], ARGV[1]) then return 0 end`
	if s.refreshReAdds {
		held, renew = "", `redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])`
	}
	readRefresh := redisNow + `
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
` + held + `
` + renew + keep + `
return 1`

	var sc rwScripts
	if s.joinThenLease {
		sc.readLease = redis.NewScript(3, redisNow+lease+`return 1`)
	}
	if s.parkThenRemove {
		sc.readPark = redis.NewScript(3, `redis.call('zadd', KEYS[2], 'xx', 'inf', ARGV[1]) return 1`)
	}
	sc.read, sc.write = redis.NewScript(3, read), redis.NewScript(3, write)
	sc.readRelease, sc.readRefresh = redis.NewScript(3, readRelease), redis.NewScript(3, readRefresh)
	sc.writeRelease = redis.NewScript(3, `
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0`)
	sc.writeRefresh = redis.NewScript(3, `
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0`)
	return sc
}

// rw is the read-write lock on one client.
type rw struct {
	p  strategy.Pool
	sc rwScripts
	s  slip
}

var (
	_ strategy.Shared = (*rw)(nil)
	_ strategy.Keyed  = (*rw)(nil)
)

func newRW(c locktest.Client, s slip) (strategy.Strategy, error) {
	l := &rw{p: c.Pool, sc: rwScriptsOf(s), s: s}
	switch {
	case s.reentrant:
		return rwReentrant{l}, nil
	case s.writersFirst && !s.undeclared:
		return rwWritersFirst{l}, nil
	}
	return l, nil
}

// writerIntent is the longest a write attempt that finds readers keeps
// new readers out of a lock whose waiting writers go first: its own TTL,
// up to the suite's longest.
const writerIntent = 5 * time.Second

// undeclaredIntent is the intent of the writers-first lock that does not
// declare it: a write attempt that finds readers keeps new ones out for
// that long, whatever its TTL.
const undeclaredIntent = time.Second

// rwWritersFirst is the read-write lock whose waiting writers go first:
// a write attempt that finds readers keeps new ones out for its TTL (up
// to writerIntent), or until a writer gets in.
type rwWritersFirst struct{ *rw }

var _ strategy.WriterFirst = rwWritersFirst{}

// WriterIntent returns how long a write attempt may keep readers out.
func (rwWritersFirst) WriterIntent() time.Duration { return writerIntent }

// rwReentrant is the read-write lock whose holders may read while they
// write.
type rwReentrant struct{ *rw }

var _ strategy.Reentrant = rwReentrant{}

// Reentrant returns a new holder.
func (l rwReentrant) Reentrant() strategy.Shared { return &rwHolder{rw: l.rw, id: token()} }

// rwHolder is one holder of a rwReentrant.
type rwHolder struct {
	*rw
	id string
}

// TryAcquire takes the lock to write, as the holder.
func (h *rwHolder) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return h.acquire(ctx, key, ttl, true, h.id)
}

// TryAcquireShared takes the lock to read, as the holder: its own write
// lock lets it in.
func (h *rwHolder) TryAcquireShared(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return h.acquire(ctx, key, ttl, false, h.id)
}

// Keys returns the writer's key, the readers' set and a waiting writer's
// intent.
func (l *rw) Keys(key string) []string { return []string{key, key + ":readers", key + ":intent"} }

func (l *rw) keys(key string) []any {
	var out []any
	for _, k := range l.Keys(key) {
		out = append(out, k)
	}
	return out
}

// TryAcquire takes the lock to write.
func (l *rw) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return l.acquire(ctx, key, ttl, true, "")
}

// TryAcquireShared takes the lock to read.
func (l *rw) TryAcquireShared(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return l.acquire(ctx, key, ttl, false, "")
}

// acquire takes the lock to write or to read, for holder when it is not
// "" (rwHolder): its write lock is its id at K, and its reads pass it.
func (l *rw) acquire(ctx context.Context, key string, ttl time.Duration, write bool, holder string) (strategy.Lock, error) {
	if err := checkTTL(ttl); err != nil {
		return nil, err
	}
	acquire, release, refresh := l.sc.read, l.sc.readRelease, l.sc.readRefresh
	if write {
		acquire, release, refresh = l.sc.write, l.sc.writeRelease, l.sc.writeRefresh
	}
	h := &rwHold{rw: l, key: key, token: token(), release: release, refresh: refresh}
	if write && holder != "" {
		h.token = holder
	}
	args := append(l.keys(key), h.token, ms(ttl))
	if !write && holder != "" {
		args = append(args, holder)
	}
	n, err := eval(ctx, l.p, acquire, args...)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, strategy.ErrNotAcquired
	}
	if acquire == l.sc.read && l.sc.readLease != nil {
		if _, err := eval(ctx, l.p, l.sc.readLease, append(l.keys(key), h.token, ms(ttl))...); err != nil {
			return nil, err
		}
	}
	if release == l.sc.readRelease {
		h.park = l.sc.readPark
	}
	if l.s.watchdog {
		h.stop = h.lease.Watch(ttl, h.extend, !l.s.watchdogOutlives)
	}
	return h, nil
}

// rwHold is one read or write hold.
type rwHold struct {
	*rw
	key, token       string
	release, refresh *redis.Script
	park             *redis.Script // run before release, with the slip that parks a reader
	stop             func()        // stops the hold's watchdog, with the policy that has one
	lease            mutex.Lease
}

var _ strategy.Refresher = (*rwHold)(nil)

func (h *rwHold) Key() string { return h.key }

func (h *rwHold) Release(ctx context.Context) error {
	if h.stop != nil {
		h.stop()
	}
	if h.park != nil {
		if _, err := eval(ctx, h.p, h.park, append(h.keys(h.key), h.token)...); err != nil {
			return err
		}
	}
	n, err := eval(ctx, h.p, h.release, append(h.keys(h.key), h.token)...)
	switch {
	case err != nil && h.s.releaseSwallows:
		return nil // the slip: the error is dropped
	case err == nil && n == 0:
		err = strategy.ErrNotHeld
	}
	return err
}

func (h *rwHold) Refresh(ctx context.Context, ttl time.Duration) error {
	return h.lease.Asked(ctx, ttl, h.extend)
}

// extend runs the refresh script with ttl.
func (h *rwHold) extend(ctx context.Context, ttl time.Duration) error {
	if err := checkTTL(ttl); err != nil {
		return err
	}
	n, err := eval(ctx, h.p, h.refresh, append(h.keys(h.key), h.token, ms(ttl))...)
	if err == nil && n == 0 {
		err = strategy.ErrNotHeld
	}
	return err
}
