package report_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// page renders rep as HTML.
func page(t *testing.T, rep *report.Report, wr report.Writer) string {
	t.Helper()
	var b bytes.Buffer
	wr.Format = report.HTML
	require.NoError(t, wr.Write(&b, rep))
	return b.String()
}

// diagrams returns the SVG diagrams of a page, each of which must be XML
// that stands alone.
func diagrams(t *testing.T, html string) []string {
	t.Helper()
	svgs := regexp.MustCompile(`(?s)<svg class="seq".*?</svg>`).FindAllString(html, -1)
	for _, s := range svgs {
		d := xml.NewDecoder(strings.NewReader(s))
		for {
			_, err := d.Token()
			if err != nil {
				require.Equal(t, "EOF", err.Error(), "the diagram is well-formed XML:\n%s", s)
				break
			}
		}
	}
	return svgs
}

// TestHTMLSelfContained: the page loads nothing from anywhere: no script,
// style sheet, image or font by address; the one URL is SVG's namespace.
func TestHTMLSelfContained(t *testing.T) {
	got := page(t, sample(), report.Writer{})
	assert.True(t, strings.HasPrefix(got, "<!DOCTYPE html>\n<html lang=\"en\">\n"))
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "@import", "src=", "url(http", "url(//"} {
		assert.NotContains(t, got, bad)
	}
	for _, u := range regexp.MustCompile(`[a-z]+://[^"' )]*`).FindAllString(got, -1) {
		assert.Equal(t, "http://www.w3.org/2000/svg", u)
	}
}

// TestHTML: the header, the matrix with a mismatch that reads without
// colour, and each break linked both ways to its diagram, which carries
// its commands and the key.
func TestHTML(t *testing.T) {
	rep := sample()
	rep.Server, rep.Program = "redis 7.0.15 (process) at 127.0.0.1:6379", "lockcheck"
	rep.Sources = map[string]string{"setnxpx": "003, 004 方式五"}
	for i := range rep.Results {
		rep.Results[i].Timing = locktest.Timing{Short: ms(60), Long: ms(5000), Slack: ms(500), Poll: ms(5)}
		rep.Results[i].Key = key
	}
	pages := func(s string) string { return "docs/" + s + ".md" }
	got := page(t, rep, report.Writer{Pages: pages})

	for _, want := range []string{
		"<dt>Server</dt><dd>redis 7.0.15 (process) at 127.0.0.1:6379</dd>",
		"<dt>Date</dt><dd>2026-11-22 10:00:00 UTC</dd>",
		"<dt>Time scale</dt><dd>a TTL meant to run out 60ms, one that must not 5s; waiters try every 5ms, until 500ms past a TTL</dd>",
		"<dt>What ran</dt><dd>lockcheck; checks: 2 × 2 = 4 (columns × properties), in 0s</dd>",
		`<th scope="col" title="003, 004 方式五"><span><a href="docs/setnxpx.md">setnxpx</a></span></th>`,
		// The mismatch: a symbol, its verdict, "!" and the declared one.
		`<td class="v holds mism" id="c-luatoken--holder-overrun" title="luatoken / holder-overrun: holds, declared breaks">✓ holds!<small>declared breaks</small></td>`,
		`<tr class="has-break has-mismatch"><th scope="row">holder-overrun</th>`,
		// The break's cell links to its diagram, which links back.
		`<td class="v breaks" id="c-setnxpx--holder-overrun" title="setnxpx / holder-overrun: breaks, declared breaks"><a href="#b-setnxpx--holder-overrun">✗ breaks</a></td>`,
		`<section class="break" id="b-setnxpx--holder-overrun">`,
		`Explained on <a href="docs/setnxpx.md">docs/setnxpx.md</a> · <a href="#c-setnxpx--holder-overrun">↑ back to the matrix</a>`,
		"<pre>1 of 4 verdicts is not the declared one (marked !):\n- luatoken / holder-overrun: holds, declared breaks: A resumes\n</pre>",
	} {
		assert.Contains(t, got, want)
	}
	svgs := diagrams(t, got)
	require.Len(t, svgs, 1, "one diagram, for the one break")
	svg := svgs[0]
	for _, want := range []string{
		"<title>setnxpx / holder-overrun</title>",
		">K = " + key + "<",
		">SET K tokA NX PX 60<", ">OK<", ">EVALSHA 74c117a… 1 K tokA<",
		">loop ×3 (0.2ms–10.2ms)<",
		">overlap: B entered while A was inside<",
		">tokA = dc13591ksdu9l73uo0d0<",
		`<rect class="b"`, // who was inside: the activation bars
		`class="n o"`,     // the overlap stands out
	} {
		assert.Contains(t, svg, want)
	}
}

