package docblock_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/docblock"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
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

// TestProperties: the table of properties has a row for every property,
// in the suite's order, in each language.
func TestProperties(t *testing.T) {
	style := docblock.Style{Marker: "lockcheck", Make: "make docs"}
	for _, lang := range report.Langs() {
		got, err := style.Generate(docblock.Block{Kind: "properties", Attrs: map[string]string{}}, &report.Report{}, ".", lang)
		require.NoError(t, err)
		rows := strings.Split(strings.TrimSpace(got), "\n")
		require.Len(t, rows, 2+len(locktest.AllProperties()), lang)
		for i, p := range locktest.AllProperties() {
			assert.True(t, strings.HasPrefix(rows[2+i], "| `"+string(p)+"` | "), rows[2+i])
		}
	}
}
