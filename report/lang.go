package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest"
)

// Lang is a language the report is written in: its headers and summaries,
// the suite's reasons and notes, and the texts of its diagrams.
// Identifiers, commands, keys, property names, the verdicts (holds,
// breaks, n/a) and the errors of strategies are never translated.
type Lang string

// The languages: those of the suite's catalogs (package internal/msg).
const (
	// English is the suite's own language, and the default.
	English = Lang(msg.English)
	// Chinese is for the readers of the Chinese posts the strategies come
	// from. The suite's messages are rendered from its Chinese catalog.
	Chinese = Lang(msg.Chinese)
)

// Langs returns the languages, the default first: every language the
// catalogs have.
func Langs() []Lang {
	var out []Lang
	for _, l := range msg.Langs() {
		out = append(out, Lang(l))
	}
	return out
}

// ParseLang returns the language named s ("" is English).
func ParseLang(s string) (Lang, error) {
	if s == "" {
		return English, nil
	}
	if l := Lang(s); slices.Contains(Langs(), l) {
		return l, nil
	}
	names := make([]string, len(Langs()))
	for i, l := range Langs() {
		names[i] = string(l)
	}
	return "", fmt.Errorf("unknown language %q; the languages are %s", s, strings.Join(names, ", "))
}

// Mermaid is Mermaid with its texts in l.
func (l Lang) Mermaid(tl []locktest.Event) string { return l.tr().mermaid(tl) }

// Verdicts is Verdicts with its header and reasons in l.
func (l Lang) Verdicts(w io.Writer, rep *Report, strategy string) { verdicts(w, rep, strategy, l.tr()) }

// MarkdownTable writes the matrix alone as a Markdown table, its header
// in l.
func (l Lang) MarkdownTable(w io.Writer, rep *Report) { markdownTable(w, rep, l.tr()) }

// Reason returns r's reason in l, or its error as it is when it has one.
func (l Lang) Reason(r Result) string { return l.tr().reason(r) }

// Sentence ends s with l's full stop.
func (l Lang) Sentence(s string) string { return l.tr().sentence(s) }

// Shape is how a generated text of the docs is compared with a later run's
// (see Shape.Mermaid).
type Shape struct{ Lang Lang }

// Mermaid is Lang.Mermaid with what changes from one run of the same
// scenario to the next written as placeholders: times (t0±Δ), how many
// times a loop ran and when, scripts' digests (SHA), the time a key had
// left (LEFT; -1 and -2 stay) and what a server says of itself (SERVER).
// Clock readings in a row, which clients take in either order before the
// scheduler gates their first command, are drawn in the clients' order.
// Two runs that did the same things draw the same shape.
func (s Shape) Mermaid(tl []locktest.Event) string { return s.tr().mermaid(tl) }

// Reason is Lang.Reason, with values written as Mermaid writes them.
func (s Shape) Reason(r Result) string { return s.tr().reason(r) }

// Verdicts is Lang.Verdicts, with values written as Mermaid writes them.
func (s Shape) Verdicts(w io.Writer, rep *Report, strategy string) {
	verdicts(w, rep, strategy, s.tr())
}

// Scales writes, in l, one line for each group of columns of rep that ran
// at a time scale coarser than a millisecond: which, at what granularity
// and why; nothing when every column ran at the default.
func (l Lang) Scales(w io.Writer, rep *Report) { rep.writeScales(w, l.tr()) }

func (s Shape) tr() tr {
	t := s.Lang.tr()
	t.shape = true
	return t
}

// tr renders in one language.
type tr struct {
	lang Lang
	// shape writes what changes between runs as placeholders (see Shape).
	shape bool
}

func (l Lang) tr() tr {
	if l == "" {
		l = English
	}
	return tr{lang: l}
}

// render writes m in t's language, its values with value (nil: as
// shapeValue has them).
func (t tr) render(m locktest.Message, value func(locktest.Arg) string) string {
	if value == nil {
		value = t.shapeValue
	}
	p := msg.Printer{Lang: msg.Lang(t.lang), Value: func(a msg.Arg) string {
		return value(locktest.Arg{Kind: locktest.ArgKind(a.Value), Text: a.Text, Client: a.Owner, Ms: a.Ms})
	}}
	return p.Render(m)
}

