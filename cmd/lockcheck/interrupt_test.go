//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterrupt builds lockcheck, runs it, and stops it with a signal while
// a check is under way: it exits 128 plus the signal's number, says it was
// interrupted, gives no verdict for the unfinished check (and no watchdog
// message), and leaves no key on the server.
func TestInterrupt(t *testing.T) {
	bin := buildLockcheck(t)

	tests := []struct {
		name string
		sig  syscall.Signal
		args []string
		// duringFirst signals during the first check, once it has made a
		// key; otherwise once the first check has printed its line.
		duringFirst bool
		// fence: a fencing counter of luatoken is on the server when the
		// signal comes.
		fence bool
	}{
		{name: "SIGINT during the first check", sig: syscall.SIGINT, duringFirst: true,
			args: []string{"-strategy", "setnxdel", "-property", "crash-recovery,holder-overrun"}},
		{name: "SIGINT after a check", sig: syscall.SIGINT,
			args: []string{"-strategy", "setnxdel,luatoken-renew-fence", "-property", "crash-recovery,holder-overrun"}},
		{name: "SIGTERM after a check", sig: syscall.SIGTERM, fence: true,
			args: []string{"-strategy", "luatoken-renew-fence", "-property", "crash-recovery,lease-kept,holder-overrun"}},
		{name: "SIGHUP after a check", sig: syscall.SIGHUP,
			args: []string{"-strategy", "setnxdel", "-property", "crash-recovery,holder-overrun"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := ownServer(t)
			c := dial(t, srv)
			args := append([]string{"-redis", srv.Addr}, tt.args...)
			start := time.Now()
			var sent time.Time
			res := runSignalled(t, bin, args, nil, false, func(line string) bool {
				if tt.duringFirst {
					if !strings.HasPrefix(line, "lockcheck: redis ") {
						return false
					}
					// The first check is under way once it has made a key.
					waitFor(t, "a key of the first check", func() bool { return len(lockcheckKeys(t, c)) > 0 })
				} else if !progressLine.MatchString(line) {
					return false
				}
				keys := lockcheckKeys(t, c)
				require.NotEmpty(t, keys, "the run has keys on the server when the signal comes")
				if tt.fence {
					require.True(t, hasFenceKey(keys), "a fencing counter is among %q", keys)
				}
				sent = time.Now()
				return true
			}, tt.sig)
			t.Logf("lockcheck %s: %v\nsignal after %v, exit %v later\nstderr:\n%s",
				strings.Join(args, " "), tt.sig, sent.Sub(start).Round(time.Millisecond), res.exited.Sub(sent).Round(time.Millisecond), res.stderr)

			assert.Equal(t, 128+int(tt.sig), res.code, "exit status")
			assert.Contains(t, res.stderr, "lockcheck: interrupted by "+sigNames[tt.sig]+": ")
			assert.NotContains(t, res.stderr, "watchdog")
			assert.NotContains(t, res.stderr, "no verdict after")
			assert.NotContains(t, res.stderr, "error!")
			assert.Empty(t, res.stdout, "no matrix for an unfinished run")
			checkProgress(t, res.stderr)
			if tt.duringFirst {
				assert.Contains(t, res.stderr, ": 0 of 2 checks done; setnxdel crash-recovery was under way and has no verdict")
			}
			assert.Regexp(t, `lockcheck: removed the run's keys: [1-9]\d* keys? matching lockcheck:\w+:\* and \{lockcheck:\w+:\*`, res.stderr)
			assert.Empty(t, lockcheckKeys(t, c), "keys left on the server")
		})
	}
}

