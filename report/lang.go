package report

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest"
)

// Lang is a language the report is written in: its headers and summaries,
// the suite's reasons and notes, and the texts of its diagrams.
// Identifiers, commands, keys, property names, the verdicts (holds,
// breaks, n/a) and the errors of strategies are never translated.
type Lang string

// The languages: English, the default, in which the messages are
// declared, and those of the suite's catalogs (package internal/msg).
const (
	// English is the suite's own language, and the default.
	English = Lang(msg.English)
	// Chinese is for the readers of the Chinese posts the strategies come
	// from: the catalog named zh.
	Chinese Lang = "zh"
)

// Langs returns the languages, the default first: English and every
// language the catalogs have.
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

// tr renders in one language.
type tr struct {
	lang Lang
	// shape writes what changes between runs as placeholders (see
	// Writer.Shape).
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
func (t tr) render(m locktest.Message, value func(history.Arg) string) string {
	if value == nil {
		value = t.shapeValue
	}
	p := msg.Printer{Lang: msg.Lang(t.lang), Value: func(a msg.Arg) string {
		return value(history.Arg{Kind: history.ArgKind(a.Value), Text: a.Text, Client: a.Owner, Ms: a.Ms})
	}}
	return p.Render(m)
}

// shapeValue writes a value outside a diagram: the key as K, a time as
// t0±Δms, anything else as it is; with t.shape, placeholders for what
// changes between runs.
func (t tr) shapeValue(a history.Arg) string {
	if t.shape {
		switch a.Kind {
		case history.ArgTime:
			return "t0±Δ"
		case history.ArgDigest:
			return "SHA"
		case history.ArgLeft:
			return "LEFT"
		case history.ArgServer:
			return "SERVER"
		}
	}
	return a.String()
}

// reason is r's reason in t's language; without a verdict, the message
// its error says (a failure of the suite), then what the error adds to
// it (a stack), or else the error as it is.
func (t tr) reason(r Result) string {
	switch {
	case r.Err != nil && r.Message.IsZero():
		return r.Err.Error()
	case r.Err != nil:
		if detail, ok := strings.CutPrefix(r.Err.Error(), r.Message.String()); ok {
			return t.render(r.Message, nil) + detail
		}
		return r.Err.Error()
	case r.Message.IsZero():
		return ""
	}
	return t.render(r.Message, nil)
}

// sentence ends s with a full stop: the language's after a sentence in
// it, an English one after a sentence left in English (all ASCII: a
// strategy's error).
func (t tr) sentence(s string) string {
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "。") {
		return s
	}
	if strings.IndexFunc(s, func(c rune) bool { return c > unicode.MaxASCII }) < 0 {
		return s + "."
	}
	return t.say(mSentence, s)
}

// say renders the report's own message d with args in t's language.
func (t tr) say(d *msg.Def, args ...any) string {
	return msg.Printer{Lang: msg.Lang(t.lang)}.Render(d.New(args...))
}

