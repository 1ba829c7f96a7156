package report

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/locklab/locklab/locktest"
)

// verdictMark is the symbol of each verdict, beside its word.
var verdictMark = map[locktest.Verdict]string{
	locktest.Holds: "✓", locktest.Breaks: "✗", locktest.NotApplicable: "–", locktest.NoVerdict: "⚠",
}

// writeHTML writes the report as one self-contained page, in wr.Lang: a
// header (the server, the Redis version, the date, the time scale, what
// ran), the matrix, whose cells read without colour (a symbol and the
// verdict, "!" and the declared verdict when it is not the one found),
// then every break with its reason, a link to its strategy's page
// (wr.Pages) and its counterexample drawn as an SVG sequence diagram.
// A break's cell links to its diagram, and the diagram back to the cell.
//
// The page loads nothing: its style sheet and its drawings are inline, and
// it needs no script (two filters are check boxes that the style sheet
// reads). The body never scrolls sideways; the matrix and each diagram
// scroll inside their own boxes.
func (wr Writer) writeHTML(w io.Writer, rep *Report) error {
	t := wr.tr()
	ew := &errWriter{w: w}
	lang := t.say(mHTMLLang)
	title := rep.htmlTitle(t)
	fmt.Fprintf(ew, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n"+
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n",
		lang, esc(title), pageStyle)
	ew.WriteString(arrowHead)
	fmt.Fprintf(ew, "<header>\n<h1>%s</h1>\n", esc(title))
	htmlHeader(ew, rep, t)
	ew.WriteString("</header>\n<main>\n")

	fmt.Fprintf(ew, "<p class=\"legend\">%s</p>\n", esc(t.say(mHTMLLegend)))
	fmt.Fprintf(ew, "<p class=\"filters\">%s: <label><input type=\"checkbox\" id=\"only-breaks\"> %s</label> <label><input type=\"checkbox\" id=\"only-mismatches\"> %s</label></p>\n",
		esc(t.say(mHTMLFilter)), esc(t.say(mHTMLOnlyBreaks)), esc(t.say(mHTMLOnlyMismatches)))
	if kinds := rep.Kinds(); len(kinds) > 1 {
		// A section per kind, each with its matrix.
		for i, part := range rep.parts() {
			fmt.Fprintf(ew, "<section class=\"kind\" id=\"kind-%s\"><h2>%s</h2>\n", slug(string(kinds[i])), esc(t.kindHeading(part, kinds[i])))
			htmlMatrix(ew, part, wr, t)
			ew.WriteString("</section>\n")
		}
	} else {
		htmlMatrix(ew, rep, wr, t)
	}

	var sum strings.Builder
	summary(&sum, rep, "- ", true, t)
	fmt.Fprintf(ew, "<section class=\"summary\"><h2>%s</h2>\n<pre>%s</pre></section>\n", esc(t.say(mHTMLSummary)), esc(sum.String()))

	breaks := rep.Breaks()
	fmt.Fprintf(ew, "<section id=\"breaks\"><h2>%s</h2>\n", esc(t.say(mHTMLBreaks, len(breaks))))
	if len(breaks) == 0 {
		fmt.Fprintf(ew, "<p>%s</p>\n", esc(t.say(mHTMLNoBreaks)))
	}
	for _, r := range breaks {
		htmlBreak(ew, r, wr, t)
	}
	ew.WriteString("</section>\n</main>\n")
	fmt.Fprintf(ew, "<footer><p>%s</p></footer>\n</body>\n</html>\n", esc(t.say(mHTMLFooter, cmp.Or(rep.Program, "lockcheck"))))
	return ew.err
}

