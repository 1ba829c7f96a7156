package main

import (
	"bytes"
	"errors"
	"regexp"
	"slices"
	"strings"
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

// pseudo is the pseudo-language: each English letter of a template
// written as an accented one, the whole between ⟦ and ⟧, placeholders
// kept. A word of a report in it that is plain ASCII did not come from a
// catalog.
const pseudo = report.Lang("qps")

var accents = strings.NewReplacer(
	"a", "á", "b", "ƀ", "c", "ç", "d", "đ", "e", "é", "f", "ƒ", "g", "ĝ", "h", "ĥ", "i", "í", "j", "ĵ", "k", "ķ", "l", "ĺ", "m", "ḿ",
	"n", "ñ", "o", "ó", "p", "ṕ", "q", "ʠ", "r", "ŕ", "s", "š", "t", "ţ", "u", "ú", "v", "ṽ", "w", "ŵ", "x", "ẋ", "y", "ý", "z", "ž",
	"A", "Á", "B", "Ɓ", "C", "Ç", "D", "Đ", "E", "É", "F", "Ƒ", "G", "Ĝ", "H", "Ĥ", "I", "Í", "J", "Ĵ", "K", "Ķ", "L", "Ĺ", "M", "Ḿ",
	"N", "Ñ", "O", "Ó", "P", "Ṕ", "Q", "Ǫ", "R", "Ŕ", "S", "Š", "T", "Ţ", "U", "Ú", "V", "Ṽ", "W", "Ŵ", "X", "Ẋ", "Y", "Ý", "Z", "Ž")

var placeholder = regexp.MustCompile(`\{[0-9]+(\|[^{}|]*\|[^{}|]*)?\}`)

// pseudoTemplate writes an English template in the pseudo-language.
func pseudoTemplate(en string) string {
	var b strings.Builder
	last := 0
	for _, at := range placeholder.FindAllStringIndex(en, -1) {
		b.WriteString(accents.Replace(en[last:at[0]]))
		ph := en[at[0]:at[1]]
		if n, forms, ok := strings.Cut(ph[1:len(ph)-1], "|"); ok {
			ph = "{" + n + "|" + accents.Replace(forms) + "}"
		}
		b.WriteString(ph)
		last = at[1]
	}
	b.WriteString(accents.Replace(en[last:]))
	return "⟦" + b.String() + "⟧"
}

// addPseudo adds the pseudo-language's catalog, written as a catalog file
// is, from every message's English template: adding a language is adding
// its catalog, and nothing else.
func addPseudo(t *testing.T) {
	t.Helper()
	if slices.Contains(report.Langs(), pseudo) {
		return
	}
	var src strings.Builder
	src.WriteString("# the pseudo-language\n")
	for id, d := range msg.Defs() {
		src.WriteString(id + " = " + pseudoTemplate(d.English) + "\n")
	}
	require.NoError(t, msg.AddCatalog(msg.Lang(pseudo), src.String()))
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
	for _, s := range []string{"sx sy holds breaks n/a error Redis SET DEL GET NX PX OK ERR K A B t ms s T Z",
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
