package matrixrun

import (
	"context"
	"errors"
	"testing"

	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// TestReadEviction: the eviction policy is read with CONFIG GET, or from
// INFO memory where CONFIG is not to be had, as on managed servers.
func TestReadEviction(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   []string
		want   eviction
		evicts bool
		str    string
	}{
		{"default", nil, eviction{0, "noeviction"}, false, "maxmemory 0, maxmemory-policy noeviction"},
		{"allkeys", []string{"--maxmemory", "3mb", "--maxmemory-policy", "allkeys-lru"}, eviction{3 << 20, "allkeys-lru"}, true,
			"maxmemory 3mb, maxmemory-policy allkeys-lru"},
		{"volatile without CONFIG", []string{"--maxmemory", "1gb", "--maxmemory-policy", "volatile-ttl", "--rename-command", "CONFIG", "CONFIG-" + t.Name()},
			eviction{1 << 30, "volatile-ttl"}, true, "maxmemory 1gb, maxmemory-policy volatile-ttl"},
		{"noeviction with a limit", []string{"--maxmemory", "100000"}, eviction{100000, "noeviction"}, false,
			"maxmemory 100000, maxmemory-policy noeviction"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			srv, err := redistest.StartProcess(ctx, tt.args...)
			if errors.Is(err, redistest.ErrNoRedisServer) {
				t.Skip("redis-server is not on PATH (make setup installs it)")
			}
			require.NoError(t, err)
			t.Cleanup(func() { srv.Close() })
			c, err := srv.Dial(ctx)
			require.NoError(t, err)
			defer c.Close()
			_, err = c.Do("CONFIG", "GET", "maxmemory")
			assert.Equal(t, tt.name == "volatile without CONFIG", err != nil, "CONFIG GET refused: %v", err)

			got, err := readEviction(ctx, srv)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.evicts, got.evicts(), "evicts")
			assert.Equal(t, tt.str, got.String())
		})
	}
}
