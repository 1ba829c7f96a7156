package docblock_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/docblock"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutput: an output block is what the command prints for the checks
// it names, the command line first; its shape does not change with the
// run's times, keys, version or date, and a JSON sample keeps the first
// events of a timeline and its last.
func TestOutput(t *testing.T) {
	style := docblock.Style{Marker: "lockcheck", Make: "make docs"}
	run := func(version, key string, at time.Duration, events int) *report.Report {
		var tl []history.Event
		for i := range events {
			tl = append(tl, history.Event{At: at + time.Duration(i), Client: "B", Kind: history.EvCommand,
				Command: []history.Arg{{Kind: history.ArgText, Text: "SETNX"}, {Kind: history.ArgKey, Text: key}},
				Reply:   []history.Arg{{Kind: history.ArgNumber, Text: "0"}}})
		}
		one := report.Result{Strategy: "x", Expected: locktest.Breaks}
		one.Property, one.Verdict, one.Timeline, one.Key = locktest.CrashRecovery, locktest.Breaks, tl, key
		other := report.Result{Strategy: "y", Expected: locktest.Holds}
		other.Property, other.Verdict = locktest.CrashRecovery, locktest.Holds
		return &report.Report{RedisVersion: version, When: time.Unix(int64(at), 0), Results: []report.Result{one, other}}
	}
	text := docblock.Block{Kind: "output", Attrs: map[string]string{"format": "text", "strategy": "x"}}
	got, err := style.Generate(text, run("7.0.15", "k1", 5, 3), ".", report.English)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(got, "```text\n$ go run ./cmd/lockcheck -strategy x 2>/dev/null\nVerdicts on Redis 7.0.15, "), got)
	assert.Contains(t, got, "crash-recovery  breaks\n")
	assert.NotContains(t, got, " y ", "only the checks named")

	js := docblock.Block{Kind: "output", Attrs: map[string]string{"format": "json", "strategy": "x", "events": "2"}}
	got, err = style.Generate(js, run("7.0.15", "k1", 5, 5), ".", report.English)
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(got, `"client": "B"`), "the first two events and the last:\n%s", got)
	for _, b := range []docblock.Block{text, js} {
		_, one, err := style.Shape(b, run("7.0.15", "k1", 5, 5), ".", report.English)
		require.NoError(t, err)
		_, two, err := style.Shape(b, run("8.0.1", "k2", 9000, 5), ".", report.English)
		require.NoError(t, err)
		assert.Equal(t, one, two, b.Attrs["format"])
	}
	_, one, err := style.Shape(js, run("7.0.15", "k1", 5, 5), ".", report.English)
	require.NoError(t, err)
	_, fewer, err := style.Shape(js, run("7.0.15", "k1", 5, 2), ".", report.English)
	require.NoError(t, err)
	assert.NotEqual(t, one, fewer, "a timeline of two events is not one of five")

	_, err = style.Generate(docblock.Block{Kind: "output", Attrs: map[string]string{"format": "text", "strategy": "nope"}}, run("7", "k", 1, 1), ".", report.English)
	assert.Error(t, err, "no check named")
}

// TestProperties: the table of properties has a row for every property
// of its kind (the mutex's by default), in the suite's order, in each
// language; an unknown kind is an error.
func TestProperties(t *testing.T) {
	style := docblock.Style{Marker: "lockcheck", Make: "make docs"}
	kinds := map[string][]locktest.Property{
		"":           locktest.AllProperties(),
		"mutex":      locktest.AllProperties(),
		"read-write": locktest.KindProperties(strategy.ReadWrite),
		"semaphore":  locktest.KindProperties(strategy.Semaphore),
	}
	for kind, props := range kinds {
		attrs := map[string]string{}
		if kind != "" {
			attrs["kind"] = kind
		}
		for _, lang := range report.Langs() {
			got, err := style.Generate(docblock.Block{Kind: "properties", Attrs: attrs}, &report.Report{}, ".", lang)
			require.NoError(t, err)
			rows := strings.Split(strings.TrimSpace(got), "\n")
			require.Len(t, rows, 2+len(props), "%s %s", kind, lang)
			for i, p := range props {
				assert.True(t, strings.HasPrefix(rows[2+i], "| `"+string(p)+"` | "), rows[2+i])
			}
		}
	}
	_, err := style.Generate(docblock.Block{Kind: "properties", Attrs: map[string]string{"kind": "queue"}}, &report.Report{}, ".", report.English)
	assert.ErrorContains(t, err, `kind="queue"`)
}

// TestGrid: a grid block draws every column of its kind's declared grid,
// and refuses a run whose verdict on one of its columns is another, or
// that lacks a column of the catalog.
func TestGrid(t *testing.T) {
	style := docblock.Style{Marker: "lockcheck", Make: "make docs"}
	b := docblock.Block{Kind: "grid", Attrs: map[string]string{"kind": "semaphore"}}
	g := catalog.DeclaredKind(strategy.Semaphore)
	rep := &report.Report{}
	for _, e := range catalog.KindStrategies(strategy.Semaphore) {
		for _, p := range locktest.KindProperties(strategy.Semaphore) {
			r := report.Result{Strategy: e.Name, Expected: g.Verdict(e.Name, p)}
			r.Property, r.Verdict = p, g.Verdict(e.Name, p)
			rep.Results = append(rep.Results, r)
		}
	}
	got, err := style.Generate(b, rep, ".", report.English)
	require.NoError(t, err)
	assert.Contains(t, got, "| property | "+strings.Join(g.Columns, " | ")+" |\n")
	assert.Contains(t, got, "| permit-lease-independence | breaks | holds | holds | holds | holds |\n")
	assert.Contains(t, got, "`go test -run TestKinds ./recipes` checks symfony-semaphore, laravel-funnel, run as programs.")

	rep.Results[0].Verdict = locktest.Breaks // zsetsemaphore's permit-bound
	_, err = style.Generate(b, rep, ".", report.English)
	assert.ErrorContains(t, err, "zsetsemaphore on permit-bound: the run found breaks!")
	rep.Results = rep.Results[1:]
	_, err = style.Generate(b, rep, ".", report.English)
	assert.ErrorContains(t, err, "no check of zsetsemaphore on permit-bound")
	_, err = style.Generate(docblock.Block{Kind: "grid", Attrs: map[string]string{}}, rep, ".", report.English)
	assert.Error(t, err, "the mutexes' grid is the matrix")
}