// The report's own messages: headers, summaries, and the labels diagrams
// add to the suite's texts.
var (
	mHeader      = msg.Define("report.header", msg.K(msg.Text, msg.Text), "Verdicts on Redis {0}, {1}")
	mColon       = msg.Define("report.colon", msg.K(msg.Text), "{0}:")
	mSentence    = msg.Define("report.sentence", msg.K(msg.Text), "{0}.")
	mProperty    = msg.Define("report.property", nil, "property")
	mVerdict     = msg.Define("report.verdict", nil, "verdict")
	mSaw         = msg.Define("report.saw", nil, "what the suite saw")
	mOneDeclared = msg.Define("report.one-declared", nil, "The verdict is the declared one.")
	mAllDeclared = msg.Define("report.all-declared", msg.K(msg.Count), "All {0} verdicts are the declared ones.")
	mUndeclared  = msg.Define("report.undeclared", msg.K(msg.Count, msg.Count),
		"Checks: {0}, none with a declared verdict; without a verdict (error): {1}.")
	mNoVerdict  = msg.Define("report.no-verdict", msg.K(msg.Text, msg.Text, msg.Text), "{0} / {1}: no verdict: {2}")
	mMismatches = msg.Define("report.mismatches", msg.K(msg.Count, msg.Count),
		"{0} of {1} verdicts {0|is|are} not the declared {0|one|ones} (marked !):")
	mMismatch = msg.Define("report.mismatch", msg.K(msg.Text, msg.Text, msg.Text, msg.Text, msg.Text),
		"{0} / {1}: {2}, declared {3}: {4}")
	mSameRuns = msg.Define("report.same-runs", msg.K(msg.Count), "The verdicts were the same in all {0} runs.")
	mChanged  = msg.Define("report.changed", msg.K(msg.Count, msg.Count),
		"{0} {0|verdict|verdicts} changed between the {1} runs:")
	mChange = msg.Define("report.change", msg.K(msg.Text, msg.Text, msg.Text), "{0} / {1}: {2}")
	mNotes  = msg.Define("report.notes", nil, "Notes, beside the verdicts:")
	mNote   = msg.Define("report.note", msg.K(msg.Text, msg.Text, msg.Count), "{0}: {1} ({2} {2|check|checks})")
	mWhy    = msg.Define("report.why", nil,
		"Why a cell breaks: -trace draws each break (with -strategy S -property P, that one); docs/S.md explains strategy S.")
	mTextTrace    = msg.Define("report.text-trace", msg.K(msg.Text, msg.Text, msg.Text), "{0} / {1}: breaks: {2}")
	mTraceHeading = msg.Define("report.trace-heading", msg.K(msg.Text, msg.Text), "{0}: {1}")
	mScale        = msg.Define("report.scale", msg.K(msg.Clients, msg.Duration, msg.Sub),
		"Time scale: {0} at a granularity of {1} ({2}), every TTL the suite asked for a whole multiple of it.")
	mScaleRest = msg.Define("report.scale-rest", nil, "The other columns ran at 1ms.")
	mScaleFrom = map[ScaleFrom]*msg.Def{
		ScaleColumn: msg.Define("report.scale-column", nil, "declared with its column"),
		ScaleFlag:   msg.Define("report.scale-flag", nil, "set by -granularity"),
		ScaleLock:   msg.Define("report.scale-lock", nil, "the step in which the lock counts TTLs, which it announces"),
	}

	// In diagrams.
	mErrorReply = msg.Define("report.error-reply", msg.K(msg.Text), "error: {0}")
	mOverlap    = msg.Define("report.overlap", msg.K(msg.Text), "overlap: {0}")
	mNewToken   = msg.Define("report.new-token", nil, "(new token)")
	mPush       = msg.Define("report.push", msg.K(msg.Text), "push: {0}")
	mFailed     = map[history.EventKind]*msg.Def{
		history.EvAcquired:  msg.Define("report.acquire-failed", msg.K(msg.Text), "acquire failed: {0}"),
		history.EvReleased:  msg.Define("report.release-failed", msg.K(msg.Text), "release failed: {0}"),
		history.EvRefreshed: msg.Define("report.refresh-failed", msg.K(msg.Text), "refresh failed: {0}"),
	}

	// The page of HTML output.
	mHTMLLang           = msg.Define("report.html-lang", nil, "en")
	mHTMLTitle          = msg.Define("report.html-title", nil, "locklab: the verdict matrix")
	mHTMLServer         = msg.Define("report.html-server", nil, "Server")
	mHTMLRedis          = msg.Define("report.html-redis", nil, "Redis")
	mHTMLDate           = msg.Define("report.html-date", nil, "Date")
	mHTMLScale          = msg.Define("report.html-scale", nil, "Time scale")
	mHTMLRun            = msg.Define("report.html-run", nil, "What ran")
	mHTMLScaleValue     = msg.Define("report.html-scale-value", msg.K(msg.Duration, msg.Duration, msg.Duration, msg.Duration), "a TTL meant to run out {0}, one that must not {1}; waiters try every {2}, until {3} past a TTL")
	mHTMLRunValue       = msg.Define("report.html-run-value", msg.K(msg.Text, msg.Count, msg.Count, msg.Count, msg.Duration), "{0}; checks: {1} × {2} = {3} (columns × properties), in {4}")
	mHTMLRuns           = msg.Define("report.html-runs", msg.K(msg.Count), "{0} runs of the matrix; the matrix shows the last")
	mHTMLLegend         = msg.Define("report.html-legend", nil, "Each cell is the verdict found: ✓ holds, ✗ breaks (a link to its counterexample), – n/a, ⚠ error (no verdict). A cell marked ! is not the verdict declared, which it names.")
	mHTMLFilter         = msg.Define("report.html-filter", nil, "Show only")
	mHTMLOnlyBreaks     = msg.Define("report.html-only-breaks", nil, "properties with a break")
	mHTMLOnlyMismatches = msg.Define("report.html-only-mismatches", nil, "verdicts not as declared")
	mHTMLMatrixLabel    = msg.Define("report.html-matrix-label", nil, "The verdict matrix: properties in rows, strategies in columns")
	mHTMLDeclared       = msg.Define("report.html-declared", msg.K(msg.Text), "declared {0}")
	mHTMLCellTitle      = msg.Define("report.html-cell-title", msg.K(msg.Text, msg.Text, msg.Text, msg.Text), "{0} / {1}: {2}, declared {3}")
	mHTMLBreaks         = msg.Define("report.html-breaks", msg.K(msg.Count), "Breaks ({0}), each with its counterexample")
	mHTMLNoBreaks       = msg.Define("report.html-no-breaks", nil, "No check broke.")
	mHTMLPage           = msg.Define("report.html-page", nil, "Explained on")
	mHTMLBack           = msg.Define("report.html-back", nil, "↑ back to the matrix")
	mHTMLKeyIs          = msg.Define("report.html-key-is", msg.K(msg.Text), "K = {0}")
	mHTMLStartIs        = msg.Define("report.html-start-is", msg.K(msg.Text), "t0 = {0}")
	mHTMLFooter         = msg.Define("report.html-footer", msg.K(msg.Text), "Written by {0}, of locklab. Every diagram is a run on a real Redis, drawn from its typed events.")
	mHTMLSummary        = msg.Define("report.html-summary", nil, "Summary")
)
