package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kindsSubset is a quick run of every kind: a column of each, with a
// break of each kind among its cells.
var kindsSubset = []string{
	"-strategy", "setnxpx,refcountrwlock,zsetsemaphore",
	"-property", "double-release,reader-crash-recovery,permit-bound,permit-skew",
}

// TestNoFlags: without flags, lockcheck checks every kind, each column of
// the catalog on every property of its kind. The whole run is make
// check's; here only what it would run is looked at.
func TestNoFlags(t *testing.T) {
	var stderr bytes.Buffer
	opts, err := parseFlags(nil, &stderr)
	require.NoError(t, err, stderr.String())
	require.Len(t, opts.parts, 3)
	for i, k := range []strategy.Kind{strategy.Mutex, strategy.ReadWrite, strategy.Semaphore} {
		part := opts.parts[i]
		assert.Equal(t, k, part.Kind)
		want := catalog.Strategies()
		props := locktest.AllProperties()
		if k != strategy.Mutex {
			want, props = catalog.KindStrategies(k), locktest.KindProperties(k)
		}
		var got, names []string
		for _, e := range part.Entries {
			got = append(got, e.Name)
		}
		for _, e := range want {
			names = append(names, e.Name)
		}
		assert.Equal(t, names, got, k)
		assert.Equal(t, props, part.Properties, k)
		columns, rows := catalog.Undeclared(part.Entries, part.Properties)
		assert.Empty(t, columns, "%s: every cell is declared in its grid (%v)", k, rows)
	}

	// -kind narrows to one.
	opts, err = parseFlags([]string{"-kind", "read-write"}, &stderr)
	require.NoError(t, err)
	require.Len(t, opts.parts, 1)
	assert.Equal(t, strategy.ReadWrite, opts.parts[0].Kind)
}

// TestAllKinds: one run of every kind, a matrix each under its title,
// one summary and one exit status for all, in every format.
func TestAllKinds(t *testing.T) {
	code, out, errOut := run(t, kindsSubset...)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `(?s)\nMutexes: 1 column, 1 property:\n\nproperty +setnxpx\ndouble-release +breaks\n`+
		`\nRead-write locks: 1 column, 1 property:\n\nproperty +refcountrwlock\nreader-crash-recovery +breaks\n`+
		`\nSemaphores: 1 column, 2 properties:\n\nproperty +zsetsemaphore\npermit-bound +holds\npermit-skew +breaks\n`, out)
	assert.Equal(t, 1, strings.Count(out, "verdicts are the declared ones"), "one summary")
	assert.Contains(t, out, "All 4 verdicts are the declared ones.")
	assert.Contains(t, errOut, "lockcheck: 4 checks in ")

	code, out, _ = run(t, append([]string{"-format", "markdown", "-lang", "zh"}, kindsSubset...)...)
	require.Equal(t, exitOK, code)
	for _, want := range []string{"## 互斥锁：1 列，1 个性质\n", "## 读写锁：1 列，1 个性质\n", "## 信号量：1 列，2 个性质\n", "全部 4 项判定都与声明的一致。"} {
		assert.Contains(t, out, want)
	}

	e, page, errBuf := sharedEnv(t)
	e.root = "../.."
	code = lockcheck(context.Background(), append([]string{"-format", "html"}, kindsSubset...), e)
	require.Equal(t, exitOK, code, errBuf.String())
	for _, want := range []string{
		"<title>locklab: the verdict matrices of 3 kinds of locks</title>",
		`<section class="kind" id="kind-read-write"><h2>Read-write locks: 1 column, 1 property</h2>`,
		`<a href="#b-refcountrwlock--reader-crash-recovery">✗ breaks</a>`,
		`<a href="#b-zsetsemaphore--permit-skew">✗ breaks</a>`,
		// A kind's column links to the page that explains the kinds.
		`<span><a href="docs/kinds.md">refcountrwlock</a></span>`,
		`<span><a href="docs/setnxpx.md">setnxpx</a></span>`,
	} {
		assert.Contains(t, page.String(), want)
	}
	assert.Equal(t, 3, strings.Count(page.String(), `<svg class="seq"`), "a diagram for each kind's break")
}

