package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// subset is a quick selection: one strategy that breaks both properties
// and one that keeps them.
var subset = []string{"-strategy", "setnxpx,luatoken", "-property", "double-release,safe-release"}

// sharedEnv runs lockcheck on the test binary's shared server, which it
// must not stop: it gets a copy that Close leaves alone.
func sharedEnv(t *testing.T) (env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	s := redistest.Shared(t)
	var stdout, stderr bytes.Buffer
	return env{
		stdout: &stdout,
		stderr: &stderr,
		start: func(context.Context) (*redistest.Server, error) {
			return &redistest.Server{Addr: s.Addr, Kind: s.Kind, Version: s.Version}, nil
		},
	}, &stdout, &stderr
}

// run runs lockcheck with args on the shared server.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	e, out, errOut := sharedEnv(t)
	code = lockcheck(context.Background(), args, e)
	t.Logf("lockcheck %s: exit %d\nstderr:\n%s", strings.Join(args, " "), code, errOut)
	return code, out.String(), errOut.String()
}

func TestText(t *testing.T) {
	code, out, errOut := run(t, subset...)
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^property +setnxpx +luatoken$`, out)
	assert.Regexp(t, `(?m)^safe-release +breaks +holds$`, out)
	assert.Regexp(t, `(?m)^double-release +breaks +holds$`, out)
	assert.Contains(t, out, "All 4 verdicts are the declared ones.")
	assert.Contains(t, out, "\nWhy a cell breaks: -trace draws each break")
	assert.NotContains(t, out, "sequenceDiagram", "no diagrams without -trace")

	// Progress: one line per property per strategy, with verdict and time.
	assert.Regexp(t, `(?m)^setnxpx +safe-release +breaks +as declared +[0-9.]+ms$`, errOut)
	assert.Regexp(t, `(?m)^setnxpx +double-release +breaks +as declared +[0-9.]+ms$`, errOut)
	assert.Regexp(t, `(?m)^luatoken +safe-release +holds +as declared +[0-9.]+ms$`, errOut)
	assert.Regexp(t, `(?m)^luatoken +double-release +holds +as declared +[0-9.]+ms$`, errOut)
	assert.Contains(t, errOut, "lockcheck: 4 checks in ")
}

// TestWidth: -width cuts the text matrix into parts that fit, and leaves
// Markdown as it is.
func TestWidth(t *testing.T) {
	code, out, _ := run(t, append([]string{"-width", "30"}, subset...)...)
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^property +setnxpx\n(.*\n){2}\nproperty +luatoken\n`, out)
	assert.Regexp(t, `(?m)^safe-release +holds$`, out)
	code, out, _ = run(t, append([]string{"-width", "30", "-format", "markdown"}, subset...)...)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "| property | setnxpx | luatoken |\n|---|---|---|\n")
}

func TestMarkdown(t *testing.T) {
	code, out, _ := run(t, append([]string{"-format", "markdown"}, subset...)...)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "| property | setnxpx | luatoken |\n|---|---|---|\n")
	assert.Contains(t, out, "| safe-release | breaks | holds |\n")
	assert.Contains(t, out, "| double-release | breaks | holds |\n")
}

func TestMarkdownTrace(t *testing.T) {
	code, out, _ := run(t, append([]string{"-format", "markdown", "-trace"}, subset...)...)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "### setnxpx: double-release\n")
	assert.Contains(t, out, "### setnxpx: safe-release\n")
	assert.NotContains(t, out, "### luatoken")
	assert.Equal(t, 2, strings.Count(out, "```mermaid\nsequenceDiagram\n"))
}

// TestHTML: -format html writes one page, each break drawn and linked
// to its strategy's page under the root's docs/, in the -lang asked for.
func TestHTML(t *testing.T) {
	e, out, errOut := sharedEnv(t)
	e.root = "../.."
	code := lockcheck(context.Background(), append([]string{"-format", "html", "-lang", "zh"}, subset...), e)
	require.Equal(t, exitOK, code, errOut.String())
	page := out.String()
	assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>\n<html lang=\"zh-Hans\">"))
	assert.Equal(t, 2, strings.Count(page, `<svg class="seq"`), "setnxpx's two breaks")
	assert.Contains(t, page, `<a href="#b-setnxpx--double-release">✗ breaks</a>`)
	assert.Contains(t, page, `<a href="docs/zh/setnxpx.md">docs/zh/setnxpx.md</a>`)
	assert.Contains(t, page, "全部 4 项判定都与声明的一致。")
	assert.Contains(t, page, "<dt>服务器</dt><dd>redis ")
}

