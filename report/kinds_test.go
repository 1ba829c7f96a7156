package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kindsSample is sample's mutexes, with a read-write lock and a
// semaphore, each result marked with its kind, as lockcheck without
// -kind reports them.
func kindsSample() *report.Report {
	rep := sample()
	for i := range rep.Results {
		rep.Results[i].Kind = strategy.Mutex
	}
	r := func(s string, k strategy.Kind, p locktest.Property, got, want locktest.Verdict) report.Result {
		res := report.Result{Strategy: s, Kind: k, Expected: want}
		res.Property, res.Verdict, res.Message = p, got, *message("late.resumes")
		if got == locktest.Breaks {
			res.Timeline = overrun()
		}
		return res
	}
	rep.Results = append(rep.Results,
		r("rwlua", strategy.ReadWrite, locktest.ReadSharing, locktest.Holds, locktest.Holds),
		r("rwlua", strategy.ReadWrite, locktest.RWExclusion, locktest.Holds, locktest.Holds),
		r("zsetsemaphore", strategy.Semaphore, locktest.PermitBound, locktest.Holds, locktest.Holds),
		r("zsetsemaphore", strategy.Semaphore, locktest.PermitSkew, locktest.Breaks, locktest.Breaks),
		r("semlua", strategy.Semaphore, locktest.PermitBound, locktest.Holds, locktest.Holds),
		r("semlua", strategy.Semaphore, locktest.PermitSkew, locktest.NotApplicable, locktest.NotApplicable),
	)
	return rep
}

func write(t *testing.T, wr report.Writer, rep *report.Report) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, wr.Write(&b, rep))
	return b.String()
}

// TestKindsText: a matrix per kind, each under its title, then one
// summary that counts them all.
func TestKindsText(t *testing.T) {
	assert.Equal(t, `Verdicts on Redis 7.0.15, 2026-11-22T10:00:00Z

Mutexes: 2 columns, 2 properties:

property        setnxpx  luatoken
exclusion       holds    holds
holder-overrun  breaks   holds!

Read-write locks: 1 column, 2 properties:

property      rwlua
read-sharing  holds
rw-exclusion  holds

Semaphores: 2 columns, 2 properties:

property      zsetsemaphore  semlua
permit-bound  holds          holds
permit-skew   breaks         n/a

1 of 10 verdicts is not the declared one (marked !):
  luatoken / holder-overrun: holds, declared breaks: A resumes
`, write(t, report.Writer{}, kindsSample()))

	zh := write(t, report.Writer{Lang: report.Chinese}, kindsSample())
	for _, want := range []string{"互斥锁：2 列，2 个性质：\n\n性质 ", "读写锁：1 列，2 个性质：\n", "信号量：2 列，2 个性质：\n", "10 项判定中有 1 项与声明的不一致"} {
		assert.Contains(t, zh, want)
	}

	// One kind is written as it always was: no title.
	one := kindsSample().Of(strategy.Semaphore)
	assert.Equal(t, []strategy.Kind{strategy.Semaphore}, one.Kinds())
	got := write(t, report.Writer{}, one)
	assert.NotContains(t, got, "Semaphores")
	assert.Contains(t, got, "\n\nproperty      zsetsemaphore  semlua\n")
	assert.Contains(t, got, "All 4 verdicts are the declared ones.")
}

// TestKindsMarkdown: a heading per kind, then the summary and the breaks
// under headings of their own.
func TestKindsMarkdown(t *testing.T) {
	got := write(t, report.Writer{Format: report.Markdown, Trace: true}, kindsSample())
	for _, want := range []string{
		"## Mutexes: 2 columns, 2 properties\n\n| property | setnxpx | luatoken |\n",
		"## Read-write locks: 1 column, 2 properties\n\n| property | rwlua |\n|---|---|\n| read-sharing | holds |\n",
		"## Semaphores: 2 columns, 2 properties\n\n| property | zsetsemaphore | semlua |\n",
		"## Summary\n\n1 of 10 verdicts is not",
		"\n## Breaks (2), each with its counterexample\n\n### setnxpx: holder-overrun\n",
		"### zsetsemaphore: permit-skew\n",
	} {
		assert.Contains(t, got, want)
	}
	assert.Less(t, strings.Index(got, "## Mutexes"), strings.Index(got, "## Read-write locks"))
	assert.Less(t, strings.Index(got, "## Read-write locks"), strings.Index(got, "## Semaphores"))
}