// TestAllKindsMismatch: a verdict of one kind that is not the declared
// one makes the one exit status 1, and the one summary names it.
func TestAllKindsMismatch(t *testing.T) {
	defer func(f func() []catalog.Entry) { strategies = f }(strategies)
	strategies = func() []catalog.Entry {
		e, _ := catalog.Lookup("luatoken")
		e.Expect.Breaks = append(e.Expect.Breaks, locktest.DoubleRelease) // wrong on purpose
		return []catalog.Entry{e}
	}
	code, out, _ := run(t, "-strategy", "luatoken,semlua", "-property", "double-release,permit-bound")
	assert.Equal(t, exitMismatch, code)
	assert.Contains(t, out, "\nSemaphores: 1 column, 1 property:\n")
	assert.Contains(t, out, "1 of 2 verdicts is not the declared one (marked !):\n  luatoken / double-release: holds, declared breaks: ")
}

// TestAllKindsJudge: a saved run of every kind is judged again, each
// break from its history, as a run of one kind is; so is a run saved
// before results said their kind.
func TestAllKindsJudge(t *testing.T) {
	code, out, _ := run(t, append([]string{"-format", "json"}, kindsSubset...)...)
	require.Equal(t, exitOK, code)
	var got report.JSONReport
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	kinds := map[string]strategy.Kind{}
	for _, r := range got.Results {
		kinds[r.Strategy] = r.Kind
	}
	assert.Equal(t, map[string]strategy.Kind{"setnxpx": "", "refcountrwlock": strategy.ReadWrite, "zsetsemaphore": strategy.Semaphore}, kinds,
		"a mutex's result says no kind, as before there were others")

	dir := t.TempDir()
	saved := filepath.Join(dir, "run.json")
	require.NoError(t, os.WriteFile(saved, []byte(out), 0o644))
	code, judged, errOut := run(t, "-judge", saved)
	assert.Equal(t, exitOK, code, errOut)
	for _, want := range []string{
		"setnxpx double-release: breaks, judged again from its history: the same verdict and reason",
		"refcountrwlock reader-crash-recovery: breaks, judged again from its history: the same verdict and reason",
		"zsetsemaphore permit-skew: breaks, judged again from its history: the same verdict and reason",
		"3 results judged again from their histories, 3 with the recorded verdict and reason; 1 kept no history",
	} {
		assert.Contains(t, judged, want)
	}

	// A run saved before results said their kind.
	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	for _, r := range raw["results"].([]any) {
		delete(r.(map[string]any), "kind")
	}
	old, err := json.Marshal(raw)
	require.NoError(t, err)
	require.NotContains(t, string(old), `"kind":"semaphore"`)
	oldFile := filepath.Join(dir, "old.json")
	require.NoError(t, os.WriteFile(oldFile, old, 0o644))
	code, judged, errOut = run(t, "-judge", oldFile)
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, judged, "3 results judged again from their histories, 3 with the recorded verdict and reason")
}

// TestStrategyOfAnyKind: -strategy takes a column of any kind and runs
// it on its kind's properties; a name of no kind lists every kind's.
func TestStrategyOfAnyKind(t *testing.T) {
	code, out, errOut := run(t, "-strategy", "hashrwlock", "-property", "read-sharing,rw-exclusion")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `(?m)^property +hashrwlock\nread-sharing +holds\nrw-exclusion +holds\n`, out)
	assert.NotContains(t, out, "Read-write locks:", "one kind, no title")

	var rw []string
	for _, e := range catalog.KindStrategies(strategy.ReadWrite) {
		rw = append(rw, e.Name)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-strategy", "zookeeper"}, "-strategy: unknown strategy \"zookeeper\"; the strategies are, by kind of lock:\n  mutexes: setnxdel, "},
		{[]string{"-strategy", "zookeeper"}, "\n  read-write locks: " + strings.Join(rw, ", ") + "\n  semaphores: zsetsemaphore, "},
		{[]string{"-property", "liveness"}, "\n  semaphores: permit-bound, "},
		{[]string{"-strategy", "hashrwlock", "-property", "exclusion"}, "-property names no property of the read-write locks, which -strategy names (hashrwlock): theirs are read-sharing, "},
		{[]string{"-strategy", "setnxpx", "-property", "exclusion,permit-bound"}, "-property permit-bound: a property of the semaphores, of which -strategy names no column"},
		{[]string{"-kind", "semaphore", "-strategy", "hashrwlock"}, "(hashrwlock is one of the read-write locks: -kind read-write, or no -kind, checks it)"},
	} {
		var stderr bytes.Buffer
		_, err := parseFlags(tt.args, &stderr)
		if assert.Error(t, err, tt.args) {
			assert.Contains(t, err.Error()+"\n", tt.want, tt.args)
		}
	}
}
