package locktest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// prefixLock is a correct token lock kept at prefix + key, the way a
// library with a key prefix keeps it; with probe, the first attempt of
// each instance first writes a key of its own, outside the lock's, as
// Symfony's RedisStore probes the server once.
type prefixLock struct {
	p      strategy.Pool
	prefix string
	probe  string
	probed *bool
}

func (s prefixLock) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	c, err := s.p.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if s.probe != "" && !*s.probed {
		*s.probed = true
		if _, err := c.Do("SET", s.probe, "1", "PX", 1); err != nil {
			return nil, err
		}
	}
	token := fmt.Sprint(time.Now().UnixNano())
	if _, err := redis.String(c.Do("SET", s.prefix+key, token, "NX", "PX", ttl.Milliseconds())); err == redis.ErrNil {
		return nil, strategy.ErrNotAcquired
	} else if err != nil {
		return nil, err
	}
	return &secondsHeld{s.p, s.prefix + key, token}, nil
}

// keyedPrefix is prefixLock that names its key (strategy.Keyed).
type keyedPrefix struct{ prefixLock }

func (s keyedPrefix) Keys(key string) []string { return []string{s.prefix + key} }

// TestUndeclaredKeys: a lock kept under a key the suite does not read
// gets no verdict where the verdict would rest on K, with a message that
// names the key it wrote; where the verdict read nothing at K it keeps
// it, with the same message as a note. Declared with strategy.Keyed, the
// same lock holds.
func TestUndeclaredKeys(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Shared(t)
	bare := func(c locktest.Client) (strategy.Strategy, error) { return prefixLock{p: c.Pool, prefix: "app:"}, nil }
	cfg := locktest.Config{Addr: srv.Addr, New: bare, Key: redistest.Key(t)}
	const said = "the lock wrote app:K, not K: declare its keys (strategy.Keyed in Go, keys= on an -exec program's ready line; docs/your-own-lock.md)"

	res := locktest.Check(ctx, cfg, locktest.SafeRelease)
	require.Error(t, res.Err)
	assert.Equal(t, locktest.NoVerdict, res.Verdict)
	assert.Equal(t, said, res.Err.Error())
	assert.Contains(t, commands(res.Timeline), "SET app:"+res.Key, "the timeline shows the commands that wrote it")

	res = locktest.Check(ctx, cfg, locktest.HolderOverrun)
	require.NoError(t, res.Err)
	assert.Equal(t, locktest.Breaks, res.Verdict, "two holders inside: the detector's verdict, which reads nothing at K")
	require.Len(t, res.Notes, 1)
	assert.Equal(t, said, res.Notes[0].String())

	cfg.New = func(c locktest.Client) (strategy.Strategy, error) {
		return keyedPrefix{prefixLock{p: c.Pool, prefix: "app:"}}, nil
	}
	cfg.Key += ":keyed" // the checks above leave their locks to expire
	res = locktest.Check(ctx, cfg, locktest.SafeRelease)
	require.NoError(t, res.Err)
	assert.Equal(t, locktest.Holds, res.Verdict, res.Reason())
	assert.Empty(t, res.Notes)
}

// TestProbeKey: a key written besides K, once per instance, is named in a
// note of every verdict, never judged; the note survives JSON. Beside a
// lock kept under a key it did not declare, the probe is still only
// named.
func TestProbeKey(t *testing.T) {
	ctx := context.Background()
	probe := "locktest-probe:" + fmt.Sprint(time.Now().UnixNano())
	newLock := func(c locktest.Client) (strategy.Strategy, error) {
		return prefixLock{p: c.Pool, probe: probe, probed: new(bool)}, nil
	}
	cfg := locktest.Config{Addr: redistest.Shared(t).Addr, New: newLock, Key: redistest.Key(t)}
	res := locktest.Check(ctx, cfg, locktest.SafeRelease)
	require.NoError(t, res.Err)
	assert.Equal(t, locktest.Holds, res.Verdict, res.Reason())
	require.Len(t, res.Notes, 1)
	assert.Equal(t, "the lock also wrote "+probe+", outside its own keys: named here, judged on nothing", res.Notes[0].String())

	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"notes":["the lock also wrote `+probe)
	var back locktest.Result
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, res.Notes, back.Notes)

	// Under a prefix of its own as well, without Keyed: the key with K in
	// its name is where the lock lives, the probe still beside it.
	cfg.New = func(c locktest.Client) (strategy.Strategy, error) {
		return prefixLock{p: c.Pool, prefix: "app:", probe: probe, probed: new(bool)}, nil
	}
	cfg.Key += ":prefixed"
	res = locktest.Check(ctx, cfg, locktest.SafeRelease)
	require.Error(t, res.Err)
	assert.Equal(t, "the lock wrote app:K, not K: declare its keys (strategy.Keyed in Go, keys= on an -exec program's ready line; docs/your-own-lock.md)", res.Err.Error())
	require.Len(t, res.Notes, 1)
	assert.Equal(t, "keys.outside", res.Notes[0].ID)
}