// htmlHeader writes the terms of the run: server, version, date, time
// scale, what ran.
func htmlHeader(w io.Writer, rep *Report, t tr) {
	// item writes a term and its value, each of its lines on one.
	item := func(term string, lines ...string) {
		var vs []string
		for _, l := range lines {
			if l != "" {
				vs = append(vs, esc(l))
			}
		}
		if len(vs) > 0 {
			fmt.Fprintf(w, "<div><dt>%s</dt><dd>%s</dd></div>\n", esc(term), strings.Join(vs, "<br>"))
		}
	}
	w.Write([]byte("<dl class=\"run\">\n"))
	item(t.say(mHTMLServer), rep.Server)
	item(t.say(mHTMLRedis), rep.RedisVersion)
	if !rep.When.IsZero() {
		item(t.say(mHTMLDate), rep.When.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	// Each time scale the checks ran at, and, when there are several, the
	// columns at each.
	type scale struct {
		text    string
		columns []string
	}
	var scales []scale
	for _, r := range rep.Results {
		if r.Timing == (locktest.Timing{}) {
			continue
		}
		s := t.say(mHTMLScaleValue, r.Timing.Short, r.Timing.Long, r.Timing.Poll, r.Timing.Slack)
		i := slices.IndexFunc(scales, func(sc scale) bool { return sc.text == s })
		if i < 0 {
			scales, i = append(scales, scale{text: s}), len(scales)
		}
		if !slices.Contains(scales[i].columns, r.Strategy) {
			scales[i].columns = append(scales[i].columns, r.Strategy)
		}
	}
	var lines []string
	for _, sc := range scales {
		if len(scales) > 1 {
			sc.text = strings.Join(sc.columns, ", ") + ": " + sc.text
		}
		lines = append(lines, sc.text)
	}
	// The columns at a coarser granularity, and why, as text output
	// says it.
	var coarse strings.Builder
	rep.writeScales(&coarse, t)
	item(t.say(mHTMLScale), append(lines, strings.Split(strings.TrimSpace(coarse.String()), "\n")...)...)
	var elapsed time.Duration
	for _, r := range rep.Results {
		elapsed += r.Elapsed
	}
	strategies, props := rep.Strategies(), rep.Properties()
	program := cmp.Or(rep.Program, "lockcheck")
	ran := t.say(mHTMLRunValue, program, len(strategies), len(props), len(rep.Results), elapsed.Round(100*time.Millisecond))
	if kinds := rep.Kinds(); len(kinds) > 1 {
		each := ""
		for i, part := range rep.parts() {
			one := t.say(mHTMLRunKind, t.kindTitle(kinds[i]), len(part.Strategies()), len(part.Properties()), len(part.Results))
			if each == "" {
				each = one
			} else {
				each = t.say(mHTMLRunKindNext, each, one)
			}
		}
		ran = t.say(mHTMLRunKinds, program, each, len(rep.Results), elapsed.Round(100*time.Millisecond))
	}
	for _, s := range strategies {
		// An -exec column: its command is what ran.
		if src := rep.Sources[s]; strings.HasPrefix(src, "-exec ") {
			ran += "; " + s + ": " + src
		}
	}
	if rep.Runs > 1 {
		ran += "; " + t.say(mHTMLRuns, rep.Runs)
	}
	item(t.say(mHTMLRun), ran)
	w.Write([]byte("</dl>\n"))
}

// htmlMatrix writes the matrix in a box of its own, which scrolls.
func htmlMatrix(w io.Writer, rep *Report, wr Writer, t tr) {
	strategies := rep.Strategies()
	fmt.Fprintf(w, "<div class=\"matrix\" role=\"region\" tabindex=\"0\" aria-label=\"%s\">\n<table>\n<thead><tr><th class=\"corner\" scope=\"col\">%s</th>",
		esc(t.say(mHTMLMatrixLabel)), esc(t.say(mProperty)))
	for _, s := range strategies {
		name := esc(s)
		if page := pageOf(wr, s); page != "" {
			name = fmt.Sprintf("<a href=\"%s\">%s</a>", esc(page), name)
		}
		title := ""
		if src := rep.Sources[s]; src != "" {
			title = fmt.Sprintf(" title=\"%s\"", esc(src))
		}
		fmt.Fprintf(w, "<th scope=\"col\"%s><span>%s</span></th>", title, name)
	}
	w.Write([]byte("</tr></thead>\n<tbody>\n"))
	for _, p := range rep.Properties() {
		var cells strings.Builder
		broke, mism := false, false
		for _, s := range strategies {
			r, ok := rep.Lookup(s, p)
			if !ok {
				cells.WriteString("<td></td>")
				continue
			}
			v := r.Outcome()
			broke = broke || v == locktest.Breaks
			class := "v " + verdictClass(v)
			word := verdictMark[v] + " " + string(v)
			declared := r.Expected
			if declared == "" {
				declared = "-"
			}
			if !r.Matches() {
				mism = true
				class += " mism"
				word += "!"
			}
			fmt.Fprintf(&cells, "<td class=\"%s\" id=\"%s\" title=\"%s\">", class, cellID(s, p),
				esc(t.say(mHTMLCellTitle, s, string(p), string(v), string(declared))))
			if v == locktest.Breaks {
				fmt.Fprintf(&cells, "<a href=\"#%s\">%s</a>", breakID(s, p), esc(word))
			} else {
				cells.WriteString(esc(word))
			}
			if !r.Matches() && r.Expected != "" {
				fmt.Fprintf(&cells, "<small>%s</small>", esc(t.say(mHTMLDeclared, string(r.Expected))))
			}
			cells.WriteString("</td>")
		}
		var class []string
		if broke {
			class = append(class, "has-break")
		}
		if mism {
			class = append(class, "has-mismatch")
		}
		attr := ""
		if len(class) > 0 {
			attr = fmt.Sprintf(" class=\"%s\"", strings.Join(class, " "))
		}
		fmt.Fprintf(w, "<tr%s><th scope=\"row\">%s</th>%s</tr>\n", attr, esc(string(p)), cells.String())
	}
	w.Write([]byte("</tbody>\n</table>\n</div>\n"))
}

// htmlBreak writes one break: its reason, its strategy's page, its
// diagram.
func htmlBreak(w io.Writer, r Result, wr Writer, t tr) {
	class := "break"
	if !r.Matches() {
		class += " mism"
	}
	fmt.Fprintf(w, "<section class=\"%s\" id=\"%s\">\n<h3>%s <span class=\"sep\">/</span> %s</h3>\n", class, breakID(r.Strategy, r.Property), esc(r.Strategy), esc(string(r.Property)))
	fmt.Fprintf(w, "<p class=\"reason\">%s</p>\n<p class=\"links\">", esc(t.sentence(t.reason(r))))
	if page := pageOf(wr, r.Strategy); page != "" {
		fmt.Fprintf(w, "%s <a href=\"%s\">%s</a> · ", esc(t.say(mHTMLPage)), esc(page), esc(page))
	}
	fmt.Fprintf(w, "<a href=\"#%s\">%s</a></p>\n", cellID(r.Strategy, r.Property), esc(t.say(mHTMLBack)))
	var legend []string
	if r.Key != "" {
		legend = append(legend, t.say(mHTMLKeyIs, r.Key))
	}
	if !r.Start.IsZero() {
		legend = append(legend, t.say(mHTMLStartIs, r.Start.UTC().Format("2006-01-02 15:04:05.000 UTC")))
	}
	fmt.Fprintf(w, "<div class=\"diagram\">%s</div>\n</section>\n",
		t.svgDiagram(r.Timeline, legend, r.Strategy+" / "+string(r.Property)))
}

// pageOf is the link to strategy s's page, "" when it has none.
func pageOf(wr Writer, s string) string {
	if wr.Pages == nil {
		return ""
	}
	return wr.Pages(s)
}

func verdictClass(v locktest.Verdict) string {
	if v == locktest.NotApplicable {
		return "na"
	}
	return string(v)
}

// cellID and breakID are the anchors of a cell and of its break.
func cellID(s string, p locktest.Property) string  { return "c-" + slug(s) + "--" + string(p) }
func breakID(s string, p locktest.Property) string { return "b-" + slug(s) + "--" + string(p) }

// slug keeps what an anchor may hold of a column's name (an -exec
// column's may be a command).
func slug(s string) string {
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' {
			return c
		}
		return '_'
	}, s)
}

