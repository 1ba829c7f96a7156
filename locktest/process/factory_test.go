package process

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/langtest"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// check runs property p on argv through the suite, up to three times
// while the server disturbs every run of the check (a stall on a busy
// machine), which says nothing about the lock.
func check(t *testing.T, p locktest.Property, argv []string, opts ...Option) locktest.Result {
	t.Helper()
	cfg := locktest.Config{Addr: redistest.Shared(t).Addr, New: Factory(argv, opts...), Key: redistest.Key(t), Timeout: 20 * time.Second}
	res := locktest.Check(context.Background(), cfg, p)
	for try := 2; try <= 3 && errors.Is(res.Err, locktest.ErrInconclusive); try++ {
		t.Logf("try %d: %v", try, res.Err)
		res = locktest.Check(context.Background(), cfg, p)
	}
	return res
}

// TestFactoryBrokenPrograms: through the suite, a program that answers
// garbage, exits or hangs gives the property an error that says so, well
// within the watchdog.
func TestFactoryBrokenPrograms(t *testing.T) {
	for _, tc := range []struct {
		name, script, want string
	}{
		{"garbage", `echo ready; read -r l; echo 'hello there'; cat >/dev/null`, `it answered "hello there"`},
		{"exits", `echo ready; read -r l; echo 'Segmentation fault' >&2; exit 139`, "it exited before it answered (exit status 139)"},
		{"hangs", `echo ready; read -r l; sleep 60`, "no answer within 500ms"},
		{"no ready", `echo hi`, `its first line is "hi"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res := check(t, locktest.ReleaseFrees, sh(tc.script), WithTimeout(500*time.Millisecond), WithName(tc.name))
			require.Error(t, res.Err)
			assert.Contains(t, res.Err.Error(), tc.want)
			assert.Contains(t, res.Err.Error(), tc.name+" (client A)")
			assert.Less(t, time.Since(start), 10*time.Second)
		})
	}
}

// TestFactoryFreshScriptCache: a lock whose first release on a server
// loads its script (redis-py: EVALSHA, NOSCRIPT, SCRIPT LOAD, EVALSHA)
// sends more commands than its next ones; exclusion replays interleavings
// and must not take that for a divergence.
func TestFactoryFreshScriptCache(t *testing.T) {
	langtest.Need(t, langtest.RedisPy)
	conn, err := redistest.Shared(t).Dial(context.Background())
	require.NoError(t, err)
	_, err = conn.Do("SCRIPT", "FLUSH")
	conn.Close()
	require.NoError(t, err)
	res := check(t, locktest.Exclusion, []string{langtest.Python, "../../recipes/python/token_lock.py"})
	require.NoError(t, res.Err)
	assert.Equal(t, locktest.Holds, res.Verdict)
}

// TestFactoryCrash: crash-mid-acquire kills the program between its SETNX
// and its PEXPIRE, and the lock is left without expiry, as the Go column
// shows; crash-recovery kills the holder, whose lock then frees.
func TestFactoryCrash(t *testing.T) {
	langtest.Need(t, langtest.PHP)
	res := check(t, locktest.CrashMidAcquire, []string{"php", "../../recipes/php/setnxexpire.php"})
	require.NoError(t, res.Err)
	assert.Equal(t, locktest.Breaks, res.Verdict, res.Reason)
	var sent []string
	crashed := false
	for _, e := range res.Timeline {
		if e.Client == "A" && e.Kind == history.EvCommand && !crashed {
			sent = append(sent, e.Command[0].Text)
		}
		crashed = crashed || e.Kind == history.EvCrash && e.Client == "A"
	}
	assert.True(t, crashed, "the timeline has the crash")
	assert.Equal(t, []string{"SETNX"}, sent, "A died after its SETNX")

	res = check(t, locktest.CrashRecovery, []string{"php", "../../recipes/php/setnxpx.php"})
	require.NoError(t, res.Err)
	assert.Equal(t, locktest.Holds, res.Verdict, res.Reason)
}
