package docblock_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/locklab/locklab/docblock"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMarker: a style sees the blocks of its own marker only, so that two
// tools can write blocks in the same directory of docs.
func TestMarker(t *testing.T) {
	peer := docblock.Style{Marker: "peercheck", Make: "make peers-docs"}
	lock := docblock.Style{Marker: "lockcheck", Make: "make docs"}
	src := "<!-- lockcheck:matrix -->\nold\n<!-- /lockcheck:matrix -->\n" +
		"<!-- peercheck:verdicts strategy=redsync -->\nold\n<!-- /peercheck:verdicts -->\n"
	bs, err := peer.Parse(src)
	require.NoError(t, err)
	require.Len(t, bs, 1)
	assert.Equal(t, "verdicts", bs[0].Kind)
	assert.Equal(t, map[string]string{"strategy": "redsync"}, bs[0].Attrs)
	assert.Equal(t, "peercheck:verdicts strategy=redsync", bs[0].Name())
	bs, err = lock.Parse(src)
	require.NoError(t, err)
	require.Len(t, bs, 1)
	assert.Equal(t, "matrix", bs[0].Kind)

	_, err = peer.Parse("<!-- peercheck:matrix -->\n<!-- /lockcheck:matrix -->\n")
	assert.Error(t, err, "a block of one marker closed by another's is no block")

	rep := &report.Report{RedisVersion: "7.0.15"}
	r := report.Result{Strategy: "redsync", Expected: locktest.Holds}
	r.Property, r.Verdict = locktest.Exclusion, locktest.Holds
	rep.Results = []report.Result{r}
	got, err := peer.Rewrite(src, rep, ".", report.English)
	require.NoError(t, err)
	bs, err = peer.Parse(src)
	require.NoError(t, err)
	_, digest, err := peer.Shape(bs[0], rep, ".", report.English)
	require.NoError(t, err)
	assert.Equal(t, "<!-- lockcheck:matrix -->\nold\n<!-- /lockcheck:matrix -->\n"+
		"<!-- peercheck:verdicts strategy=redsync shape="+digest+" -->\n"+
		"| property | verdict | what the suite saw |\n|---|---|---|\n| exclusion | holds |  |\n"+
		"<!-- /peercheck:verdicts -->\n", got)
}

// TestTraceStable: a trace block is a function of its result alone, and
// shows nothing of the run that another run would change but times and
// counts: not the run's key, not t0, not the tokens' text.
func TestTraceStable(t *testing.T) {
	style := docblock.Style{Marker: "lockcheck", Make: "make docs"}
	result := func(key string, start int64, tokens ...string) *report.Report {
		keyArg := history.Arg{Kind: history.ArgKey, Text: key}
		var tl []history.Event
		for i, tk := range tokens {
			c := string(rune('A' + i))
			args := []history.Arg{{Kind: history.ArgText, Text: "SET"}, keyArg, {Kind: history.ArgToken, Text: tk, Client: c},
				{Kind: history.ArgText, Text: "PX"}, {Kind: history.ArgTime, Text: fmt.Sprint(start + 60), Ms: 60}}
			tl = append(tl, history.Event{Client: c, Kind: history.EvCommand, Command: args, Reply: []history.Arg{{Kind: history.ArgText, Text: "OK"}}})
		}
		r := report.Result{Strategy: "x", Expected: locktest.Breaks}
		r.Property, r.Verdict, r.Message, r.Timeline = locktest.HolderOverrun, locktest.Breaks, locktest.Message{ID: "late.resumes"}, tl
		r.Key, r.Start = key, time.UnixMilli(start)
		return &report.Report{Results: []report.Result{r}}
	}
	b := docblock.Block{Kind: "trace", Attrs: map[string]string{"strategy": "x", "property": string(locktest.HolderOverrun)}}
	one, err := style.Generate(b, result("lockcheck:dc13659ksduabd0ahm1g:x:holder-overrun", 1795306268757, "dc13659ksduabd0ahm1h", "dc13659ksduabd0ahm1i"), ".", report.English)
	require.NoError(t, err)
	two, err := style.Generate(b, result("lockcheck:dc1365aaaaaaaaaaaaaa:x:holder-overrun", 1795306999999, "6a025fcce74111f1b9e402fc00000001", "6a025fcce74111f1b9e402fc00000002"), ".", report.English)
	require.NoError(t, err)
	assert.Equal(t, one, two)
	assert.Contains(t, one, "A->>Redis: SET K tokA PX t0+60ms\n")
	again, err := style.Generate(b, result("lockcheck:dc13659ksduabd0ahm1g:x:holder-overrun", 1795306268757, "dc13659ksduabd0ahm1h", "dc13659ksduabd0ahm1i"), ".", report.English)
	require.NoError(t, err)
	assert.Equal(t, one, again)
}

