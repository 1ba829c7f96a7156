package explore

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/judge"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flagRW is a read-write lock that lets waiting writers in first: a
// write attempt that finds the lock held raises the flag K:intent, which
// keeps new readers out until a writer gets in, or until it expires after
// intent; with intent 0 it never expires (a writer that gives up keeps
// readers out for good), whatever WriterIntent says.
type flagRW struct {
	pool   strategy.Pool
	intent time.Duration // the flag's TTL; 0: none
	said   time.Duration // WriterIntent
}

var (
	// KEYS: K (the writer), K:readers, K:intent; ARGV: token, TTL, the
	// flag's TTL (0: none).
	flagWrite = redis.NewScript(3, `
local t = redis.call('TIME')
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', t[1] * 1000 + math.floor(t[2] / 1000))
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('ZCARD', KEYS[2]) > 0 then
	if ARGV[3] == '0' then redis.call('SET', KEYS[3], 1) else redis.call('SET', KEYS[3], 1, 'PX', ARGV[3]) end
	return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[3])
return 1`)
	flagRead = redis.NewScript(3, `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('ZADD', KEYS[2], now + ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2], 'GT')
if redis.call('PTTL', KEYS[2]) < 0 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1`)
	flagRelease = redis.NewScript(3, `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return redis.call('ZREM', KEYS[2], ARGV[1])`)
)

var tokens atomic.Int64

func (s flagRW) try(ctx context.Context, sc *redis.Script, key string, ttl time.Duration) (strategy.Lock, error) {
	conn, err := s.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	tok := fmt.Sprint(tokens.Add(1))
	n, err := redis.Int(sc.DoContext(ctx, conn, key, key+":readers", key+":intent", tok, ttl.Milliseconds(), s.intent.Milliseconds()))
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, strategy.ErrNotAcquired
	}
	return flagHold{s.pool, key, tok}, nil
}

func (s flagRW) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.try(ctx, flagWrite, key, ttl)
}

func (s flagRW) TryAcquireShared(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.try(ctx, flagRead, key, ttl)
}

func (s flagRW) WriterIntent() time.Duration { return s.said }

type flagHold struct {
	pool     strategy.Pool
	key, tok string
}

func (h flagHold) Key() string { return h.key }

func (h flagHold) Release(ctx context.Context) error {
	conn, err := h.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	n, err := redis.Int(flagRelease.DoContext(ctx, conn, h.key, h.key+":readers", h.key+":intent", h.tok))
	if err == nil && n == 0 {
		err = strategy.ErrNotHeld
	}
	return err
}

