package main

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/docblock"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/internal/msg/msgtest"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockdocs links every message there is: the suite's, the report's, the
// docs blocks' and the arguments' own words.

// TestCatalogsComplete: every message has a template in every catalog
// that fits its arguments, and no catalog keeps a template for a message
// nobody declares.
func TestCatalogsComplete(t *testing.T) {
	for _, err := range msg.Check() {
		t.Error(err)
	}
}

// pseudo is the pseudo-language (msgtest.Pseudo): a word of a report in
// it that is plain ASCII did not come from a catalog.
const pseudo = report.Lang(msgtest.Pseudo)

// addPseudo adds the pseudo-language's catalog.
func addPseudo(t *testing.T) {
	t.Helper()
	require.NoError(t, msgtest.AddPseudo())
}

// sample returns an argument of kind k that renders with no ASCII
// letter of its own (a duration renders as 1.5s, which the test removes).
func sample(k msg.Kind) any {
	switch k {
	case msg.Client:
		return "Ⓐ"
	case msg.Duration:
		return 1500 * time.Millisecond
	case msg.Count, msg.Ordinal:
		return 2
	case msg.Text, msg.Node:
		return "※"
	case msg.Nodes, msg.Clients:
		return []string{"①", "②", "③"}
	case msg.Op:
		return "second release"
	case msg.Sub:
		return msg.Defs()["arg.server"].New()
	case msg.Value:
		return msg.Arg{Kind: msg.Value, Value: "text", Text: "※"}
	}
	panic("no sample of " + string(k))
}

// TestPseudoLanguage adds a language, a pseudo-language made from the
// English templates, and renders in it every message and every text the
// report and the docs' blocks write: none has an English word left that
// is not the run's own data (a strategy's name, a command, a verdict).
func TestPseudoLanguage(t *testing.T) {
	addPseudo(t)
	require.Empty(t, msg.Check(), "the pseudo-language's catalog is complete")
	l, err := report.ParseLang(string(pseudo))
	require.NoError(t, err)
	require.Equal(t, pseudo, l)
	ascii := regexp.MustCompile(`[A-Za-z]+`)

	for id, d := range msg.Defs() {
		args := make([]any, len(d.Kinds))
		for i, k := range d.Kinds {
			args[i] = sample(k)
			if k == msg.Op {
				args[i] = msg.Ops()[i%len(msg.Ops())]
			}
		}
		got := strings.ReplaceAll(msg.Render(msg.Lang(pseudo), d.New(args...)), "1.5s", "")
		if w := ascii.FindString(got); w != "" {
			t.Errorf("%s renders %q in the pseudo-language: %q is not from its catalog", id, got, w)
		}
	}

	rep := pseudoReport()
	// A check without a verdict says why as a message of the suite (a
	// run's failure), never as a sentence made with fmt: here the
	// factory's error, which is data.
	failing := locktest.Check(t.Context(), locktest.Config{Addr: redistest.Shared(t).Addr, Key: redistest.Key(t),
		New: func(locktest.Client) (strategy.Strategy, error) { return nil, errors.New("※") }}, locktest.ReleaseFrees)
	require.Equal(t, locktest.NoVerdict, failing.Verdict, "%v", failing.Err)
	require.False(t, failing.Message.IsZero(), "why there is no verdict, as a message: %v", failing.Err)
	rep.Results = append(rep.Results, report.Result{Result: failing, Strategy: "sy", Expected: locktest.Holds})
	var out bytes.Buffer
	require.NoError(t, report.Writer{Lang: pseudo, Trace: true}.Write(&out, rep))
	require.NoError(t, report.Writer{Lang: pseudo, Hint: true}.Write(&out, rep))
	require.NoError(t, report.Writer{Format: report.Markdown, Lang: pseudo, Trace: true}.Write(&out, rep))
	style := docblock.Style{Marker: "lockcheck", Make: "make docs"}
	for _, b := range []docblock.Block{
		{Kind: "matrix", Attrs: map[string]string{}},
		{Kind: "verdicts", Attrs: map[string]string{"strategy": "sx"}},
		{Kind: "trace", Attrs: map[string]string{"strategy": "sx", "property": string(locktest.SafeRelease)}},
	} {
		text, err := style.Generate(b, rep, ".", pseudo)
		require.NoError(t, err)
		out.WriteString(text)
	}
	// The run's own data, which no language translates.
	data := map[string]bool{}
	for _, s := range []string{"sx sy holds breaks n/a error Redis SET DEL GET NX PX OK ERR K A B D W t ms s T Z",
		"sequenceDiagram participant activate deactivate Note over loop end mermaid",
		"make docs lockcheck sh", strings.Join(slicesOf(rep.Properties()), " ")} {
		for _, w := range ascii.FindAllString(s, -1) {
			data[w] = true
		}
	}
	left := map[string]bool{}
	for _, w := range ascii.FindAllString(out.String(), -1) {
		if !data[w] {
			left[w] = true
		}
	}
	assert.Empty(t, left, "English words left in a report in the pseudo-language:\n%s", out.String())
}

func slicesOf(ps []locktest.Property) []string {
	var out []string
	for _, p := range ps {
		out = append(out, string(p))
	}
	return out
}

// pseudoReport is a run of two strategies with each kind of result: a
// verdict as declared, one that is not, an error, and a break whose
// timeline has commands, an error reply, a failed release, a clock and an
// overlap.
func pseudoReport() *report.Report {
	m := func(id string, args ...any) *locktest.Message {
		mm := msg.Defs()[id].New(args...)
		return &mm
	}
	txt := func(s string) history.Arg { return history.Arg{Kind: history.ArgText, Text: s} }
	key := history.Arg{Kind: history.ArgKey, Text: "k"}
	tl := []history.Event{
		{Client: "A", Kind: history.EvClock, Msg: m("event.clock", msg.Arg{Kind: msg.Value, Value: "time", Ms: 3})},
		{Client: "A", Kind: history.EvCommand, Command: []history.Arg{txt("SET"), key, txt("NX")}, Reply: []history.Arg{txt("OK")}},
		{Client: "A", Kind: history.EvAcquired, Msg: m("event.acquired")},
		{Client: "B", Kind: history.EvCommand, Command: []history.Arg{txt("GET"), key}, Err: "ERR ※"},
		{Client: "A", Kind: history.EvReleased, Err: "※"},
		{Client: "B", Kind: history.EvOverlap, Msg: m("overlap", "B", []string{"A"})},
	}
	r := func(st string, p locktest.Property, v, declared locktest.Verdict, reason *locktest.Message, err error) report.Result {
		res := report.Result{Strategy: st, Expected: declared}
		res.Property, res.Verdict, res.Err = p, v, err
		if reason != nil {
			res.Message = *reason
		}
		if v == locktest.Breaks {
			res.Timeline = tl
		}
		return res
	}
	return &report.Report{RedisVersion: "7.0.15", Runs: 2, Results: []report.Result{
		r("sx", locktest.Exclusion, locktest.Holds, locktest.Holds, m("clock.n/a"), nil),
		r("sx", locktest.SafeRelease, locktest.Breaks, locktest.Breaks, m("freed.while-held"), nil),
		r("sy", locktest.Exclusion, locktest.Breaks, locktest.Holds, m("freed.while-held"), nil),
		r("sy", locktest.SafeRelease, "", locktest.Breaks, nil, errors.New("※")),
	}, Changes: []report.Change{{Strategy: "sy", Property: locktest.Exclusion, Verdicts: []locktest.Verdict{locktest.Holds, locktest.Breaks}}}}
}
