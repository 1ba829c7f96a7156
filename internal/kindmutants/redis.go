package kindmutants

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

// redisNow is Lua that sets now to Redis's clock, in Unix milliseconds.
const redisNow = `
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

// eval runs sc on a connection of p and returns its integer reply.
func eval(ctx context.Context, p strategy.Pool, sc *redis.Script, keysAndArgs ...any) (int, error) {
	c, err := p.GetContext(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return redis.Int(sc.DoContext(ctx, c, keysAndArgs...))
}

// token returns a fresh random token.
func token() string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on the systems Go supports
	}
	return hex.EncodeToString(b)
}

// checkTTL refuses a TTL below a millisecond, as every strategy does.
func checkTTL(ttl time.Duration) error {
	if ttl < time.Millisecond {
		return fmt.Errorf("kindmutants: %w: %v", strategy.ErrInvalidTTL, ttl)
	}
	return nil
}

// ms is ttl in milliseconds.
func ms(ttl time.Duration) int64 { return ttl.Milliseconds() }