// TestReaderOutwaitsWriterIntent: a reader's acquire, on a lock that lets
// waiting writers in first, keeps trying past the writer intent the lock
// declares, which the judge grants every write attempt that was refused:
// an intent that outlives a writer who gave up shows as a lock that stays
// taken, and one that expires as declared lets the reader in. Before, a
// reader gave up a TTL and three Short TTLs after it began, inside the
// intent, and the judge could prove nothing.
func TestReaderOutwaitsWriterIntent(t *testing.T) {
	const intent = 300 * time.Millisecond
	lock := Lock{Kind: strategy.ReadWrite, Shared: true, WriterIntent: intent, Short: 60 * time.Millisecond,
		Slack: 500 * time.Millisecond, Long: 5 * time.Second, Poll: 5 * time.Millisecond}
	var read *Op
	short := 0
	for seed := int64(1); seed <= 50; seed++ {
		for _, c := range Draw(seed, lock, Knobs{}).Clients {
			for _, op := range c.Ops {
				if op.Kind == Acquire && op.Mode == history.Shared {
					if op.For < op.TTL+3*lock.Short+intent {
						short++
					}
					if read == nil && op.TTL == lock.Short {
						read = &op
					}
				}
			}
		}
	}
	require.NotNil(t, read, "a reader's acquire is drawn")
	assert.Zero(t, short, "readers that give up inside the writer intent")

	ctx := context.Background()
	srv := redistest.Shared(t)
	pool := srv.NewPool()
	t.Cleanup(func() { pool.Close() })
	// A and B read; B leaves first and tries to write while A reads, and
	// gives up: its intent is raised. A leaves, and comes back to read.
	plan := Plan{Seed: 1, Clients: []Script{
		{Name: "A", Ops: []Op{
			{Kind: Acquire, Mode: history.Shared, N: 1, TTL: lock.Short, For: lock.Short},
			{Kind: Work, For: 40 * time.Millisecond}, {Kind: Release}, *read,
		}},
		{Name: "B", Ops: []Op{
			{Kind: Acquire, Mode: history.Shared, N: 1, TTL: lock.Short, For: lock.Short},
			{Kind: Work, For: 10 * time.Millisecond}, {Kind: Release},
			{Kind: Try, Mode: history.Exclusive, N: 1, TTL: lock.Short},
		}},
	}, Sched: Schedule{Kind: PCT, Priorities: []int{1, 0}}}
	run := func(rw flagRW) harness.Outcome {
		setting := harness.Setting{Dial: harness.DialTCP(srv.Addr), Perms: &sim.Permissions{}, NoLogin: &atomic.Bool{},
			Factory: func(i sim.ClientInfo) (strategy.Strategy, error) { rw.pool = i.Pool; return rw, nil }}
		r := harness.NewRun(ctx, setting, pool, redistest.Key(t))
		defer r.Shutdown()
		out := Execute(r, plan, lock)
		require.NoError(t, out.Err)
		tl, _ := r.Rec.Timeline()
		t.Logf("%s: %s\n%s", out.Verdict, out.Message, history.Format(tl))
		return out
	}
	out := run(flagRW{said: intent}) // the flag never expires
	assert.Equal(t, judge.Breaks, out.Verdict, "an intent that outlives the one declared keeps A out")
	out = run(flagRW{intent: intent, said: intent})
	assert.Equal(t, judge.Holds, out.Verdict, "an intent that expires as declared lets A in")
}

// TestCommandsSayTheirCall: a command is recorded when its reply comes.
// One held on the way until its call gave up, and past the client's next
// call, runs and is recorded after both; it still names the call that
// sent it (history.Event.SentIn), which the judge reads to know by when
// a write attempt that gave up may have registered its intent.
func TestCommandsSayTheirCall(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Shared(t)
	pool := srv.NewPool()
	t.Cleanup(func() { pool.Close() })
	setting := harness.Setting{Dial: harness.DialTCP(srv.Addr), Perms: &sim.Permissions{}, NoLogin: &atomic.Bool{},
		Factory: func(i sim.ClientInfo) (strategy.Strategy, error) { return flagRW{pool: i.Pool}, nil }}
	r := harness.NewRun(ctx, setting, pool, redistest.Key(t))
	defer r.Shutdown()
	a := r.NewClient("A", 0)
	held, let := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	a.SetGate(func(ctx context.Context, _ string) error {
		if first.CompareAndSwap(false, true) {
			close(held)
			select {
			case <-let:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	a.SetCallTimeout(50 * time.Millisecond)
	_, err := a.TryModeErr(history.Exclusive, 1, time.Second)
	require.Error(t, err, "the write try gives up, its command held on the way")
	<-held
	a.SetCallTimeout(0)
	h, err := a.TryModeErr(history.Shared, 1, time.Second)
	require.NoError(t, err, "the read try, its command let through")
	close(let)
	time.Sleep(100 * time.Millisecond) // the held command runs
	require.NoError(t, a.ReleaseHeldErr(h))
	tl, _ := r.Rec.Timeline()
	t.Logf("%s", history.Format(tl))
	var calls []history.Event // A's lock calls, in the order they returned
	for _, e := range tl {
		if e.Client == "A" && (e.Kind == history.EvAcquired || e.Kind == history.EvNotAcquired) {
			calls = append(calls, e)
		}
	}
	require.Len(t, calls, 2)
	late := slices.IndexFunc(tl, func(e history.Event) bool {
		return e.Kind == history.EvCommand && e.At > calls[1].At && e.SentIn == calls[0].Call
	})
	require.Positive(t, late, "the write try's command, recorded after the read try returned, names the write try")
	for _, e := range tl[:late] {
		if e.Kind == history.EvCommand {
			assert.Equal(t, calls[1].Call, e.SentIn, "the read try's commands name it: %v", e)
		}
	}
}
