package matrixrun

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
)

// eviction is what the server does when its memory is full. A server that
// evicts can drop any lock's key before its TTL: the suite gives no
// verdict for a check during which it evicted a key (locktest.ErrEvicted),
// and lockcheck says what that means before and after the run.
type eviction struct {
	maxmemory int64  // bytes; 0 is no limit
	policy    string // maxmemory-policy, such as noeviction or allkeys-lru
}

// readEviction reads the server's maxmemory and maxmemory-policy with
// CONFIG GET or, where that is refused (managed servers rename or forbid
// CONFIG), from INFO memory.
func readEviction(ctx context.Context, srv *redistest.Server) (eviction, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := srv.Dial(ctx)
	if err != nil {
		return eviction{}, err
	}
	defer c.Close()
	var e eviction
	var mem string
	mem, e.policy, err = configGet(ctx, c)
	if err != nil {
		fields, infoErr := redistest.Info(ctx, c, "memory")
		if infoErr != nil {
			return eviction{}, fmt.Errorf("CONFIG GET: %w; INFO memory: %w", err, infoErr)
		}
		mem, e.policy = fields["maxmemory"], fields["maxmemory_policy"]
	}
	if e.maxmemory, err = strconv.ParseInt(mem, 10, 64); err != nil || e.policy == "" {
		return eviction{}, fmt.Errorf("maxmemory %q, maxmemory-policy %q: not what a Redis says", mem, e.policy)
	}
	return e, nil
}

// configGet returns the server's maxmemory and maxmemory-policy as CONFIG
// GET gives them.
func configGet(ctx context.Context, c redis.Conn) (maxmemory, policy string, err error) {
	for _, p := range []struct {
		name string
		v    *string
	}{{"maxmemory", &maxmemory}, {"maxmemory-policy", &policy}} {
		kv, err := redis.StringMap(redis.DoContext(c, ctx, "CONFIG", "GET", p.name))
		if err != nil {
			return "", "", err
		}
		*p.v = kv[p.name]
	}
	return maxmemory, policy, nil
}

// evicts reports whether the server may evict a lock's key: it has a
// memory limit, and a policy that picks among all keys (allkeys-*) or
// among those with a TTL (volatile-*), which every lock key has.
func (e eviction) evicts() bool {
	return e.maxmemory > 0 && (strings.HasPrefix(e.policy, "allkeys-") || strings.HasPrefix(e.policy, "volatile-"))
}

// String describes the setting as the server's configuration spells it:
// "maxmemory 3mb, maxmemory-policy allkeys-lru".
func (e eviction) String() string {
	mem := strconv.FormatInt(e.maxmemory, 10)
	switch {
	case e.maxmemory >= 1<<30 && e.maxmemory%(1<<30) == 0:
		mem = strconv.FormatInt(e.maxmemory>>30, 10) + "gb"
	case e.maxmemory >= 1<<20 && e.maxmemory%(1<<20) == 0:
		mem = strconv.FormatInt(e.maxmemory>>20, 10) + "mb"
	case e.maxmemory >= 1<<10 && e.maxmemory%(1<<10) == 0:
		mem = strconv.FormatInt(e.maxmemory>>10, 10) + "kb"
	}
	return fmt.Sprintf("maxmemory %s, maxmemory-policy %s", mem, e.policy)
}

// before is what lockcheck says of a server that evicts, before the run.
func (e eviction) before() string {
	return fmt.Sprintf("this Redis evicts keys when its memory is full (%v): it may drop any lock's key before its TTL, "+
		"which is the server's doing, not the lock's;\n"+
		"a check during which it evicts a key is run again, and gets no verdict if it evicts during every run", e)
}

// after is what lockcheck says of the evictions when the run is done: ""
// when the server cannot evict and did not.
func (e eviction) after(rep *report.Report) string {
	n := 0
	for _, r := range rep.Results {
		if errors.Is(r.Err, locktest.ErrEvicted) {
			n++
		}
	}
	fix := "a lock's server must not evict its keys: set maxmemory-policy noeviction, or give it the memory it needs"
	switch {
	case n > 0:
		return fmt.Sprintf("the server evicted keys during %d of %d checks, which got no verdict (error): on it, any lock can lose its key;\n%s",
			n, len(rep.Results), fix)
	case e.evicts():
		return fmt.Sprintf("the server evicted no key during the checks, but with %v it may drop any lock's key once its memory is full;\n%s", e, fix)
	}
	return ""
}
