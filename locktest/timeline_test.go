package locktest_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// valueLock is a lock written the way locks outside the project are:
// SET key value NX PX, released by a script loaded with SCRIPT LOAD and
// called with EVALSHA. value gives each attempt's value: a random hex
// token, or the same word for everyone.
type valueLock struct {
	pool  strategy.Pool
	value func() string
	// whole sends the release script with EVAL, its body every time, and
	// after the token the time in Unix seconds with a fraction, as
	// Symfony's RedisStore does.
	whole bool
}

const releaseScript = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`

func (s valueLock) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	c, err := s.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	v := s.value()
	_, err = redis.String(c.Do("SET", key, v, "NX", "PX", ttl.Milliseconds()))
	if errors.Is(err, redis.ErrNil) {
		return nil, strategy.ErrNotAcquired
	}
	if err != nil {
		return nil, err
	}
	return &valueHeld{s: s, key: key, value: v}, nil
}

type valueHeld struct {
	s          valueLock
	key, value string
}

func (l *valueHeld) Key() string { return l.key }

func (l *valueHeld) Release(ctx context.Context) error {
	c, err := l.s.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var n int
	if l.s.whole {
		now := fmt.Sprintf("%.4f", float64(time.Now().UnixMicro())/1e6)
		n, err = redis.Int(c.Do("EVAL", releaseScript, 1, l.key, l.value, now))
	} else {
		var sha string
		sha, err = redis.String(c.Do("SCRIPT", "LOAD", releaseScript))
		if err != nil {
			return err
		}
		n, err = redis.Int(c.Do("EVALSHA", sha, 1, l.key, l.value))
	}
	if err != nil {
		return err
	}
	if n == 0 {
		return strategy.ErrNotHeld
	}
	return nil
}

func hexToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// TestTimelineTyped: the suite names the values of a timeline as it
// records them, whatever the lock's format: the key, each client's tokens
// (here hex, as a uuid's), the script's digest; the result carries the key,
// t0 and the tokens; and the diagram draws the lock as it draws luatoken.
func TestTimelineTyped(t *testing.T) {
	res := check(t, func(c locktest.Client) (strategy.Strategy, error) {
		return valueLock{pool: c.Pool, value: hexToken}, nil
	}, locktest.HolderOverrun, 0)
	require.NoError(t, res.Err)
	require.Equal(t, locktest.Breaks, res.Verdict, res.Reason())
	assert.NotEmpty(t, res.Key)
	assert.False(t, res.Start.IsZero())
	require.Len(t, res.Tokens["A"], 1)
	require.NotEmpty(t, res.Tokens["B"])

	sets, releases, failed := 0, 0, 0
	for _, e := range res.Timeline {
		// The key is typed wherever it appears, and so reads K.
		for _, a := range append(slices.Clone(e.Command), e.Reply...) {
			if a.Kind != history.ArgKey {
				assert.NotContains(t, a.Text, res.Key, "the key reads K")
			}
		}
		assert.NotContains(t, e.Err, res.Key, "the key reads K")
		if e.Msg != nil {
			assert.NotContains(t, e.Msg.String(), res.Key, "the key reads K")
		}
		if e.Kind == history.EvNotAcquired {
			failed++
		}
		if e.Kind != history.EvCommand {
			continue
		}
		require.NotEmpty(t, e.Command)
		switch strings.ToUpper(e.Command[0].Text) {
		case "SET":
			sets++
			assert.Equal(t, history.Arg{Kind: history.ArgKey, Text: res.Key}, e.Command[1])
			assert.Equal(t, history.ArgToken, e.Command[2].Kind)
			assert.Equal(t, e.Client, e.Command[2].Client, "a token is named after the client that wrote it")
			assert.Contains(t, res.Tokens[e.Client], e.Command[2].Text)
		case "SCRIPT":
			require.Len(t, e.Reply, 1)
			assert.Equal(t, history.ArgDigest, e.Reply[0].Kind)
		case "EVALSHA":
			releases++
			assert.Equal(t, history.ArgDigest, e.Command[1].Kind)
			assert.Equal(t, history.Arg{Kind: history.ArgToken, Text: res.Tokens[e.Client][len(res.Tokens[e.Client])-1], Client: e.Client}, e.Command[4])
		}
	}
	assert.Positive(t, sets)
	assert.Equal(t, 2, releases)
	assert.Positive(t, failed, "B's failed attempts are marked")

	d := report.Mermaid(res.Timeline)
	assert.Contains(t, d, "A->>Redis: SET K tokA NX PX ")
	assert.Contains(t, d, "B->>Redis: SET K tokB NX PX ")
	assert.Contains(t, d, "B->>Redis: EVALSHA ")
	assert.Contains(t, d, " 1 K tokB\n")
	assert.Contains(t, d, " 1 K tokA\n")
	assert.NotContains(t, d, res.Tokens["A"][0])
}

// TestTimelineSharedValue: a value every client writes (a fixed password)
// is no one's token: it stays text, as it is.
func TestTimelineSharedValue(t *testing.T) {
	res := check(t, func(c locktest.Client) (strategy.Strategy, error) {
		return valueLock{pool: c.Pool, value: func() string { return "open-sesame" }}, nil
	}, locktest.HolderOverrun, 0)
	require.NoError(t, res.Err)
	require.Equal(t, locktest.Breaks, res.Verdict, res.Reason())
	assert.Empty(t, res.Tokens)
	for _, e := range res.Timeline {
		if e.Kind == history.EvCommand && e.Command[0].Text == "SET" {
			assert.Equal(t, history.Arg{Kind: history.ArgText, Text: "open-sesame"}, e.Command[2])
		}
	}
	assert.Contains(t, report.Mermaid(res.Timeline), "B->>Redis: SET K open-sesame NX PX ")
}

// TestTimelineSecondsWithFraction: a time in Unix seconds with a
// fraction, as PHP's microtime(true) gives it (Symfony's RedisStore sends
// one with every script), reads as a time, not as the client's token.
func TestTimelineSecondsWithFraction(t *testing.T) {
	res := check(t, func(c locktest.Client) (strategy.Strategy, error) {
		return valueLock{pool: c.Pool, value: hexToken, whole: true}, nil
	}, locktest.HolderOverrun, 0)
	require.NoError(t, res.Err)
	require.Equal(t, locktest.Breaks, res.Verdict, res.Reason)
	evals := 0
	for _, e := range res.Timeline {
		if e.Kind != history.EvCommand || e.Command[0].Text != "EVAL" {
			continue
		}
		evals++
		assert.Equal(t, history.ArgToken, e.Command[4].Kind)
		assert.Equal(t, history.ArgTime, e.Command[5].Kind, "%s reads as a time", e.Command[5].Text)
		assert.Less(t, e.Command[5].Ms, int64(time.Minute/time.Millisecond))
	}
	assert.Equal(t, 2, evals)
	assert.Contains(t, report.Mermaid(res.Timeline), " 1 K tokA t0+")
}

// TestUnseenLock: a lock that reaches Redis without its client's proxy
// (here a pool of its own on the server's address) gets no verdict: the
// suite can neither see nor steer it.
func TestUnseenLock(t *testing.T) {
	addr := redistest.Shared(t).Addr
	res := check(t, func(c locktest.Client) (strategy.Strategy, error) {
		pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", addr) }}
		c.Cleanup(func() { pool.Close() })
		return valueLock{pool: pool, value: hexToken}, nil
	}, locktest.CrashRecovery, 0)
	require.Error(t, res.Err)
	assert.Contains(t, res.Err.Error(), "no command of the client has crossed its proxy")
	assert.Equal(t, locktest.NoVerdict, res.Verdict)
}