// shapeValue writes a value outside a diagram: the key as K, a time as
// t0±Δms, anything else as it is; with t.shape, placeholders for what
// changes between runs.
func (t tr) shapeValue(a locktest.Arg) string {
	if t.shape {
		switch a.Kind {
		case locktest.ArgTime:
			return "t0±Δ"
		case locktest.ArgDigest:
			return "SHA"
		case locktest.ArgLeft:
			return "LEFT"
		case locktest.ArgServer:
			return "SERVER"
		}
	}
	return a.String()
}

// reason is r's reason in t's language, or its error as it is.
func (t tr) reason(r Result) string {
	switch {
	case r.Err != nil:
		return r.Err.Error()
	case r.Message.IsZero():
		return ""
	}
	return t.render(r.Message, nil)
}

// sentence ends s with a full stop: a Chinese one after Chinese, an
// English one after a sentence left in English.
func (t tr) sentence(s string) string {
	stop := "."
	if t.lang == Chinese && strings.IndexFunc(s, func(c rune) bool { return unicode.Is(unicode.Han, c) }) >= 0 {
		stop = "。"
	}
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "。") {
		return s
	}
	return s + stop
}

// msg returns the words of the report's own that t's language uses.
func (t tr) msg() *messages {
	if t.lang == Chinese {
		return &chinese
	}
	return &english
}

// messages are the report's own words: headers, summaries, and the
// labels diagrams add to the suite's texts.
type messages struct {
	header   string // the Redis version, the time of the run
	colon    string
	property string // the header of the matrix's first column
	verdicts string // the header of Verdicts' table

	oneDeclared, allDeclared string
	undeclared               string // total, errors: when no verdict is declared
	noVerdict                string // bullet, strategy, property, why: an error where none is declared
	oneMismatch, mismatches  string // total; mismatches, total
	mismatch                 string // bullet, strategy, property, verdict, declared, why
	sameRuns                 string
	oneChanged, manyChanged  string // runs; changes, runs
	change                   string // bullet, strategy, property, verdicts
	scale                    string // strategies, granularity, why: columns at a coarser time scale
	scaleFrom                map[ScaleFrom]string
	why                      string // how to see why a cell breaks
	textTrace                string // strategy, property, reason
	markdownTrace            string // strategy, property, reason, diagram

	// In diagrams.
	errorReply, overlap, newToken string
	failed                        map[locktest.EventKind]string // a lock call's error
}

var english = messages{
	header:   "Verdicts on Redis %s, %s",
	colon:    ":",
	property: "property",
	verdicts: "| property | verdict | what the suite saw |\n|---|---|---|\n",

	oneDeclared: "The verdict is the declared one.\n",
	allDeclared: "All %d verdicts are the declared ones.\n",
	undeclared:  "Checks: %d, none with a declared verdict; without a verdict (error): %d.\n",
	noVerdict:   "%s%s / %s: no verdict: %s\n",
	oneMismatch: "1 of %d verdicts is not the declared one (marked !):\n",
	mismatches:  "%d of %d verdicts are not the declared ones (marked !):\n",
	mismatch:    "%s%s / %s: %s, declared %s: %s\n",
	sameRuns:    "The verdicts were the same in all %d runs.\n",
	oneChanged:  "1 verdict changed between the %d runs:\n",
	manyChanged: "%d verdicts changed between the %d runs:\n",
	change:      "%s%s / %s: %s\n",

	scale: "Time scale: %s at a granularity of %v (%s), every TTL the suite asked for a whole multiple of it; the other columns at 1ms.\n",
	scaleFrom: map[ScaleFrom]string{
		ScaleColumn: "the step in which the lock counts TTLs, declared with its column",
		ScaleFlag:   "set by -granularity",
		ScaleLock:   "the step in which the lock counts TTLs, which it announces",
	},

	why:           "Why a cell breaks: -trace draws each break (with -strategy S -property P, that one); docs/S.md explains strategy S.\n",
	textTrace:     "\n%s / %s: breaks: %s\n",
	markdownTrace: "\n### %s: %s\n\n%s\n\n```mermaid\n%s```\n",

	errorReply: "error: ",
	failed: map[locktest.EventKind]string{
		locktest.EvAcquired:  "acquire failed: ",
		locktest.EvReleased:  "release failed: ",
		locktest.EvRefreshed: "refresh failed: ",
	},
	overlap:  "overlap: ",
	newToken: "(new token)",
}

