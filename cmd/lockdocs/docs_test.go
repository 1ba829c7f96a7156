package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/docblock"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/langtest"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/matrixrun"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository's root, seen from this package's directory.
const root = "../.."

// committedDocs returns the Markdown files that make docs rewrites, by
// path relative to root, with their contents: README.md, docs/ and the
// Chinese edition in docs/zh.
func committedDocs(t *testing.T) map[string]string {
	t.Helper()
	files, err := docFiles([]string{filepath.Join(root, "README.md"), filepath.Join(root, "docs"), filepath.Join(root, "docs", "zh")})
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		rel, err := filepath.Rel(root, f)
		require.NoError(t, err)
		out[filepath.ToSlash(rel)] = string(b)
	}
	return out
}

// matrixOnce is one run of the whole matrix, shared by the tests that need
// one: it takes half a minute.
var matrixOnce struct {
	sync.Mutex
	rep *report.Report
}

// runMatrix runs props on entries on the shared server, as lockdocs runs
// them, and returns the report.
func runMatrix(t *testing.T, entries []catalog.Entry, props []locktest.Property) *report.Report {
	t.Helper()
	var rep *report.Report
	var stderr strings.Builder
	p := program(&stderr)
	m := matrixrun.Matrix{Target: redistest.Shared(t).Addr, Entries: entries, Properties: props, Runs: 1, Timeout: 30 * time.Second}
	code := p.Run(context.Background(), m, func(r *report.Report) int {
		rep = r
		return matrixrun.ExitOK
	})
	require.Equal(t, matrixrun.ExitOK, code, "the run:\n%s", stderr.String())
	return rep
}

// wholeMatrix runs the matrix of every kind on the shared server, as
// lockdocs runs them (runKinds), once for all the tests of the package,
// and returns a copy of its report.
func wholeMatrix(t *testing.T) *report.Report {
	t.Helper()
	matrixOnce.Lock()
	defer matrixOnce.Unlock()
	if matrixOnce.rep == nil {
		var stderr strings.Builder
		// Two columns at once: the same report as one at a time, sooner.
		rep, code := runKinds(context.Background(), program(&stderr),
			matrixrun.Matrix{Target: redistest.Shared(t).Addr, Runs: 1, Timeout: 30 * time.Second, Columns: 2})
		require.Equal(t, matrixrun.ExitOK, code, "the run:\n%s", stderr.String())
		if !rep.OK() {
			var b strings.Builder
			for _, r := range rep.Mismatches() {
				fmt.Fprintf(&b, "\n%s %s: %s, declared %s: %s %v", r.Strategy, r.Property, r.Verdict, r.Expected, r.Reason(), r.Err)
			}
			t.Fatalf("the verdicts are not the declared ones:%s", b.String())
		}
		matrixOnce.rep = rep
	}
	rep := *matrixOnce.rep
	rep.Results = slices.Clone(rep.Results)
	return &rep
}

// TestJSONAll: the JSON of the whole matrix (the run the docs are compared
// with, not one more) has every result, each matching its declaration and
// each break with its timeline; and each break, read back from the JSON,
// is judged again from its history alone to the same verdict and reason
// (locktest.Judge, lockcheck -judge).
func TestJSONAll(t *testing.T) {
	var buf strings.Builder
	require.NoError(t, report.Writer{Format: report.JSON}.Write(&buf, wholeMatrix(t)))
	var got report.JSONReport
	require.NoError(t, json.Unmarshal([]byte(buf.String()), &got))
	checks := 0
	for _, m := range kinds() {
		checks += len(m.Entries) * len(m.Properties)
	}
	require.Equal(t, checks, len(got.Results))
	for _, r := range got.Results {
		assert.True(t, r.Match, "%s/%s: %s, declared %s", r.Strategy, r.Property, r.Verdict, r.Expected)
		if r.Verdict != locktest.Breaks {
			continue
		}
		assert.NotEmpty(t, r.Timeline, "%s/%s", r.Strategy, r.Property)
		again, err := locktest.Judge(r.Result)
		if assert.NoError(t, err, "%s/%s judged again", r.Strategy, r.Property) {
			assert.Equal(t, r.Verdict, again.Verdict, "%s/%s judged again", r.Strategy, r.Property)
			assert.Equal(t, r.Result.Reason(), again.Reason(), "%s/%s judged again", r.Strategy, r.Property)
		}
	}
}