// tallyLock is prefixLock at K that also counts each client's acquires
// in a key beside K named after the client, {K}:acquires:<client>.
type tallyLock struct {
	prefixLock
	client string
}

func (s tallyLock) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	c, err := s.p.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	_, err = c.Do("INCR", "{"+key+"}:acquires:"+s.client)
	c.Close()
	if err != nil {
		return nil, err
	}
	return s.prefixLock.TryAcquire(ctx, key, ttl)
}

// sideTally is tallyLock with its keys declared.
type sideTally struct{ tallyLock }

func (s sideTally) SideKeys(key string) []string { return []string{"{" + key + "}:acquires:*"} }

// TestSideKeys: keys a lock writes beside K, named as it goes, are named
// in a note until the strategy declares them (strategy.SideKeyed, a *
// standing for the client's name): then they are the lock's own, and the
// verdict, which reads K alone, is the same.
func TestSideKeys(t *testing.T) {
	ctx := context.Background()
	cfg := locktest.Config{Addr: redistest.Shared(t).Addr, Key: redistest.Key(t), New: func(c locktest.Client) (strategy.Strategy, error) {
		return tallyLock{prefixLock: prefixLock{p: c.Pool}, client: c.Name}, nil
	}}
	res := locktest.Check(ctx, cfg, locktest.SafeRelease)
	require.NoError(t, res.Err)
	assert.Equal(t, locktest.Holds, res.Verdict, res.Reason())
	require.Len(t, res.Notes, 1)
	assert.Equal(t, "keys.outside", res.Notes[0].ID)
	assert.Contains(t, res.Notes[0].String(), "{K}:acquires:A")

	cfg.Key += ":declared"
	cfg.New = func(c locktest.Client) (strategy.Strategy, error) {
		return sideTally{tallyLock{prefixLock: prefixLock{p: c.Pool}, client: c.Name}}, nil
	}
	res = locktest.Check(ctx, cfg, locktest.SafeRelease)
	require.NoError(t, res.Err)
	assert.Equal(t, locktest.Holds, res.Verdict, res.Reason())
	assert.Empty(t, res.Notes)
}

// TestWrittenKeys: the keys a command writes, by position.
func TestWrittenKeys(t *testing.T) {
	for cmd, want := range map[string][]int{
		"SET k v NX PX 10":        {1},
		"GET k":                   nil,
		"DEL a b":                 {1, 2},
		"MSET a 1 b 2":            {1, 3},
		"PEXPIRE k 10":            {1},
		"GETEX k":                 nil,
		"GETEX k PX 10":           {1},
		"EVALSHA d 2 a b t 10":    {3, 4},
		"EVAL s 0 t":              nil,
		"EVAL_RO s 1 k":           nil,
		"FCALL f 1 k v":           {3},
		"EVAL s x k":              nil,
		"ZADD k 1 m":              {1},
		"HSET k f v":              {1},
		"RENAME a b":              {1, 2},
		"INCR counter":            {1},
		"CLIENT TRACKING on":      nil,
		"EVALSHA d 3 a b":         nil, // fewer keys than it says: none
		"SETNX symfony_check 1":   {1},
		"PSETEX k 10 v":           {1},
		"HINCRBY k f 1":           {1},
		"ZREMRANGEBYSCORE k 0 10": {1},
	} {
		assert.Equal(t, want, locktest.WrittenKeys(cmd), cmd)
	}
}