func TestJSON(t *testing.T) {
	code, out, _ := run(t, append([]string{"-format", "json", "-trace"}, subset...)...)
	assert.Equal(t, exitOK, code)
	var got report.JSONReport
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.NotEmpty(t, got.RedisVersion)
	_, err := time.Parse(time.RFC3339, got.When)
	assert.NoError(t, err, "when")
	require.Len(t, got.Results, 4)
	want := map[string]locktest.Verdict{
		"setnxpx/safe-release": locktest.Breaks, "setnxpx/double-release": locktest.Breaks,
		"luatoken/safe-release": locktest.Holds, "luatoken/double-release": locktest.Holds,
	}
	for _, r := range got.Results {
		id := r.Strategy + "/" + string(r.Property)
		assert.Equal(t, want[id], r.Verdict, id)
		assert.Equal(t, want[id], r.Expected, id)
		assert.True(t, r.Match, id)
		assert.NotEmpty(t, r.Reason, id)
		assert.Empty(t, errText(r.Err), id)
		if r.Verdict == locktest.Breaks {
			assert.NotEmpty(t, r.Timeline, "%s: a break has its timeline", id)
			assert.True(t, strings.HasPrefix(r.Mermaid, "sequenceDiagram\n"), id)
		} else {
			assert.Empty(t, r.Timeline, id)
			assert.Empty(t, r.Mermaid, id)
		}
	}

	// The raw form keeps the field names the documentation promises.
	var raw struct {
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	for _, f := range []string{"strategy", "property", "verdict", "expected", "match", "reason", "elapsed_ms"} {
		assert.Contains(t, raw.Results[0], f)
	}
	tl, _ := raw.Results[0]["timeline"].([]any)
	require.NotEmpty(t, tl, "setnxpx/safe-release comes first and breaks")
	for _, f := range []string{"key", "start_unix_ms"} {
		assert.Contains(t, raw.Results[0], f, "a break says what K and t0 are")
	}
	ev, _ := tl[0].(map[string]any)
	assert.Equal(t, "command", ev["kind"])
	args, _ := ev["command"].([]any)
	require.Greater(t, len(args), 1, "a command has its values typed")
	key, _ := args[1].(map[string]any)
	assert.Equal(t, map[string]any{"kind": "key", "text": raw.Results[0]["key"]}, key)
}

func TestTrace(t *testing.T) {
	code, out, _ := run(t, "-trace", "-strategy", "setnxpx", "-property", "double-release")
	assert.Equal(t, exitOK, code)
	_, diagram, ok := strings.Cut(out, "sequenceDiagram\n")
	require.True(t, ok, out)
	for _, want := range []string{
		"    participant A\n    participant B\n    participant C\n    participant Redis\n",
		"    A->>Redis: SET K 1 NX PX 5000\n    Redis-->>A: OK\n    Note over A: lock acquired\n",
		"    A->>Redis: DEL K\n    Redis-->>A: 1\n    Note over A: released\n",
		"    B->>Redis: SET K 1 NX PX 5000\n    Redis-->>B: OK\n",
		"    C->>Redis: SET K 1 NX PX 5000\n    Redis-->>C: OK\n    Note over C: lock acquired\n",
	} {
		assert.Contains(t, diagram, want)
	}
	// A releases twice, and both DELs delete a key.
	assert.Equal(t, 2, strings.Count(diagram, "A->>Redis: DEL K\n    Redis-->>A: 1\n"))
}

// TestTraceRetries: a waiter's failed attempts, each ending "not
// acquired", are drawn once, in a loop.
func TestTraceRetries(t *testing.T) {
	code, out, _ := run(t, "-trace", "-strategy", "setnxdel", "-property", "crash-recovery")
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^    loop ×\d+ \([0-9.]+ms–[0-9.]+ms\)\n        B->>Redis: SETNX K 1\n        Redis-->>B: 0\n        Note over B: not acquired\n    end\n`, out)
	// Text output prints the texts as they are, not escaped for Mermaid.
	assert.Contains(t, out, "Note over A: crashes while holding the lock; it never releases\n")
	assert.NotContains(t, out, "#59;")
}

// TestTraceTokens: luatoken's random tokens get names after their owner.
func TestTraceTokens(t *testing.T) {
	code, out, _ := run(t, "-trace", "-strategy", "luatoken", "-property", "holder-overrun")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "A->>Redis: SET K tokA NX PX 60\n")
	assert.Contains(t, out, "B->>Redis: SET K (new token) NX PX 5000\n")
	assert.Regexp(t, `B->>Redis: EVALSHA [0-9a-f]{7}… 1 K tokB`, out)
	assert.Regexp(t, `A->>Redis: EVALSHA [0-9a-f]{7}… 1 K tokA`, out)
	assert.Contains(t, out, "Note over A,B: overlap: B entered while A was inside\n")
}

func TestRuns(t *testing.T) {
	code, out, errOut := run(t, "-runs", "2", "-strategy", "setnxpx", "-property", "double-release,exclusion")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "The verdicts were the same in all 2 runs.")
	assert.Contains(t, errOut, "run 2/2  setnxpx ")
}

// TestMismatch: a verdict other than the declared one is marked, listed,
// and makes the exit status 1.
func TestMismatch(t *testing.T) {
	defer func(f func() []catalog.Entry) { strategies = f }(strategies)
	strategies = func() []catalog.Entry {
		e, _ := catalog.Lookup("luatoken")
		e.Expect.Breaks = append(e.Expect.Breaks, locktest.DoubleRelease) // wrong on purpose
		return []catalog.Entry{e}
	}
	code, out, errOut := run(t, "-property", "double-release")
	assert.Equal(t, exitMismatch, code)
	assert.Regexp(t, `(?m)^double-release +holds!$`, out)
	assert.Contains(t, out, "1 of 1 verdicts is not the declared one (marked !):\n  luatoken / double-release: holds, declared breaks: ")
	assert.Contains(t, errOut, "DECLARED breaks!")

	code, out, _ = run(t, "-property", "double-release", "-format", "json")
	assert.Equal(t, exitMismatch, code)
	var got report.JSONReport
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got.Results, 1)
	assert.False(t, got.Results[0].Match)
}

// TestError: a strategy the suite cannot decide reads "error", with the
// error in the JSON, and the exit status is 1.
func TestError(t *testing.T) {
	defer func(f func() []catalog.Entry) { strategies = f }(strategies)
	strategies = func() []catalog.Entry {
		e, _ := catalog.Lookup("setnxpx")
		e.Name = "hangs"
		inner := e.New
		e.New = func(c locktest.Client) (strategy.Strategy, error) {
			s, err := inner(c)
			return hanging{s}, err
		}
		return []catalog.Entry{e}
	}
	code, out, _ := run(t, "-property", "double-release", "-format", "json", "-timeout", "300ms")
	assert.Equal(t, exitMismatch, code)
	var got report.JSONReport
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got.Results, 1)
	assert.Equal(t, locktest.NoVerdict, got.Results[0].Verdict)
	assert.NotEmpty(t, got.Results[0].Err)
	assert.False(t, got.Results[0].Match)
}

// hanging is a strategy whose locks hang in Release.
type hanging struct{ strategy.Strategy }

func (h hanging) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	l, err := h.Strategy.TryAcquire(ctx, key, ttl)
	if err == nil {
		return hangingLock{l}, nil
	}
	return nil, err
}

// hangingLock never returns from Release until the watchdog gives up.
type hangingLock struct{ strategy.Lock }

func (hangingLock) Release(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestBadFlags(t *testing.T) {
	var strategies, properties []string
	for _, e := range catalog.Strategies() {
		strategies = append(strategies, e.Name)
	}
	for _, p := range locktest.AllProperties() {
		properties = append(properties, string(p))
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-format", "xml"}, `-format: unknown format "xml": want text, markdown, json or html`},
		{[]string{"-strategy", "setnxpx,zookeeper"}, `unknown strategy "zookeeper"; the strategies are, by kind of lock:` + "\n  mutexes: " + strings.Join(strategies, ", ") + "\n"},
		{[]string{"-property", "liveness"}, `unknown property "liveness"; the properties are, by kind of lock:` + "\n  mutexes: " + strings.Join(properties, ", ") + "\n"},
		{[]string{"-kind", "mutex", "-strategy", "setnxpx,zookeeper"}, `unknown strategy "zookeeper"; the strategies are ` + strings.Join(strategies, ", ") + "\n"},
		{[]string{"-kind", "mutex", "-property", "liveness"}, `unknown property "liveness"; the properties are ` + strings.Join(properties, ", ") + "\n"},
		{[]string{"-runs", "0"}, "-runs 0: want 1 or more"},
		{[]string{"-columns", "0"}, "-columns 0: want 1 or more"},
		{[]string{"-width", "-2"}, "-width -2: want 0 (no limit) or more"},
		{[]string{"-timeout", "-1s"}, "-timeout -1s: want a positive duration"},
		{[]string{"matrix"}, `unexpected arguments ["matrix"]`},
		{[]string{"-docs"}, "flag provided but not defined: -docs"},
		{[]string{"-lang", "fr"}, `-lang "fr": want en or zh`},
		{[]string{"-lang", ""}, `-lang "": want en or zh`},
		{[]string{"-update", "README.md"}, `unexpected arguments ["README.md"] (the docs are written by lockdocs: make docs)`},
		{[]string{"-nosuchflag"}, "flag provided but not defined: -nosuchflag"},
		{[]string{"-redis", "localhost"}, `-redis localhost: "localhost" is neither host:port nor a redis:// or rediss:// URL`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			e := env{stdout: &stdout, stderr: &stderr, start: func(context.Context) (*redistest.Server, error) {
				t.Fatal("lockcheck looked for a Redis despite bad flags")
				return nil, nil
			}}
			code := lockcheck(context.Background(), tt.args, e)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr.String(), tt.want)
			assert.Empty(t, stdout.String())
		})
	}
}

