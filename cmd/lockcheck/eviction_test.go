package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEvictingServer: on a server that evicts keys during the run,
// lockcheck says before and after the run what that means for locks, and
// a check during which the server evicted gets no verdict (error), never
// the server's verdict as the lock's (in issue 23, luatoken broke
// exclusion there and luatoken-renew-fence gave an error).
func TestEvictingServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := redistest.StartEvicting(ctx)
	if errors.Is(err, redistest.ErrNoRedisServer) {
		t.Skip("redis-server is not on PATH (make setup installs it)")
	}
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })

	var stdout, stderr bytes.Buffer
	args := []string{"-redis", srv.Addr, "-format", "json",
		"-strategy", "luatoken,luatoken-renew-fence", "-property", "exclusion,lease-kept,clock-skew"}
	code := lockcheck(ctx, args, env{stdout: &stdout, stderr: &stderr})
	errOut := stderr.String()
	t.Logf("stderr:\n%s", errOut)

	var got report.JSONReport
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got), stdout.String())
	require.Len(t, got.Results, 6)
	disturbed := 0
	for _, r := range got.Results {
		if r.Match {
			continue
		}
		disturbed++
		assert.Equal(t, locktest.NoVerdict, r.Verdict, "%s/%s: only an error may differ from the declared verdict", r.Strategy, r.Property)
		assert.Regexp(t, `the server evicted \d+ keys? during the check \(maxmemory-policy allkeys-lru\)`, errText(r.Err), "%s/%s", r.Strategy, r.Property)
	}
	require.NotZero(t, disturbed, "the server evicted during none of the checks")
	assert.Equal(t, exitMismatch, code, "exit status: a check got no verdict")

	// Up front, before the first check's progress line.
	assert.Regexp(t, `^lockcheck: redis .*\n`+
		`lockcheck: this Redis evicts keys when its memory is full \(maxmemory 3mb, maxmemory-policy allkeys-lru\): `+
		`it may drop any lock's key before its TTL, which is the server's doing, not the lock's;\n`+
		`lockcheck: a check during which it evicts a key is run again, and gets no verdict if it evicts during every run\n`+
		`luatoken `, errOut)
	// At the end.
	assert.Regexp(t, fmt.Sprintf(`lockcheck: 6 checks in [0-9.]+s\n`+
		`lockcheck: the server evicted keys during %d of 6 checks, which got no verdict \(error\): on it, any lock can lose its key;\n`+
		`lockcheck: a lock's server must not evict its keys: set maxmemory-policy noeviction, or give it the memory it needs\n`, disturbed), errOut)
}
