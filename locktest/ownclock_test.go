package locktest_test

import (
	"context"
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

// pxatLock is a correct token lock whose expiry is an absolute time read
// from time.Now, as a library that sends PXAT computes it: Client.Clock
// cannot skew it.
type pxatLock struct {
	p   strategy.Pool
	own bool // says so: strategy.OwnClock
}

func (s pxatLock) OwnClock() bool { return s.own }

func (s pxatLock) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	c, err := s.p.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	token := fmt.Sprint(time.Now().UnixNano())
	at := time.Now().Add(ttl).UnixMilli()
	if _, err := redis.String(c.Do("SET", key, token, "NX", "PXAT", at)); err == redis.ErrNil {
		return nil, strategy.ErrNotAcquired
	} else if err != nil {
		return nil, err
	}
	return &secondsHeld{s.p, key, token}, nil
}

// TestOwnClock: a lock that sends PXAT from a clock of its own is skewed
// on the wire when it says so, and then breaks holder-clock (a fast
// clock's PXAT outlives the TTL) and holds clock-skew; when it does not
// say so, those cells are not checked, with why, and never n/a.
func TestOwnClock(t *testing.T) {
	for _, own := range []bool{true, false} {
		newLock := func(c locktest.Client) (strategy.Strategy, error) { return pxatLock{c.Pool, own}, nil }
		cfg := locktest.Config{Addr: redistest.Shared(t).Addr, New: newLock, Key: redistest.Key(t) + fmt.Sprint(own)}
		for p, want := range map[locktest.Property]locktest.Verdict{locktest.HolderClock: locktest.Breaks, locktest.ClockSkew: locktest.Holds} {
			res := locktest.Check(context.Background(), cfg, p)
			if !own {
				require.Error(t, res.Err, p)
				assert.Contains(t, res.Err.Error(), "not checked: the lock sends absolute times taken from a clock of its own", p)
				assert.Contains(t, res.Err.Error(), "PXAT", p)
				continue
			}
			require.NoError(t, res.Err, p)
			assert.Equal(t, want, res.Verdict, "%s: %s", p, res.Reason)
			if p == locktest.HolderClock {
				assert.Contains(t, fmt.Sprint(res.Timeline), "proxy moves every absolute time in its commands", p)
			}
		}
	}
}