// TestShape: what changes between two runs of the same scenario (times,
// how often a waiter polled, a digest, the time a key had left, what the
// server says of itself, the order of clock readings taken together)
// leaves a trace's shape as it is; anything else changes it. Rewrite keeps
// a block of the same shape as it is, and replaces one of another shape.
func TestShape(t *testing.T) {
	style := docblock.Style{Marker: "lockcheck", Make: "make docs"}
	arg := func(k history.ArgKind, text string) history.Arg { return history.Arg{Kind: k, Text: text} }
	clock := func(c string, ms int64) history.Event {
		m := locktest.Message{ID: "event.clock", Args: []msg.Arg{{Kind: msg.Value, Value: "time", Ms: ms}}}
		return history.Event{Client: c, Kind: history.EvClock, Msg: &m}
	}
	run := func(version, left, digest string, polls int, at int64, clocks ...string) *report.Report {
		var tl []history.Event
		for _, c := range clocks {
			tl = append(tl, clock(c, at))
		}
		tl = append(tl, history.Event{Client: "A", Kind: history.EvCommand,
			Command: []history.Arg{arg(history.ArgText, "HELLO"), arg(history.ArgNumber, "3")},
			Reply:   []history.Arg{arg(history.ArgServer, "{server: redis, version: "+version+"}")}})
		for range polls {
			tl = append(tl, history.Event{Client: "B", Kind: history.EvCommand,
				Command: []history.Arg{arg(history.ArgText, "EVALSHA"), arg(history.ArgDigest, digest), arg(history.ArgKey, "k")},
				Reply:   []history.Arg{arg(history.ArgNumber, "0")}},
				history.Event{Client: "B", Kind: history.EvNotAcquired})
		}
		ttl := arg(history.ArgLeft, left)
		if left == "-2" {
			ttl.Kind = history.ArgNumber
		}
		tl = append(tl, history.Event{Client: "A", Kind: history.EvCommand,
			Command: []history.Arg{arg(history.ArgText, "PTTL"), arg(history.ArgKey, "k")}, Reply: []history.Arg{ttl}})
		r := report.Result{Strategy: "x", Expected: locktest.Breaks}
		r.Property, r.Verdict, r.Message, r.Timeline = locktest.HolderOverrun, locktest.Breaks, locktest.Message{ID: "late.resumes"}, tl
		return &report.Report{Results: []report.Result{r}}
	}
	b := docblock.Block{Kind: "trace", Attrs: map[string]string{"strategy": "x", "property": string(locktest.HolderOverrun)}}
	shape := func(rep *report.Report, lang report.Lang) string {
		_, d, err := style.Shape(b, rep, ".", lang)
		require.NoError(t, err)
		return d
	}
	one := run("7.0.15", "4998", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", 3, 5, "A", "B")
	for _, lang := range report.Langs() {
		same := shape(one, lang)
		assert.Equal(t, same, shape(run("8.0.1", "12", "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", 7, 9, "B", "A"), lang), lang)
		assert.NotEqual(t, same, shape(run("7.0.15", "-2", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", 3, 5, "A", "B"), lang), "a key gone is not a key with time left")
		assert.NotEqual(t, same, shape(run("7.0.15", "4998", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", 1, 5, "A", "B"), lang), "one poll is not a loop")
		assert.NotEqual(t, same, shape(run("7.0.15", "4998", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", 3, 5, "A"), lang), "one clock reading is not two")
	}

	src := "<!-- lockcheck:trace strategy=x property=holder-overrun -->\nold\n<!-- /lockcheck:trace -->\n"
	got, err := style.Rewrite(src, one, ".", report.English)
	require.NoError(t, err)
	assert.Contains(t, got, "<!-- lockcheck:trace strategy=x property=holder-overrun shape="+shape(one, report.English)+" -->\n")
	assert.Contains(t, got, "Redis-->>A: {server: redis, version: 7.0.15}")
	later, err := style.Rewrite(got, run("8.0.1", "12", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", 7, 9, "B", "A"), ".", report.English)
	require.NoError(t, err)
	assert.Equal(t, got, later, "a block of the same shape is left as it is")
	other, err := style.Rewrite(got, run("7.0.15", "-2", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", 3, 5, "A", "B"), ".", report.English)
	require.NoError(t, err)
	assert.Contains(t, other, "Redis-->>A: -2")
	assert.NotContains(t, other, shape(one, report.English))
}

// TestParse: what is a block and what is not.
func TestParse(t *testing.T) {
	style := docblock.Style{Marker: "lockcheck"}
	bs, err := style.Parse("a\n<!-- lockcheck:source file=a/b.go func=T.M -->\nbody\n<!-- /lockcheck:source -->\nz")
	require.NoError(t, err)
	require.Len(t, bs, 1)
	assert.Equal(t, "body\n", bs[0].Body)
	assert.Equal(t, map[string]string{"file": "a/b.go", "func": "T.M"}, bs[0].Attrs)
	for _, bad := range []string{
		"<!-- lockcheck:matrix -->\n",
		"<!-- /lockcheck:matrix -->\n",
		"<!-- lockcheck:matrix -->\ntext <!-- /lockcheck:matrix -->\n",
		"<!-- lockcheck:matrix x -->\n<!-- /lockcheck:matrix -->\n",
		"<!-- lockcheck:matrix a=\"b\" -->\n<!-- /lockcheck:matrix -->\n",
		"<!-- lockcheck:Matrix -->\n<!-- /lockcheck:Matrix -->\n",
		"<!-- lockcheck:matrix -->\n<!-- lockcheck:matrix -->\n<!-- /lockcheck:matrix -->\n",
		"<!-- lockcheck:matrix -->\n<!-- /lockcheck:trace -->\n",
	} {
		_, err := style.Parse(bad)
		assert.Error(t, err, bad)
	}
	bs, err = style.Parse("Write `<!-- lockcheck:matrix -->` in a line.\n")
	require.NoError(t, err)
	assert.Empty(t, bs, "a marker inside a line is text")
}

// TestCompareVerdicts: a block marked compare=verdicts keeps its shape
// while its reasons' counts and its timeline change from run to run, and
// changes it when a verdict does.
func TestCompareVerdicts(t *testing.T) {
	style := docblock.Style{Marker: "peercheck", Make: "make peers-docs"}
	run := func(n int, v locktest.Verdict) *report.Report {
		r := report.Result{Strategy: "rueidislock", Expected: v}
		r.Property, r.Verdict = locktest.Exclusion, v
		r.Message = locktest.Message{ID: "exclusion.holds", Args: []msg.Arg{{Kind: msg.Count, N: int64(n)}}}
		r.Timeline = []history.Event{{Client: "A", Kind: history.EvNote, Msg: &msg.Msg{ID: "x"}, At: time.Duration(n)}}
		return &report.Report{RedisVersion: "7.0.15", Results: []report.Result{r}}
	}
	bs, err := style.Parse("<!-- peercheck:verdicts strategy=rueidislock compare=verdicts -->\n<!-- /peercheck:verdicts -->\n")
	require.NoError(t, err)
	_, d1, err := style.Shape(bs[0], run(11, locktest.Holds), ".", report.English)
	require.NoError(t, err)
	_, d2, err := style.Shape(bs[0], run(19, locktest.Holds), ".", report.English)
	require.NoError(t, err)
	assert.Equal(t, d1, d2, "the count of interleavings is not compared")
	_, d3, err := style.Shape(bs[0], run(11, locktest.Breaks), ".", report.English)
	require.NoError(t, err)
	assert.NotEqual(t, d1, d3, "a verdict is")
}