func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := lockcheck(context.Background(), []string{"-h"}, env{stdout: &stdout, stderr: &stderr})
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stderr.String(), "Usage: lockcheck [flags]")
	assert.Contains(t, stderr.String(), "-trace")
}

// TestRedisFlagUnreachable: -redis pointing where no Redis answers exits 2
// and says so.
func TestRedisFlagUnreachable(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := lockcheck(context.Background(), []string{"-redis", "127.0.0.1:1"}, env{stdout: &stdout, stderr: &stderr})
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), "lockcheck: -redis 127.0.0.1:1: no Redis answers there: ")
	assert.Contains(t, stderr.String(), "drop -redis to let lockcheck find one")
	assert.Empty(t, stdout.String())
}

// TestRedisFlag: -redis uses the server given, and leaves no keys behind.
func TestRedisFlag(t *testing.T) {
	s := redistest.Shared(t)
	c, err := s.Dial(context.Background())
	require.NoError(t, err)
	defer c.Close()
	keys := func() []string {
		var all []string
		for _, pattern := range []string{"lockcheck:*", "{lockcheck:*"} { // locks, fencing counters
			keys, err := redis.Strings(c.Do("KEYS", pattern))
			require.NoError(t, err)
			all = append(all, keys...)
		}
		return all
	}
	before := keys()

	var stdout, stderr bytes.Buffer
	code := lockcheck(context.Background(), append([]string{"-redis", s.Addr}, subset...), env{stdout: &stdout, stderr: &stderr})
	assert.Equal(t, exitOK, code, stderr.String())
	assert.Contains(t, stderr.String(), "lockcheck: redis "+s.Version+" (external) at "+s.Addr)
	assert.Regexp(t, `(?m)^safe-release +breaks +holds$`, stdout.String())
	fenced := []string{"-redis", s.Addr, "-strategy", "luatoken-renew-fence", "-property", "fenced-overrun"}
	code = lockcheck(context.Background(), fenced, env{stdout: &stdout, stderr: &stderr})
	assert.Equal(t, exitOK, code, stderr.String())
	if s.Kind != redistest.KindExternal { // a server of our own: nobody else adds keys
		assert.ElementsMatch(t, before, keys(), "lockcheck deletes the keys it made")
	}
}

