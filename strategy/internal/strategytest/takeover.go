package strategytest

import (
	"context"
	"sync"
	"testing"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/rs/xid"
	"github.com/stretchr/testify/require"
)

// TakeOver returns a pool on p whose clients, the first time they are about
// to send the command named before, see the lock at key pass to next: the
// key is deleted, as when the holder's TTL runs out, and next acquires it.
// It is for testing a release against the lock changing hands between two
// of its commands. The returned function reports next's TryAcquire error.
func TakeOver(tb testing.TB, p *redis.Pool, key, before string, next strategy.Strategy) (*RecordPool, func() error) {
	tb.Helper()
	var (
		once sync.Once
		err  error
	)
	rp := &RecordPool{Pool: p, Before: func(c Command) {
		if c.Name == before {
			once.Do(func() {
				Do(tb, p, "DEL", key)
				_, err = next.TryAcquire(context.Background(), key, TTL)
			})
		}
	}}
	return rp, func() error { return err }
}

// RequireToken checks that key holds an xid, the unique value of a token
// lock, and returns it.
func RequireToken(tb testing.TB, p *redis.Pool, key string) string {
	tb.Helper()
	v, ok := Get(tb, p, key)
	require.True(tb, ok, "%s does not exist", key)
	_, err := xid.FromString(v)
	require.NoError(tb, err, "the value %q of %s is not an xid", v, key)
	return v
}