// TestDocsCoverEveryBreak: every strategy has a page that traces each of
// its declared breaks and lists its verdicts (the read-write locks and
// the semaphores: docs/kinds.md, in each language); the READMEs show the
// matrix.
func TestDocsCoverEveryBreak(t *testing.T) {
	docs := committedDocs(t)
	kinds := map[string][]docblock.Block{}
	for f, src := range docs {
		blocks, err := style.Parse(src)
		require.NoError(t, err, f)
		kinds[f] = blocks
	}
	has := func(file, kind string, attrs map[string]string) bool {
		for _, b := range kinds[file] {
			if b.Kind != kind {
				continue
			}
			match := true
			for k, v := range attrs {
				match = match && b.Attrs[k] == v
			}
			if match {
				return true
			}
		}
		return false
	}
	assert.True(t, has("README.md", "matrix", nil), "README.md shows the matrix")
	assert.True(t, has("docs/README.md", "matrix", nil), "docs/README.md shows the matrix")
	for _, e := range catalog.Strategies() {
		own := slices.DeleteFunc(slices.Clone(e.Expect.Breaks), func(p locktest.Property) bool {
			return slices.Contains(locktest.TopologyProperties(), p) && e.Masters <= 1
		})
		if len(own) == 0 {
			continue // what it breaks, every lock on one Redis breaks: docs/replication.md shows it
		}
		page := "docs/" + e.Name + ".md"
		if e.Masters > 1 {
			page = "docs/redlock.md" // both Redlock columns
		}
		if !assert.Contains(t, docs, page, "%s has a page", e.Name) {
			continue
		}
		assert.True(t, has(page, "verdicts", map[string]string{"strategy": e.Name}), "%s lists the verdicts of %s", page, e.Name)
		for _, p := range e.Expect.Breaks {
			if slices.Contains(locktest.TopologyProperties(), p) && e.Masters <= 1 {
				continue // common to every lock on one Redis: traced once, in docs/replication.md
			}
			assert.True(t, has(page, "trace", map[string]string{"strategy": e.Name, "property": string(p)}),
				"%s traces %s's break of %s", page, e.Name, p)
		}
	}
	// The read-write locks and the semaphores: their page, in each
	// language, lists each column's verdicts and traces each break.
	for _, k := range lockKinds {
		for _, e := range catalog.KindStrategies(k) {
			for _, page := range kindsPages {
				assert.True(t, has(page, "verdicts", map[string]string{"strategy": e.Name}), "%s lists the verdicts of %s", page, e.Name)
				for _, p := range e.Expect.Breaks {
					assert.True(t, has(page, "trace", map[string]string{"strategy": e.Name, "property": string(p)}),
						"%s traces %s's break of %s", page, e.Name, p)
				}
			}
		}
	}
	for _, p := range []locktest.Property{locktest.Failover, locktest.RestartAmnesia, locktest.NodeClockJump} {
		assert.True(t, has("docs/replication.md", "trace", map[string]string{"strategy": "luatoken", "property": string(p)}),
			"docs/replication.md traces luatoken's break of %s", p)
	}
}