// TestNoRedis: when no Redis can be had, lockcheck exits 2 with
// redistest's message on how to get one.
func TestNoRedis(t *testing.T) {
	t.Setenv(redistest.EnvMode, redistest.KindExternal)
	t.Setenv(redistest.EnvAddr, "")
	t.Setenv(redistest.EnvURL, "")
	var stdout, stderr bytes.Buffer
	code := lockcheck(context.Background(), subset, env{stdout: &stdout, stderr: &stderr, start: redistest.Start})
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), "no Redis server available")
	assert.Contains(t, stderr.String(), "Get a Redis server in one of these ways")
}

// TestDefaultRedis: without -redis, lockcheck finds (or starts) a server
// itself, as make check runs it.
func TestDefaultRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis of its own")
	}
	var stdout, stderr bytes.Buffer
	args := []string{"-strategy", "luatoken", "-property", "double-release"}
	code := lockcheck(context.Background(), args, env{stdout: &stdout, stderr: &stderr, start: redistest.Start})
	assert.Equal(t, exitOK, code, stderr.String())
	assert.Regexp(t, `(?m)^double-release +holds$`, stdout.String())
}

// TestUpdate: -update writes the verdicts found into the declared grid of
// each kind that ran, a cell that was not the one found included, and
// says which changed.
func TestUpdate(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "catalog"), 0o755))
	stale := map[string]*catalog.Grid{
		catalog.GridFile:                         catalog.Declared().Clone(),
		catalog.KindGridFile(strategy.Semaphore): catalog.DeclaredKind(strategy.Semaphore).Clone(),
	}
	stale[catalog.GridFile].Set("setnxpx", locktest.DoubleRelease, locktest.Holds)
	stale[catalog.KindGridFile(strategy.Semaphore)].Set("semlua", locktest.PermitBound, locktest.Breaks)
	for file, g := range stale {
		require.NoError(t, os.WriteFile(filepath.Join(root, file), g.Format(), 0o644))
	}

	e, stdout, stderr := sharedEnv(t)
	e.root = root
	code := lockcheck(context.Background(), []string{"-update", "-strategy", "setnxpx,luatoken,semlua", "-property", "double-release,permit-bound"}, e)
	require.Equal(t, exitOK, code, stderr.String())
	assert.Empty(t, stdout.String(), "-update prints no matrix")
	for _, want := range []string{
		"lockcheck: -update: setnxpx double-release: holds -> breaks\n",
		"lockcheck: -update: 1 of 2 cells changed in " + catalog.GridFile + "\n",
		"lockcheck: -update: semlua permit-bound: breaks -> holds\n",
		"lockcheck: -update: 1 of 1 cells changed in " + catalog.KindGridFile(strategy.Semaphore) + "\n",
	} {
		assert.Contains(t, stderr.String(), want)
	}
	for file := range stale {
		committed, err := os.ReadFile(filepath.Join("../..", file))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(root, file))
		require.NoError(t, err)
		assert.Equal(t, string(committed), string(got), "%s is the committed one again", file)
	}
}

