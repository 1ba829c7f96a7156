package conntest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
)

// Cluster starts a private redis-server in cluster mode, a cluster of one
// node that owns every slot, and returns its address; it is stopped when
// the test ends. It skips the test when redis-server is not on PATH.
func Cluster(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := redistest.StartProcess(ctx, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
	if errors.Is(err, redistest.ErrNoRedisServer) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := srv.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Do("CLUSTER", "ADDSLOTSRANGE", 0, 16383); err != nil {
		t.Fatal(err)
	}
	for {
		info, err := redis.String(c.Do("CLUSTER", "INFO"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(info, "cluster_state:ok") {
			return srv.Addr
		}
		if ctx.Err() != nil {
			t.Fatalf("the cluster is not ok: %s", info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