// TestDocsUpToDate regenerates the generated blocks of README.md, docs/
// and docs/zh (in Chinese) from a real run and compares their shapes with
// the ones their markers hold (docblock.Style.UpToDate): the same
// commands, replies, clients and order, whatever the times. Each break is
// drawn from its one run, as lockdocs draws it, and a waiter's failed attempts draw the same whichever
// met the key expiring (see report.Mermaid). One race is left: getsetexpire
// sets a TTL and a stamp that run out together, and about one run in eight
// the attempt that acquires meets them in another order (SETNX fails, then
// GET and GETSET take the lock) and draws another path. A trace that
// differs is therefore run again, up to three times, before the test
// fails. When it fails, run make docs. A session block, which runs a
// Python program, is left unchecked, saying so in one line, when
// python3-redis is missing (unless LOCKLAB_REQUIRE_LANGS=1).
func TestDocsUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole matrix")
	}
	docs := committedDocs(t)
	rep := wholeMatrix(t)

	for _, file := range slices.Sorted(maps.Keys(docs)) {
		src := docs[file]
		lang := langOf(file)
		blocks, err := style.Parse(src)
		require.NoError(t, err, file)
		for _, b := range blocks {
			if why := langtest.Missing(langtest.RedisPy); b.Kind == "session" && why != "" && os.Getenv("LOCKLAB_REQUIRE_LANGS") != "1" {
				t.Logf("%s: %s: not checked: %s", file, b.Name(), why)
				continue
			}
			ok, text, err := style.UpToDate(b, rep, root, lang)
			if !assert.NoError(t, err, "%s: %s", file, b.Name()) || ok {
				continue
			}
			if b.Kind == "trace" && b.Attrs["shape"] != "" {
				e := entryOf(t, b.Attrs["strategy"])
				p := locktest.Property(b.Attrs["property"])
				t.Logf("%s: %s: this run drew another shape than the committed one; running it again\n%s", file, b.Name(), text)
				for range 3 {
					again := *rep
					again.Results = runMatrix(t, []catalog.Entry{e}, []locktest.Property{p}).Results
					if ok, text, err = style.UpToDate(b, &again, root, lang); err == nil && ok {
						break
					}
				}
				if ok {
					continue
				}
			}
			t.Errorf("%s: %s is out of date (shape=%s): run make docs.\n--- this run's\n%s", file, b.Name(), b.Attrs["shape"], text)
		}
	}
}

// entryOf returns the column named name among the matrices lockdocs
// runs.
func entryOf(t *testing.T, name string) catalog.Entry {
	t.Helper()
	for _, m := range kinds() {
		for _, e := range m.Entries {
			if e.Name == name {
				return e
			}
		}
	}
	t.Fatalf("no column %q in the matrices lockdocs runs", name)
	return catalog.Entry{}
}