// TestUpdateBootstrap: -update adds a column and a row the grid does not
// have yet, in their places, and fills the cells it ran, "-" elsewhere.
func TestUpdateBootstrap(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, catalog.GridFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	var src strings.Builder
	drop := -1
	for line := range strings.Lines(string(catalog.Declared().Format())) {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0 || strings.HasPrefix(fields[0], "#"):
			src.WriteString(line)
			continue
		case fields[0] == "property":
			drop = slices.Index(fields, "setnxpx")
		case fields[0] == string(locktest.DoubleRelease):
			continue
		}
		src.WriteString(strings.Join(slices.Delete(fields, drop, drop+1), " ") + "\n")
	}
	require.NoError(t, os.WriteFile(file, []byte(src.String()), 0o644))
	want, err := catalog.ParseGrid(src.String())
	require.NoError(t, err)
	want.Set("setnxpx", locktest.DoubleRelease, locktest.Breaks)

	e, _, stderr := sharedEnv(t)
	e.root = root
	code := lockcheck(context.Background(), []string{"-update", "-strategy", "setnxpx", "-property", "double-release"}, e)
	require.Equal(t, exitOK, code, stderr.String())
	assert.Contains(t, stderr.String(), "lockcheck: -update: setnxpx double-release: - -> breaks\n")
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, string(want.Format()), string(got))
	assert.Regexp(t, `(?m)^property +setnxdel .* delsetnxcheck +setnxpx +fixedpassword `, string(got), "the new column in its place")
	assert.Regexp(t, `(?m)^double-release +- +- .* +breaks +- +`, string(got), "the new row, - where nothing ran")
}

