package main

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServerLost: a server that dies or restarts during a run ends it at
// once with exit status 2, no matrix, and no verdict for the check under
// way, rather than a column of errors counted as verdicts that differ.
func TestServerLost(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("needs redis-server on PATH to stop and restart a server of its own")
	}
	for _, tt := range []struct {
		name string
		// lose makes the server lost once the first check is done.
		lose func(t *testing.T, srv *redistest.Server)
		want string
	}{
		{
			name: "stopped",
			lose: func(t *testing.T, srv *redistest.Server) { require.NoError(t, srv.Close()) },
			want: "stopped answering",
		},
		{
			name: "restarted",
			lose: func(t *testing.T, srv *redistest.Server) {
				c, err := srv.Dial(context.Background())
				require.NoError(t, err)
				defer c.Close()
				// The server execs itself again: same port, a new run_id,
				// no data. The reply may or may not arrive before it goes.
				c.Do("DEBUG", "RESTART")
			},
			want: "restarted during the run (its run_id changed from ",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			srv, err := redistest.StartProcess(ctx, "--enable-debug-command", "yes")
			require.NoError(t, err)
			t.Cleanup(func() { srv.Close() })

			var stdout strings.Builder
			stderr := &lineWatcher{match: progressLine.MatchString, hit: make(chan struct{})}
			done := make(chan int)
			go func() {
				done <- lockcheck(ctx, []string{"-redis", srv.Addr, "-strategy", "setnxdel,setnxpx", "-property", "crash-recovery,holder-overrun"},
					env{stdout: &stdout, stderr: stderr, start: redistest.Start})
			}()
			select {
			case <-stderr.hit:
				tt.lose(t, srv)
			case code := <-done:
				t.Fatalf("lockcheck ended (exit %d) before its first check was done:\n%s", code, stderr)
			}
			code := <-done
			out := stderr.String()
			t.Logf("stderr:\n%s", out)
			assert.Equal(t, exitUsage, code, "exit status")
			assert.Empty(t, stdout.String(), "no matrix")
			assert.Contains(t, out, tt.want)
			assert.Regexp(t, `; 1 of 4 checks done; setnxdel holder-overrun was under way and has no verdict; no verdict is printed`, out)
			assert.Equal(t, 1, strings.Count(out, "as declared"), "progress lines: only the check done before the loss")
		})
	}
}

// lineWatcher is the standard error of an in-process run: it keeps what
// is written, and closes hit at the first line that match accepts.
type lineWatcher struct {
	match func(string) bool
	hit   chan struct{}

	mu   sync.Mutex
	buf  strings.Builder
	seen bool
}

var _ io.Writer = (*lineWatcher)(nil)

func (w *lineWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.seen {
		for line := range strings.Lines(string(p)) {
			if w.match(strings.TrimRight(line, "\n")) {
				w.seen = true
				close(w.hit)
				break
			}
		}
	}
	return len(p), nil
}

func (w *lineWatcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
