package kindmutants

import (
	"context"
	"time"

	"github.com/gomodule/redigo/redis"
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
	read := redisNow + `
if redis.call('exists', KEYS[1]) == 1 then return 0 end
` + intentGuard + `
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
` + keepReaders + `
return 1`

	selfGuard, intent, clear := "", "", `redis.call('del', KEYS[3])`
	if s.writerBlocksItself {
		selfGuard = `if redis.call('exists', KEYS[3]) == 1 then return 0 end`
	}
	if s.writersFirst {
		intent = `redis.call('set', KEYS[3], ARGV[1], 'px', ARGV[2])`
	}
	if s.intentOutlivesWrite {
		clear = ""
	}
	write := redisNow + selfGuard + `
if redis.call('exists', KEYS[1]) == 1 then return 0 end
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
if redis.call('zcard', KEYS[2]) > 0 then
	` + intent + `
	return 0
end
redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[2])
` + clear + `
return 1`

	readRelease := `return redis.call('zrem', KEYS[2], ARGV[1])`
	if s.releaseDropsReaders {
		readRelease = `return redis.call('del', KEYS[2])`
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
	readRefresh := redisNow + `
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
if not redis.call('zscore', KEYS[2], ARGV[1]) then return 0 end
` + renew + keep + `
return 1`

	return rwScripts{
		read:        redis.NewScript(3, read),
		write:       redis.NewScript(3, write),
		readRelease: redis.NewScript(3, readRelease),
		readRefresh: redis.NewScript(3, readRefresh),
		writeRelease: redis.NewScript(3, `
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0`),
		writeRefresh: redis.NewScript(3, `
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0`),
	}
}

// rw is the read-write lock on one client.
type rw struct {
	p  strategy.Pool
	sc rwScripts
}

var (
	_ strategy.Shared = (*rw)(nil)
	_ strategy.Keyed  = (*rw)(nil)
)

func newRW(c locktest.Client, s slip) (strategy.Strategy, error) {
	return &rw{p: c.Pool, sc: rwScriptsOf(s)}, nil
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
	return l.acquire(ctx, key, ttl, l.sc.write, l.sc.writeRelease, l.sc.writeRefresh)
}

// TryAcquireShared takes the lock to read.
func (l *rw) TryAcquireShared(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return l.acquire(ctx, key, ttl, l.sc.read, l.sc.readRelease, l.sc.readRefresh)
}

func (l *rw) acquire(ctx context.Context, key string, ttl time.Duration, acquire, release, refresh *redis.Script) (strategy.Lock, error) {
	if err := checkTTL(ttl); err != nil {
		return nil, err
	}
	h := &rwHold{rw: l, key: key, token: token(), release: release, refresh: refresh}
	n, err := eval(ctx, l.p, acquire, append(l.keys(key), h.token, ms(ttl))...)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, strategy.ErrNotAcquired
	}
	return h, nil
}

// rwHold is one read or write hold.
type rwHold struct {
	*rw
	key, token       string
	release, refresh *redis.Script
}

var _ strategy.Refresher = (*rwHold)(nil)

func (h *rwHold) Key() string { return h.key }

func (h *rwHold) Release(ctx context.Context) error {
	n, err := eval(ctx, h.p, h.release, append(h.keys(h.key), h.token)...)
	if err == nil && n == 0 {
		err = strategy.ErrNotHeld
	}
	return err
}

func (h *rwHold) Refresh(ctx context.Context, ttl time.Duration) error {
	if err := checkTTL(ttl); err != nil {
		return err
	}
	n, err := eval(ctx, h.p, h.refresh, append(h.keys(h.key), h.token, ms(ttl))...)
	if err == nil && n == 0 {
		err = strategy.ErrNotHeld
	}
	return err
}