// TestInterruptOwnServer: a Redis lockcheck started itself is stopped when
// a signal stops the run: by SIGTERM to lockcheck alone (as timeout and
// docker stop send it), or by SIGINT to its whole process group, as Ctrl-C
// sends it, which reaches the redis-server too.
func TestInterruptOwnServer(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("needs redis-server on PATH for lockcheck to start")
	}
	bin := buildLockcheck(t)
	for _, tt := range []struct {
		name  string
		sig   syscall.Signal
		group bool
	}{
		{"SIGTERM to lockcheck", syscall.SIGTERM, false},
		{"SIGINT to the process group", syscall.SIGINT, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := []string{redistest.EnvMode + "=" + redistest.KindProcess}
			// setnxdel's crash-recovery holds its key for the whole wait
			// past the TTL: the signal goes once that key exists, so that
			// it lands inside the check, not between the two.
			args := []string{"-strategy", "setnxdel", "-property", "release-frees,crash-recovery"}
			var addr string
			res := runSignalled(t, bin, args, env, tt.group, func(line string) bool {
				if m := regexp.MustCompile(`^lockcheck: redis \S+ \(process\) at (\S+)$`).FindStringSubmatch(line); m != nil {
					addr = m[1]
				}
				if !progressLine.MatchString(line) {
					return false
				}
				c, err := redis.Dial("tcp", addr)
				require.NoError(t, err)
				defer c.Close()
				waitFor(t, "a key of crash-recovery", func() bool {
					return slices.ContainsFunc(lockcheckKeys(t, c), func(k string) bool { return strings.Contains(k, ":crash-recovery") })
				})
				return true
			}, tt.sig)
			t.Logf("lockcheck %s: %v\nstderr:\n%s", strings.Join(args, " "), tt.sig, res.stderr)
			require.NotEmpty(t, addr, "the banner names the server")
			assert.Equal(t, 128+int(tt.sig), res.code, "exit status")
			assert.Contains(t, res.stderr, "lockcheck: interrupted by "+sigNames[tt.sig]+": 1 of 2 checks done; setnxdel crash-recovery was under way and has no verdict")
			assert.NotContains(t, res.stderr, "watchdog")
			checkProgress(t, res.stderr)
			if !tt.group {
				assert.Contains(t, res.stderr, "lockcheck: stopped the Redis it started (process)")
			}
			// Whichever stopped it, the server is gone.
			waitFor(t, "the server to be gone", func() bool {
				nc, err := net.DialTimeout("tcp", addr, time.Second)
				if err == nil {
					nc.Close()
				}
				return err != nil
			})
		})
	}
}

// progressLine matches a check's progress line.
var progressLine = regexp.MustCompile(`^\S+ +\S+ +(holds|breaks|n/a|error) +(as declared|DECLARED \S+!) +[0-9.]+ms`)

// checkProgress: as many progress lines as the message counts checks
// done, and none for the check that was under way, if one was (a signal
// sent on a progress line may land before the next check begins).
func checkProgress(t *testing.T, stderr string) {
	t.Helper()
	m := regexp.MustCompile(`: (\d+) of \d+ checks done(?:; (\S+) (\S+) was under way and has no verdict|\n)`).FindStringSubmatch(stderr)
	if !assert.NotNil(t, m, "the message says how far the run got") {
		return
	}
	var lines []string
	for l := range strings.SplitSeq(stderr, "\n") {
		if progressLine.MatchString(l) {
			lines = append(lines, l)
		}
	}
	done, _ := strconv.Atoi(m[1])
	assert.Len(t, lines, done, "progress lines")
	for _, l := range lines {
		assert.False(t, m[2] != "" && strings.HasPrefix(l, m[2]+" ") && strings.Fields(l)[1] == m[3], "a verdict for the unfinished check: %s", l)
	}
}

// sigNames are the names lockcheck gives the signals it stops on.
var sigNames = map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}

// signalled is how a run of lockcheck ended.
type signalledRun struct {
	code           int
	stdout, stderr string
	exited         time.Time
}

// runSignalled runs bin with args (and env added to the test's), and sends
// sig to it, or to its process group when group is set, right after a line
// of its standard error for which ready returns true.
func runSignalled(t *testing.T, bin string, args, env []string, group bool, ready func(line string) bool, sig syscall.Signal) signalledRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: group}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())

	var stderr strings.Builder
	var mu sync.Mutex
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			mu.Lock()
			stderr.WriteString(sc.Text() + "\n")
			mu.Unlock()
			lines <- sc.Text()
		}
	}()
	signalled := false
	for line := range lines {
		if !signalled && ready(line) {
			if group {
				require.NoError(t, syscall.Kill(-cmd.Process.Pid, sig))
			} else {
				require.NoError(t, cmd.Process.Signal(sig))
			}
			signalled = true
		}
	}
	err = cmd.Wait()
	exited := time.Now()
	mu.Lock()
	defer mu.Unlock()
	require.True(t, signalled, "lockcheck ended before the moment to signal it:\n%s", stderr.String())
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode() // -1 when a signal killed it
	} else {
		require.NoError(t, err)
	}
	return signalledRun{code: code, stdout: stdout.String(), stderr: stderr.String(), exited: exited}
}

// buildLockcheck builds the command into a directory of the test, with the
// race detector when the tests have it.
func buildLockcheck(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command builds lockcheck")
	bin := filepath.Join(t.TempDir(), "lockcheck")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command(gobin, append(args, ".")...).CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	return bin
}

// waitFor polls cond for up to five seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5s for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// dial connects to srv for the test's own commands.
func dial(t *testing.T, srv *redistest.Server) redis.Conn {
	t.Helper()
	c, err := srv.Dial(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}