// TestRewrite: only the blocks change, and a block that cannot be
// generated is an error.
func TestRewrite(t *testing.T) {
	rep := &report.Report{RedisVersion: "7.0.15"}
	r := report.Result{Strategy: "setnxpx", Expected: locktest.Breaks}
	sub := func(id string, args ...msg.Arg) msg.Arg {
		return msg.Arg{Kind: msg.Sub, Msg: &locktest.Message{ID: id, Args: args}}
	}
	r.Property, r.Verdict = locktest.DoubleRelease, locktest.Breaks
	r.Message = locktest.Message{ID: "double-release.breaks-late", Args: []msg.Arg{
		sub("freed.deleted", msg.Arg{Kind: msg.Client, Text: "A"}, msg.Arg{Kind: msg.Op, Text: "second release"})}}
	assert.Equal(t, "after A's release B acquired; then A's second release deleted K, B's lock: C acquired it while B still held it", r.Reason())
	r.Timeline = []history.Event{{Client: "A", Kind: history.EvCommand,
		Command: []history.Arg{{Kind: history.ArgText, Text: "DEL"}, {Kind: history.ArgKey, Text: "k"}},
		Reply:   []history.Arg{{Kind: history.ArgNumber, Text: "1"}}}}
	rep.Results = []report.Result{r}

	src := "# Title\n\nProse.\n\n<!-- lockcheck:matrix -->\nold\n<!-- /lockcheck:matrix -->\n\nMore prose.\n\n" +
		"<!-- lockcheck:trace strategy=setnxpx property=double-release -->\n<!-- /lockcheck:trace -->\nEnd.\n"
	got, err := style.Rewrite(src, rep, root, report.English)
	require.NoError(t, err)
	blocks, err := style.Parse(src)
	require.NoError(t, err)
	var digests []string
	for _, b := range blocks {
		_, d, err := style.Shape(b, rep, root, report.English)
		require.NoError(t, err)
		digests = append(digests, d)
	}
	assert.Equal(t, "# Title\n\nProse.\n\n<!-- lockcheck:matrix shape="+digests[0]+" -->\n"+
		"| property | setnxpx |\n|---|---|\n| double-release | breaks |\n\n"+
		"_Generated by `make docs` from a run of lockcheck on Redis 7.0.15, 0001-01-01._\n"+
		"<!-- /lockcheck:matrix -->\n\nMore prose.\n\n"+
		"<!-- lockcheck:trace strategy=setnxpx property=double-release shape="+digests[1]+" -->\n"+
		"> **setnxpx breaks double-release:** after A's release B acquired; then A's second release deleted K, B's lock: C acquired it while B still held it.\n\n"+
		"```mermaid\nsequenceDiagram\n    participant A\n    participant Redis\n    A->>Redis: DEL K\n    Redis-->>A: 1\n```\n"+
		"<!-- /lockcheck:trace -->\nEnd.\n", got)
	quoted := "Write `<!-- lockcheck:matrix -->` on a line of its own.\n"
	same, err := style.Rewrite(quoted, rep, root, report.English)
	require.NoError(t, err)
	assert.Equal(t, quoted, same, "a marker inside a line is text")

	again, err := style.Rewrite(got, rep, root, report.English)
	require.NoError(t, err)
	assert.Equal(t, got, again, "rewriting is idempotent")

	// A block that differs only in what changes between runs is kept.
	later := *rep
	later.When = time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)
	again, err = style.Rewrite(got, &later, root, report.English)
	require.NoError(t, err)
	assert.Equal(t, got, again, "only the date changed")
	later.RedisVersion = "8.0.0"
	later.Results = []report.Result{r, r}
	later.Results[1].Strategy = "luatoken"
	again, err = style.Rewrite(got, &later, root, report.English)
	require.NoError(t, err)
	assert.Contains(t, again, "| property | setnxpx | luatoken |", "the matrix changed")

	// In Chinese, the same blocks, with the words and reasons in Chinese.
	zh, err := style.Rewrite(src, rep, root, report.Chinese)
	require.NoError(t, err)
	assert.Contains(t, zh, "| 性质 | setnxpx |\n|---|---|\n| double-release | breaks |\n\n"+
		"_由 `make docs` 生成：lockcheck 在 Redis 7.0.15 上运行于 0001-01-01。_\n")
	assert.Contains(t, zh, "> **setnxpx 的 double-release 判定为 breaks**：A 释放之后 B 拿到了锁；然后，A 的第二次释放删除了 K，也就是 B 的锁：B 仍持有锁时，C 也拿到了锁。\n\n")
	assert.Contains(t, zh, "    A->>Redis: DEL K\n    Redis-->>A: 1\n```\n")

	for _, bad := range []string{
		"<!-- lockcheck:trace strategy=luatoken property=double-release -->\n<!-- /lockcheck:trace -->\n",
		"<!-- lockcheck:trace strategy=setnxpx property=exclusion -->\n<!-- /lockcheck:trace -->\n",
		"<!-- lockcheck:verdicts strategy=nope -->\n<!-- /lockcheck:verdicts -->\n",
		"<!-- lockcheck:matrix -->\n<!-- /lockcheck:trace -->\n",
		"<!-- lockcheck:matrix -->\nno end\n",
		"<!-- lockcheck:chart -->\n<!-- /lockcheck:chart -->\n",
		"<!-- lockcheck:source file=strategy/nope.go -->\n<!-- /lockcheck:source -->\n",
		"<!-- lockcheck:source file=strategy/getset/getset.go func=nope -->\n<!-- /lockcheck:source -->\n",
		"<!-- lockcheck:matrix -->\ntext <!-- /lockcheck:matrix -->\n",
	} {
		_, err := style.Rewrite(bad, rep, root, report.English)
		assert.Error(t, err, bad)
	}
}