// TestHTMLChinese: the page's own words and the suite's in Chinese; the
// verdicts and the commands as they are.
func TestHTMLChinese(t *testing.T) {
	got := page(t, sample(), report.Writer{Lang: report.Chinese})
	assert.True(t, strings.HasPrefix(got, "<!DOCTYPE html>\n<html lang=\"zh-Hans\">\n"))
	for _, want := range []string{"<title>locklab：互斥锁的判定矩阵</title>", "✓ holds!<small>声明为 breaks</small>", "↑ 回到矩阵", ">进入临界区<", ">SET K tokA NX PX 60<"} {
		assert.Contains(t, got, want)
	}
}

// TestHTMLEscapes: what a strategy or a Redis error says is text, never
// markup, in the page and in its diagrams.
func TestHTMLEscapes(t *testing.T) {
	rep := sample()
	rep.Results[1].Timeline = append(rep.Results[1].Timeline,
		history.Event{Client: "A", Kind: history.EvCommand, Command: []history.Arg{txt("GET"), keyArg}, Err: `ERR <b>"x"</b> & y`})
	rep.Results[3].Err = errors.New("<script>alert(1)</script>")
	got := page(t, rep, report.Writer{})
	assert.NotContains(t, got, "<b>")
	assert.NotContains(t, got, "<script>")
	assert.Contains(t, got, "&lt;script&gt;alert(1)&lt;/script&gt;")
	assert.Contains(t, diagrams(t, got)[0], "error: ERR &lt;b&gt;&#34;x&#34;&lt;/b&gt; &amp; y")
}

// TestHTMLNoBreak: a page without a break says so, and draws nothing.
func TestHTMLNoBreak(t *testing.T) {
	rep := sample()
	rep.Results = rep.Results[:1]
	got := page(t, rep, report.Writer{})
	assert.Contains(t, got, "<p>No check broke.</p>")
	assert.Empty(t, diagrams(t, got))
}

// TestHTMLScales: columns run at different time scales each say theirs.
func TestHTMLScales(t *testing.T) {
	rep := sample()
	for i := range rep.Results {
		rep.Results[i].Timing = locktest.Timing{Short: ms(60), Long: ms(5000), Slack: ms(500), Poll: ms(5)}
		if rep.Results[i].Strategy == "luatoken" {
			rep.Results[i].Timing.Short = ms(1000)
			rep.Results[i].Granularity = ms(1000)
		}
	}
	got := page(t, rep, report.Writer{})
	assert.Contains(t, got, "<dt>Time scale</dt><dd>setnxpx: a TTL meant to run out 60ms, one that must not 5s; waiters try every 5ms, until 500ms past a TTL<br>"+
		"luatoken: a TTL meant to run out 1s, one that must not 5s; waiters try every 5ms, until 500ms past a TTL<br>"+
		"Time scale: luatoken at a granularity of 1s (the step in which the lock counts TTLs, which it announces), every TTL the suite asked for a whole multiple of it.<br>"+
		"The other columns ran at 1ms.</dd>")
}