var chinese = messages{
	header:   "Redis %s 上的判定，%s",
	colon:    "：",
	property: "性质",
	verdicts: "| 性质 | 判定 | 测试套件看到了什么 |\n|---|---|---|\n",

	oneDeclared: "判定与声明的一致。\n",
	allDeclared: "全部 %d 项判定都与声明的一致。\n",
	undeclared:  "检查：%d 项，都没有声明的判定；没有得出判定（error）的：%d 项。\n",
	noVerdict:   "%s%s / %s：没有得出判定：%s\n",
	oneMismatch: "%d 项判定中有 1 项与声明的不一致（标有 !）：\n",
	mismatches:  "%[2]d 项判定中有 %[1]d 项与声明的不一致（标有 !）：\n",
	mismatch:    "%s%s / %s：%s，声明为 %s：%s\n",
	sameRuns:    "%d 次运行的判定全都相同。\n",
	oneChanged:  "有 1 项判定在 %d 次运行之间变了：\n",
	manyChanged: "有 %d 项判定在 %d 次运行之间变了：\n",
	change:      "%s%s / %s：%s\n",

	scale: "时间尺度：%s 以 %v 为粒度运行（%s），测试套件请求的每个 TTL 都是它的整数倍；其余各列为 1ms。\n",
	scaleFrom: map[ScaleFrom]string{
		ScaleColumn: "锁计算 TTL 的最小单位，随这一列声明",
		ScaleFlag:   "由 -granularity 设定",
		ScaleLock:   "锁计算 TTL 的最小单位，由锁自己宣告",
	},

	why:           "某一格为什么是 breaks：-trace 会画出每个 break（加上 -strategy S -property P 只画那一个）；docs/zh/S.md 讲解方案 S。\n",
	textTrace:     "\n%s / %s：breaks：%s\n",
	markdownTrace: "\n### %s：%s\n\n%s\n\n```mermaid\n%s```\n",

	errorReply: "错误：",
	failed: map[locktest.EventKind]string{
		locktest.EvAcquired:  "加锁失败：",
		locktest.EvReleased:  "释放失败：",
		locktest.EvRefreshed: "续期失败：",
	},
	overlap:  "重叠：",
	newToken: "（新令牌）",
}

// align writes rows as columns: each cell but the last of a row padded
// with spaces to the widest of its column, plus two. It is what
// text/tabwriter does with a padding of 2, except that a Chinese character
// counts as the two columns a terminal gives it.
func align(w io.Writer, rows [][]string) {
	widths := widths(rows)
	for _, row := range rows {
		var b strings.Builder
		for j, cell := range row {
			b.WriteString(cell)
			if j < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[j]-width(cell)+2))
			}
		}
		b.WriteByte('\n')
		io.WriteString(w, b.String())
	}
}

// widths returns the width of each column of rows, as align pads them:
// the widest cell of the column.
func widths(rows [][]string) []int {
	var out []int
	for _, row := range rows {
		for j, cell := range row {
			if j == len(out) {
				out = append(out, 0)
			}
			out[j] = max(out[j], width(cell))
		}
	}
	return out
}

// split cuts a matrix wider than limit columns, as align writes it, into
// parts of whole columns that fit, each with the first column; one part,
// the matrix, when it fits or limit is 0.
func split(rows [][]string, limit int) [][][]string {
	w := widths(rows)
	if limit <= 0 || len(w) < 3 {
		return [][][]string{rows}
	}
	var parts [][][]string
	for from := 1; from < len(w); {
		// The first column and at least one more; each padded by two
		// but the last.
		to, used := from+1, w[0]+2+w[from]
		for to < len(w) && used+2+w[to] <= limit {
			used += 2 + w[to]
			to++
		}
		part := make([][]string, len(rows))
		for i, row := range rows {
			part[i] = append([]string{row[0]}, row[from:min(to, len(row))]...)
		}
		parts = append(parts, part)
		from = to
	}
	return parts
}

// width is how many columns s takes in a terminal.
func width(s string) int {
	n := 0
	for _, c := range s {
		n++
		if wide(c) {
			n++
		}
	}
	return n
}

// wide reports whether c takes two columns: Chinese characters, and the
// full-width punctuation that goes with them.
func wide(c rune) bool {
	return unicode.Is(unicode.Han, c) || (c >= 0x3000 && c <= 0x303f) || (c >= 0xff01 && c <= 0xff60)
}