// TestKindsJSON: each result of a read-write lock or a semaphore says its
// kind, and a report read back has its kinds again; a result that says
// none (a mutex's, or one saved before there were other kinds) reads as
// a mutex's.
func TestKindsJSON(t *testing.T) {
	rep := kindsSample()
	out := write(t, report.Writer{Format: report.JSON}, rep)
	var raw struct {
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	require.Len(t, raw.Results, len(rep.Results))
	for i, r := range raw.Results {
		if k := rep.Results[i].Kind; k == strategy.Mutex {
			assert.NotContains(t, r, "kind", "a mutex's result says no kind, as before")
		} else {
			assert.Equal(t, string(k), r["kind"], "%s", r["strategy"])
		}
	}
	assert.Contains(t, out, "\"strategy\": \"rwlua\",\n      \"kind\": \"read-write\",\n      \"property\"", "the kind comes after the strategy")

	back, err := report.ReadJSON(strings.NewReader(out))
	require.NoError(t, err)
	assert.Equal(t, []strategy.Kind{strategy.Mutex, strategy.ReadWrite, strategy.Semaphore}, back.Kinds())
	assert.Equal(t, []string{"zsetsemaphore", "semlua"}, back.Of(strategy.Semaphore).Strategies())

	old := write(t, report.Writer{Format: report.JSON}, sample())
	var oldRaw struct {
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(old), &oldRaw))
	for _, r := range oldRaw.Results {
		assert.NotContains(t, r, "kind", "a result without a kind writes none")
	}
	back, err = report.ReadJSON(strings.NewReader(old))
	require.NoError(t, err)
	assert.Equal(t, []strategy.Kind{strategy.Mutex}, back.Kinds())
}

// TestKindsHTML: the page's title names its kind, or its kinds; each
// kind's matrix is a section under its own title.
func TestKindsHTML(t *testing.T) {
	got := page(t, kindsSample(), report.Writer{})
	for _, want := range []string{
		"<title>locklab: the verdict matrices of 3 kinds of locks</title>",
		"<h1>locklab: the verdict matrices of 3 kinds of locks</h1>",
		"<dt>What ran</dt><dd>lockcheck; checks, columns × properties: Mutexes: 2 × 2 = 4; Read-write locks: 1 × 2 = 2; Semaphores: 2 × 2 = 4; 10 in all, in 0s</dd>",
		"<section class=\"kind\" id=\"kind-mutex\"><h2>Mutexes: 2 columns, 2 properties</h2>\n<div class=\"matrix\"",
		"<section class=\"kind\" id=\"kind-read-write\"><h2>Read-write locks: 1 column, 2 properties</h2>\n<div class=\"matrix\"",
		"<section class=\"kind\" id=\"kind-semaphore\"><h2>Semaphores: 2 columns, 2 properties</h2>\n<div class=\"matrix\"",
		`<a href="#b-zsetsemaphore--permit-skew">✗ breaks</a>`,
		`<section class="break" id="b-zsetsemaphore--permit-skew">`,
	} {
		assert.Contains(t, got, want)
	}
	assert.Equal(t, 3, strings.Count(got, `<div class="matrix"`))
	assert.Len(t, diagrams(t, got), 2)
	// The read-write locks' matrix has their rows only.
	_, rw, _ := strings.Cut(got, `id="kind-read-write"`)
	rw, _, _ = strings.Cut(rw, "</section>")
	assert.Contains(t, rw, ">read-sharing<")
	assert.NotContains(t, rw, ">exclusion<")
	assert.NotContains(t, rw, "setnxpx")

	zh := page(t, kindsSample(), report.Writer{Lang: report.Chinese})
	assert.Contains(t, zh, "<title>locklab：3 种锁的判定矩阵</title>")
	assert.Contains(t, zh, "<h2>读写锁：1 列，2 个性质</h2>")
	assert.Contains(t, zh, "互斥锁：2 × 2 = 4 项；读写锁：1 × 2 = 2 项；信号量：2 × 2 = 4 项；共 10 项")

	for k, title := range map[strategy.Kind][2]string{
		strategy.Mutex:     {"the verdict matrix of the mutexes", "互斥锁的判定矩阵"},
		strategy.ReadWrite: {"the verdict matrix of the read-write locks", "读写锁的判定矩阵"},
		strategy.Semaphore: {"the verdict matrix of the semaphores", "信号量的判定矩阵"},
	} {
		one := kindsSample().Of(k)
		got := page(t, one, report.Writer{})
		assert.Contains(t, got, "<title>locklab: "+title[0]+"</title>", k)
		assert.NotContains(t, got, `<section class="kind"`, "%s: one kind, one matrix, no section", k)
		assert.Contains(t, page(t, one, report.Writer{Lang: report.Chinese}), "<title>locklab："+title[1]+"</title>", k)
	}
}

// TestOf: a kind's part of a report has its results and its changes, and
// nothing of the other kinds.
func TestOf(t *testing.T) {
	rep := kindsSample()
	rep.Changes = []report.Change{
		{Strategy: "luatoken", Property: locktest.Exclusion, Verdicts: []locktest.Verdict{locktest.Holds, locktest.Breaks}},
		{Strategy: "semlua", Property: locktest.PermitBound, Verdicts: []locktest.Verdict{locktest.Holds, locktest.Breaks}},
	}
	sem := rep.Of(strategy.Semaphore)
	assert.Len(t, sem.Results, 4)
	assert.Equal(t, []report.Change{rep.Changes[1]}, sem.Changes)
	assert.Equal(t, rep.RedisVersion, sem.RedisVersion)
	assert.Len(t, rep.Results, 10, "rep is left as it was")
	assert.Empty(t, rep.Of("fair").Results)
}
