package locktest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// instanceToken writes one token for the life of its instance, unless
// perAcquire, and its acquire grants the key again to the token it
// holds, pushing its expiry back: a lock client that a service keeps in
// a field and shares among its goroutines, which to Redis are then one
// holder.
type instanceToken struct {
	p          strategy.Pool
	token      string
	perAcquire bool
	n          int // acquires made, for perAcquire's tokens
}

// renewOrSetNX: 1 when K holds ARGV[1] (its expiry set again) or was
// free (set to it), 0 when K holds anything else.
var renewOrSetNX = redis.NewScript(1, `local held = redis.call("GET", KEYS[1])
if held == ARGV[1] then
	redis.call("PEXPIRE", KEYS[1], ARGV[2])
	return 1
elseif held then
	return 0
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
return 1`)

func (s *instanceToken) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	c, err := s.p.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	token := s.token
	if s.perAcquire {
		s.n++ // the suite calls one instance in turn, never at once
		token = fmt.Sprintf("%s-%d", s.token, s.n)
	}
	n, err := redis.Int(renewOrSetNX.Do(c, key, token, ttl.Milliseconds()))
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, strategy.ErrNotAcquired
	}
	return &secondsHeld{s.p, key, token}, nil
}

// TestExclusionGoroutines: two goroutines sharing a client's strategy
// instance must exclude each other as two clients do. With one token per
// instance, the acquire that grants the key again to its own token lets
// the second goroutine in beside the first; with a token per acquire the
// same script holds.
func TestExclusionGoroutines(t *testing.T) {
	newLock := func(perAcquire bool) locktest.Factory {
		return func(c locktest.Client) (strategy.Strategy, error) {
			return &instanceToken{p: c.Pool, token: "token-of-" + c.Name, perAcquire: perAcquire}, nil
		}
	}

	res := check(t, newLock(false), locktest.Exclusion, 0)
	require.NoError(t, res.Err)
	require.Equal(t, locktest.Breaks, res.Verdict, res.Reason())
	assert.Contains(t, res.Reason(), "A1 and A2, two goroutines of client A sharing its strategy instance, in the critical section at once without any fault: A2 entered while A1 was inside")
	// The counterexample: A's two acquires, each granted, the second with
	// A1 still inside.
	cmds := commands(res.Timeline)
	assert.Equal(t, 2, strings.Count(cmds, "A EVALSHA"), "counterexample:\n%s", locktest.FormatTimeline(res.Timeline))

	res = check(t, newLock(true), locktest.Exclusion, 0)
	require.NoError(t, res.Err)
	locktest.Report(t, res, locktest.Holds)
}