func esc(s string) string { return html.EscapeString(s) }

// arrowHead is the marker of every arrow of every diagram, defined once.
const arrowHead = `<svg class="defs" width="0" height="0" aria-hidden="true"><defs><marker id="ah" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z"/></marker></defs></svg>
`

// pageStyle is the page's whole style sheet. The filters are check boxes
// it reads with :has(), so that they need no script.
const pageStyle = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;color-scheme:light}
body{margin:0 auto;max-width:1400px;padding:0 16px 32px;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC","WenQuanYi Micro Hei",sans-serif;color:#1c2128;background:#fff;overflow-wrap:anywhere}
h1{font-size:1.5em;margin:.8em 0 .3em}
h2{font-size:1.2em;margin:1.6em 0 .5em;border-bottom:1px solid #d0d7de}
h3{font-size:1.05em;margin:1.4em 0 .3em;font-family:ui-monospace,"DejaVu Sans Mono",monospace}
h3 .sep{color:#888}
a{color:#0a58ca}
.defs{position:absolute}
dl.run{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0}
dl.run div{display:contents}
dt{font-weight:600}
dd{margin:0}
@media (max-width:600px){dl.run{grid-template-columns:1fr}dd{margin-bottom:6px}}
.legend,.filters{font-size:.92em;color:#333}
.filters label{white-space:nowrap;margin-right:1em}
.matrix{overflow:auto;max-height:88vh;width:fit-content;max-width:100%;border:1px solid #d0d7de;border-radius:4px}
.matrix table{border-collapse:separate;border-spacing:0;font-size:13px;overflow-wrap:normal}
.matrix th,.matrix td{border-right:1px solid #e4e7eb;border-bottom:1px solid #e4e7eb;padding:3px 6px;white-space:nowrap}
.matrix thead th{position:sticky;top:0;background:#f4f6f8;z-index:2;vertical-align:bottom}
.matrix thead th span{writing-mode:vertical-rl;transform:rotate(180deg);display:inline-block;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-weight:600}
.matrix tbody th{position:sticky;left:0;background:#f9fafb;z-index:1;text-align:left;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-weight:600}
.matrix thead th.corner{left:0;z-index:3;text-align:left}
.matrix td{text-align:left;font-family:ui-monospace,"DejaVu Sans Mono",monospace}
.matrix td small{display:block;font-size:11px}
td.holds{background:#e9f6ec;color:#1a5e2a}
td.breaks{background:#fde8e8;color:#8b1a1a}
td.breaks a{color:#8b1a1a;font-weight:600}
td.na{color:#777}
td.error{background:#fff3cd;color:#664d03;font-weight:600}
td.mism{outline:3px solid #d4380d;outline-offset:-3px;background-image:repeating-linear-gradient(45deg,transparent 0 6px,rgba(212,56,13,.12) 6px 9px);font-weight:700}
td:target,section:target{box-shadow:0 0 0 3px #0a58ca inset}
body:has(#only-breaks:checked) .matrix tbody tr:not(.has-break),
body:has(#only-mismatches:checked) .matrix tbody tr:not(.has-mismatch),
body:has(#only-mismatches:checked) section.break:not(.mism){display:none}
.summary pre{white-space:pre-wrap;font-size:13px;background:#f6f8fa;padding:8px;border-radius:4px}
section.break{scroll-margin-top:8px}
.reason{margin:.2em 0}
.links{margin:.2em 0 .5em;font-size:.92em}
.diagram{overflow-x:auto;width:fit-content;max-width:100%;border:1px solid #d0d7de;border-radius:4px;background:#fcfcfd;padding:4px}
.diagram svg{display:block}
.seq text{font:12px ui-monospace,"DejaVu Sans Mono","Liberation Mono","WenQuanYi Micro Hei Mono","Noto Sans Mono CJK SC",monospace;fill:#1c2128}
.seq .lb,.seq .nt,.seq .pt{text-anchor:middle}
.seq .lb{paint-order:stroke;stroke:#fcfcfd;stroke-width:4px;stroke-linejoin:round}
.seq .pt{font-weight:700}
.seq .lg{fill:#555}
.seq .p{fill:#eef1f8;stroke:#4a5a8a}
.seq .l{stroke:#99a;stroke-dasharray:4 3}
.seq .a,.seq .r{stroke:#1c2128;fill:none;marker-end:url(#ah)}
.seq .r{stroke-dasharray:5 3}
.seq .n{fill:#fff7d6;stroke:#c9a227}
.seq .o{fill:#fde8e8;stroke:#b42318;stroke-width:2}
.seq .b{fill:#dfe6f5;stroke:#4a5a8a}
.seq .f{fill:none;stroke:#888;stroke-dasharray:3 2}
.seq .fl{font-weight:700;fill:#444}
footer{margin-top:2em;font-size:.85em;color:#555}
`