func TestQuote(t *testing.T) {
	text, lang, err := docblock.Quote(root, "strategy/getset/getset.go", "takeover")
	require.NoError(t, err)
	assert.Equal(t, "go", lang)
	assert.True(t, strings.HasPrefix(text, "// takeover is step 3"), text)
	assert.Contains(t, text, `s.Stamp("GETSET", stamp)`)
	assert.True(t, strings.HasSuffix(text, "}"))

	text, _, err = docblock.Quote(root, "strategy/setnxpx/setnxpx.go", "Strategy.TryAcquire")
	require.NoError(t, err)
	assert.Contains(t, text, `"SET", 1, "NX", "PX"`)

	text, lang, err = docblock.Quote(root, "strategy/luatoken/release.lua", "")
	require.NoError(t, err)
	assert.Equal(t, "lua", lang)
	assert.Contains(t, text, `redis.call("DEL", KEYS[1])`)
}

// TestFromReport: a run read back from its JSON (-report) draws every
// block of the docs as the run itself does, and -marker peercheck writes
// the blocks named peercheck from it.
func TestFromReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole matrix")
	}
	rep := wholeMatrix(t)
	var b strings.Builder
	require.NoError(t, report.Writer{Format: report.JSON}.Write(&b, rep))
	back, err := report.ReadJSON(strings.NewReader(b.String()))
	require.NoError(t, err)
	docs := committedDocs(t)
	for _, file := range slices.Sorted(maps.Keys(docs)) {
		blocks, err := style.Parse(docs[file])
		require.NoError(t, err, file)
		for _, blk := range blocks {
			want, _, err := style.Shape(blk, rep, root, langOf(file))
			require.NoError(t, err)
			got, _, err := style.Shape(blk, back, root, langOf(file))
			require.NoError(t, err)
			assert.Equal(t, want, got, "%s: %s", file, blk.Name())
		}
	}

	dir := t.TempDir()
	run := filepath.Join(dir, "run.json")
	require.NoError(t, os.WriteFile(run, []byte(b.String()), 0o644))
	page := filepath.Join(dir, "page.md")
	require.NoError(t, os.WriteFile(page, []byte("<!-- peercheck:verdicts strategy=luatoken -->\n<!-- /peercheck:verdicts -->\n"), 0o644))
	var stderr strings.Builder
	require.Equal(t, matrixrun.ExitOK, lockdocs(context.Background(), []string{"-report", run, "-marker", "peercheck", page}, &stderr), stderr.String())
	got, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(got), "| double-release | holds |")

	for _, args := range [][]string{{"-marker", "zookeeper"}, {"-marker", "peercheck", page}, {"-report", filepath.Join(dir, "none.json"), page}} {
		stderr.Reset()
		assert.Equal(t, matrixrun.ExitUsage, lockdocs(context.Background(), args, &stderr), "%q", args)
		assert.Contains(t, stderr.String(), "lockdocs: -", "%q", args)
	}
}

func TestLangOf(t *testing.T) {
	assert.Equal(t, report.Chinese, langOf("docs/zh/getset.md"))
	assert.Equal(t, report.Chinese, langOf("../../docs/zh/README.md"))
	assert.Equal(t, report.English, langOf("docs/getset.md"))
	assert.Equal(t, report.English, langOf("README.md"))
}

// TestMain runs the tests against a real Redis (package redistest).
func TestMain(m *testing.M) { redistest.Main(m) }