// TestNotDeclared: outside -update, a column or a property the grid
// declares nothing for yet is one line naming the command that writes
// it, exit 1, before any Redis is looked for.
func TestNotDeclared(t *testing.T) {
	defer func(f func() []catalog.Entry) { strategies = f }(strategies)
	for _, tt := range []struct {
		missing []locktest.Property
		args    []string
		want    string
	}{
		{locktest.AllProperties(), nil, "lockcheck: dummy: not declared yet in catalog/verdicts.txt: run lockcheck -update -strategy dummy\n"},
		{[]locktest.Property{locktest.HolderClock}, []string{"-strategy", "dummy,luatoken"},
			"lockcheck: dummy, holder-clock: not declared yet in catalog/verdicts.txt: run lockcheck -update -strategy dummy -property holder-clock\n"},
		{[]locktest.Property{locktest.HolderClock}, []string{"-strategy", "dummy"},
			"lockcheck: holder-clock: not declared yet in catalog/verdicts.txt: run lockcheck -update -property holder-clock\n"},
	} {
		strategies = func() []catalog.Entry {
			e, _ := catalog.Lookup("setnxpx")
			e.Name, e.Missing = "dummy", tt.missing
			lt, _ := catalog.Lookup("luatoken")
			return []catalog.Entry{e, lt}
		}
		var stdout, stderr bytes.Buffer
		e := env{stdout: &stdout, stderr: &stderr, start: func(context.Context) (*redistest.Server, error) {
			t.Fatal("lockcheck looked for a Redis for a run it cannot compare")
			return nil, nil
		}}
		assert.Equal(t, exitMismatch, lockcheck(context.Background(), tt.args, e))
		assert.Equal(t, tt.want, stderr.String())
		assert.Empty(t, stdout.String())
	}
}

// errText is err's text, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestColumnsAtOnce: -columns checks several columns at once, and the
// report is the one a run of one column at a time gives: the same checks
// in the same order, every verdict the same and the declared one, one
// progress line per check.
func TestColumnsAtOnce(t *testing.T) {
	args := []string{"-format", "json", "-kind", "mutex", "-strategy", "setnxpx,luatoken,getset,setnxdel", "-property", "double-release,safe-release,crash-recovery"}
	checks := func(columns string) ([]string, string) {
		code, out, errOut := run(t, append([]string{"-columns", columns}, args...)...)
		require.Equal(t, exitOK, code, errOut)
		var got report.JSONReport
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		var cells []string
		for _, r := range got.Results {
			cells = append(cells, r.Strategy+"/"+string(r.Property)+" "+string(r.Verdict))
			assert.True(t, r.Match, "%s/%s: %s, declared %s", r.Strategy, r.Property, r.Verdict, r.Expected)
		}
		return cells, errOut
	}
	one, _ := checks("1")
	require.Len(t, one, 12)
	three, progress := checks("3")
	assert.Equal(t, one, three, "the same checks, in the same order, with the same verdicts")
	assert.Equal(t, len(one), strings.Count(progress, "as declared"), "a progress line per check:\n%s", progress)
}
