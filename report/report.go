// Package report renders what the conformance suite found for a set of
// strategies: the verdict matrix as text, Markdown, JSON or an HTML page,
// and the counterexample of a break as a sequence diagram.
//
// A Report holds one Result per strategy and property, each with the
// verdict the catalog declares for it. The matrix puts strategies in
// columns and properties in rows, in the order the results come in; a cell
// is the verdict (holds, breaks, n/a, or error when the suite reached none),
// followed by "!" when it is not the declared one.
//
// A Writer writes a report, whole in one of the formats (Format) or in
// the parts the docs quote, in English or another language (Writer.Lang,
// see Lang); the verdicts and the JSON form's field names stay as they
// are.
//
// The JSON form is stable; package lockcheck's documentation describes it.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
)

// Result is one property checked on one strategy.
type Result struct {
	// Strategy is the strategy's name, as in package catalog.
	Strategy string
	// Expected is the verdict declared for the property; "" when none is
	// (lockcheck -exec): then any verdict matches, and only an error does
	// not.
	Expected locktest.Verdict
	// Timing is the time scale the check ran at (locktest.Timing's
	// Resolved), which HTML output shows; zero when not known.
	Timing locktest.Timing
	// Kind is the kind of lock the strategy is, whose matrix the result
	// is in; "" reads as strategy.Mutex.
	Kind strategy.Kind
	locktest.Result
}

// Outcome returns the verdict found, or locktest.NoVerdict when there is
// none.
func (r Result) Outcome() locktest.Verdict {
	if r.Err != nil {
		return locktest.NoVerdict
	}
	return r.Result.Verdict
}

// Matches reports whether the verdict found is the one declared, or, when
// none is, whether a verdict was found.
func (r Result) Matches() bool {
	return r.Err == nil && (r.Expected == "" || r.Result.Verdict == r.Expected)
}

// Cell is the matrix cell of r: its verdict, and "!" when it is not the
// declared one.
func (r Result) Cell() string {
	if r.Matches() {
		return string(r.Outcome())
	}
	return string(r.Outcome()) + "!"
}

// Change is a verdict that was not the same on every run.
type Change struct {
	Strategy string
	Property locktest.Property
	// Verdicts holds the verdict of each run, in order.
	Verdicts []locktest.Verdict
}

// Report is what a run of the matrix found.
type Report struct {
	// RedisVersion is the version of the server the checks ran on.
	RedisVersion string
	// Server says which server that was, and Program which command ran
	// the checks (lockcheck, peercheck); HTML output shows them.
	Server, Program string
	// Sources says where each column comes from (catalog.Entry.Sources):
	// the documents of a recipe, the command of an -exec column.
	Sources map[string]string
	// When is when the run started.
	When time.Time
	// Results are the checks, strategy by strategy, in the order they ran.
	Results []Result
	// Runs is how many times the matrix ran (Results are from the last
	// run); Changes lists the verdicts that were not the same every time.
	Runs    int
	Changes []Change
	// ScaleFrom says, for a column that ran at a granularity coarser than a
	// millisecond (Result.Granularity), where that granularity came from.
	ScaleFrom map[string]ScaleFrom
}

// ScaleFrom is where a column's granularity came from.
type ScaleFrom string

// Where a granularity comes from.
const (
	ScaleColumn ScaleFrom = "column" // declared with the column (catalog.Entry.Timing)
	ScaleFlag   ScaleFrom = "flag"   // lockcheck -granularity
	ScaleLock   ScaleFrom = "lock"   // announced by the lock: strategy.Granular, or an -exec program's ready line
)

// scaleGroup is the columns that ran at one coarse granularity, for one
// reason.
type scaleGroup struct {
	strategies []string
	g          time.Duration
	from       ScaleFrom
}

// scales returns the columns that ran at a granularity coarser than a
// millisecond, grouped by granularity and reason, in the order of the
// columns.
func (rep *Report) scales() []scaleGroup {
	var out []scaleGroup
	for _, s := range rep.Strategies() {
		var g time.Duration
		for _, r := range rep.Results {
			if r.Strategy == s {
				g = max(g, r.Granularity)
			}
		}
		if g <= time.Millisecond {
			continue
		}
		from := rep.ScaleFrom[s]
		if from == "" {
			from = ScaleLock
		}
		i := slices.IndexFunc(out, func(sg scaleGroup) bool { return sg.g == g && sg.from == from })
		if i < 0 {
			out = append(out, scaleGroup{g: g, from: from})
			i = len(out) - 1
		}
		out[i].strategies = append(out[i].strategies, s)
	}
	return out
}

// writeScales writes one line for each group of columns that ran at a
// coarser time scale than the default.
func (rep *Report) writeScales(w io.Writer, t tr) {
	n := 0
	for _, sg := range rep.scales() {
		fmt.Fprintln(w, t.say(mScale, sg.strategies, sg.g, mScaleFrom[sg.from].New()))
		n += len(sg.strategies)
	}
	if n > 0 && n < len(rep.Strategies()) {
		fmt.Fprintln(w, t.say(mScaleRest))
	}
}

// Strategies returns the strategies of the report, in the order of their
// first result.
func (rep *Report) Strategies() []string {
	var out []string
	for _, r := range rep.Results {
		if !slices.Contains(out, r.Strategy) {
			out = append(out, r.Strategy)
		}
	}
	return out
}

// Properties returns the properties of the report, in the order of their
// first result.
func (rep *Report) Properties() []locktest.Property {
	var out []locktest.Property
	for _, r := range rep.Results {
		if !slices.Contains(out, r.Property) {
			out = append(out, r.Property)
		}
	}
	return out
}

// Lookup returns the result for strategy s and property p.
func (rep *Report) Lookup(s string, p locktest.Property) (Result, bool) {
	for _, r := range rep.Results {
		if r.Strategy == s && r.Property == p {
			return r, true
		}
	}
	return Result{}, false
}

// Mismatches returns the results whose verdict is not the declared one.
func (rep *Report) Mismatches() []Result {
	var out []Result
	for _, r := range rep.Results {
		if !r.Matches() {
			out = append(out, r)
		}
	}
	return out
}

// Breaks returns the results that broke, with their counterexamples.
func (rep *Report) Breaks() []Result {
	var out []Result
	for _, r := range rep.Results {
		if r.Err == nil && r.Result.Verdict == locktest.Breaks {
			out = append(out, r)
		}
	}
	return out
}

// undeclared reports whether no result has a declared verdict.
func (rep *Report) undeclared() bool {
	for _, r := range rep.Results {
		if r.Expected != "" {
			return false
		}
	}
	return len(rep.Results) > 0
}

// OK reports whether every verdict is the declared one and did not change
// between runs.
func (rep *Report) OK() bool { return len(rep.Mismatches()) == 0 && len(rep.Changes) == 0 }

// cells returns the matrix as a table: a header naming the first column
// in t's language and the strategies, then one row per property, the
// first column its name, then one cell per strategy ("" where nothing
// ran).
func (rep *Report) cells(t tr) table {
	strategies := rep.Strategies()
	out := table{append([]string{t.say(mProperty)}, strategies...)}
	for _, p := range rep.Properties() {
		row := []string{string(p)}
		for _, s := range strategies {
			cell := ""
			if r, ok := rep.Lookup(s, p); ok {
				cell = r.Cell()
			}
			row = append(row, cell)
		}
		out = append(out, row)
	}
	return out
}

// writeText writes the matrix as aligned plain text, then the
// mismatches, the changes between runs and, with wr.Trace, the diagrams,
// their texts as they are rather than escaped for Mermaid (a # or ; reads
// as it is).
func (wr Writer) writeText(w io.Writer, rep *Report) error {
	t := wr.tr()
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "%s\n\n", t.say(mHeader, rep.RedisVersion, rep.When.UTC().Format(time.RFC3339)))
	kinds := rep.Kinds()
	for i, part := range rep.parts() {
		if len(kinds) > 1 {
			fmt.Fprintf(ew, "%s\n\n", t.say(mColon, t.kindHeading(part, kinds[i])))
		}
		if len(part.scales()) > 0 {
			part.writeScales(ew, t)
			fmt.Fprintln(ew)
		}
		for i, cut := range part.cells(t).split(wr.Width) {
			if i > 0 {
				fmt.Fprintln(ew)
			}
			cut.align(ew)
		}
		fmt.Fprintln(ew)
	}
	if wr.Hint && !wr.Trace && len(rep.Breaks()) > 0 {
		fmt.Fprintln(ew, t.say(mWhy))
	}
	summary(ew, rep, "  ", true, t)
	if wr.Trace {
		for _, r := range rep.Breaks() {
			fmt.Fprintf(ew, "\n%s\n", t.say(mTextTrace, r.Strategy, string(r.Property), t.reason(r)))
			ew.WriteString(t.plainMermaid(r.Timeline))
		}
	}
	return ew.err
}

// writeMarkdown writes the matrix as a Markdown table, then the
// mismatches, the changes between runs and, with wr.Trace, the diagrams in
// mermaid code blocks.
func (wr Writer) writeMarkdown(w io.Writer, rep *Report) error {
	t := wr.tr()
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "%s\n\n", t.say(mColon, t.say(mHeader, rep.RedisVersion, rep.When.UTC().Format(time.RFC3339))))
	kinds := rep.Kinds()
	for i, part := range rep.parts() {
		if len(kinds) > 1 {
			fmt.Fprintf(ew, "## %s\n\n", t.kindHeading(part, kinds[i]))
		}
		if len(part.scales()) > 0 {
			part.writeScales(ew, t)
			fmt.Fprintln(ew)
		}
		part.cells(t).markdown(ew)
		fmt.Fprintln(ew)
	}
	several := len(kinds) > 1
	if several {
		fmt.Fprintf(ew, "## %s\n\n", t.say(mHTMLSummary))
	}
	summary(ew, rep, "- ", false, t)
	if wr.Trace {
		if several && len(rep.Breaks()) > 0 {
			fmt.Fprintf(ew, "\n## %s\n", t.say(mHTMLBreaks, len(rep.Breaks())))
		}
		for _, r := range rep.Breaks() {
			fmt.Fprintf(ew, "\n### %s\n\n%s\n\n```mermaid\n%s```\n", t.say(mTraceHeading, r.Strategy, string(r.Property)), t.sentence(t.reason(r)), t.mermaid(r.Timeline))
		}
	}
	return ew.err
}

// summary writes whether the verdicts are the declared ones, and lists
// those that are not and those that changed between runs, each on one
// line; with whole, an error's further lines follow it, indented (what an
// -exec program wrote to standard error).
func summary(w io.Writer, rep *Report, bullet string, whole bool, t tr) {
	mism := rep.Mismatches()
	switch {
	case rep.undeclared():
		fmt.Fprintln(w, t.say(mUndeclared, len(rep.Results), len(mism)))
	case len(rep.Results) == 1 && len(mism) == 0:
		fmt.Fprintln(w, t.say(mOneDeclared))
	case len(mism) == 0:
		fmt.Fprintln(w, t.say(mAllDeclared, len(rep.Results)))
	default:
		fmt.Fprintln(w, t.say(mMismatches, len(mism), len(rep.Results)))
	}
	for _, r := range mism {
		if r.Expected == "" {
			fmt.Fprintln(w, bullet+t.say(mNoVerdict, r.Strategy, string(r.Property), firstLine(t.reason(r))))
		} else {
			fmt.Fprintln(w, bullet+t.say(mMismatch, r.Strategy, string(r.Property), string(r.Outcome()), string(r.Expected), firstLine(t.reason(r))))
		}
		if _, more, ok := strings.Cut(t.reason(r), "\n"); whole && r.Err != nil && ok {
			for l := range strings.Lines(more) {
				fmt.Fprintf(w, "%s  %s\n", strings.Repeat(" ", len(bullet)), strings.TrimSuffix(l, "\n"))
			}
		}
	}
	notes(w, rep, bullet, t)
	if rep.Runs > 1 {
		if len(rep.Changes) == 0 {
			fmt.Fprintln(w, t.say(mSameRuns, rep.Runs))
		} else {
			fmt.Fprintln(w, t.say(mChanged, len(rep.Changes), rep.Runs))
		}
		for _, c := range rep.Changes {
			vs := make([]string, len(c.Verdicts))
			for i, v := range c.Verdicts {
				vs[i] = string(v)
			}
			fmt.Fprintln(w, bullet+t.say(mChange, c.Strategy, string(c.Property), strings.Join(vs, ", ")))
		}
	}
}

// notes writes the notes of the results (keys a lock wrote outside its
// own), each note of a column once, with how many of its checks say it.
func notes(w io.Writer, rep *Report, bullet string, t tr) {
	type note struct{ strategy, text string }
	var order []note
	count := map[note]int{}
	for _, r := range rep.Results {
		for _, m := range r.Notes {
			n := note{r.Strategy, t.render(m, nil)}
			if count[n] == 0 {
				order = append(order, n)
			}
			count[n]++
		}
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, t.say(mNotes))
	for _, n := range order {
		fmt.Fprintln(w, bullet+t.say(mNote, n.strategy, n.text, count[n]))
	}
}

// Changes compares the verdicts of several runs of the same checks and
// returns those that were not the same every time, in the order of the
// first run.
func Changes(runs [][]Result) []Change {
	if len(runs) < 2 {
		return nil
	}
	var out []Change
	for _, first := range runs[0] {
		c := Change{Strategy: first.Strategy, Property: first.Property}
		changed := false
		for _, run := range runs {
			v := locktest.Verdict("missing")
			for _, r := range run {
				if r.Strategy == first.Strategy && r.Property == first.Property {
					v = r.Outcome()
					break
				}
			}
			changed = changed || v != first.Outcome()
			c.Verdicts = append(c.Verdicts, v)
		}
		if changed {
			out = append(out, c)
		}
	}
	return out
}

// JSONReport is the JSON form of a Report; see package lockcheck's
// documentation.
type JSONReport struct {
	// Version is the shape's: JSONVersion. It changes when a field
	// changes its meaning or goes; fields may be added within a version.
	Version      int          `json:"version"`
	RedisVersion string       `json:"redis_version"`
	When         string       `json:"when"`
	Runs         int          `json:"runs,omitempty"`
	Results      []JSONResult `json:"results"`
	Changed      []JSONChange `json:"changed,omitempty"`
}

// JSONVersion is the version of the JSON form this package writes.
const JSONVersion = 2

// JSONResult is the JSON form of a Result: a locktest.Result's own JSON
// (property, verdict, reason, message, error, elapsed_ms, and with a
// timeline key, start_unix_ms and tokens), its reason in the report's
// language, with the strategy, its declared verdict, whether they match,
// and the diagram.
type JSONResult struct {
	Strategy string
	// Kind is the strategy's kind of lock, whose matrix the result is
	// in: strategy.ReadWrite or strategy.Semaphore; "" for a mutex, so
	// that a mutex's result reads as it did before there were other
	// kinds.
	Kind strategy.Kind
	locktest.Result
	Expected  locktest.Verdict
	Match     bool
	Reason    string   // in the report's language; "" without a verdict
	NoteTexts []string // the result's Notes in the report's language
	Mermaid   string   // only with Writer.Trace, for a break
	// ScaleFrom says, for a check that ran coarser than a millisecond
	// (Result.Granularity), where that granularity came from.
	ScaleFrom ScaleFrom
}

// jsonAround are the fields a JSONResult puts around its locktest.Result.
type jsonAround struct {
	Strategy  string           `json:"strategy"`
	Kind      strategy.Kind    `json:"kind,omitempty"`
	Expected  locktest.Verdict `json:"expected"`
	Match     bool             `json:"match"`
	Reason    string           `json:"reason"`
	Notes     []string         `json:"notes,omitempty"`
	Mermaid   string           `json:"mermaid,omitempty"`
	ScaleFrom ScaleFrom        `json:"scale_from,omitempty"`
}

// MarshalJSON writes r as one object: the strategy, the locktest.Result's
// fields with its declared verdict and match after the verdict and the
// reason in the report's language, then the diagram.
func (r JSONResult) MarshalJSON() ([]byte, error) {
	inner, err := json.Marshal(r.Result)
	if err != nil {
		return nil, err
	}
	around, err := json.Marshal(jsonAround{r.Strategy, r.Kind, r.Expected, r.Match, r.Reason, r.NoteTexts, r.Mermaid, r.ScaleFrom})
	if err != nil {
		return nil, err
	}
	var extra map[string]json.RawMessage
	if err := json.Unmarshal(around, &extra); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(inner))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var b bytes.Buffer
	field := func(k string, v json.RawMessage) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('{')
	field("strategy", extra["strategy"])
	if v, ok := extra["kind"]; ok {
		field("kind", v)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		if k == "reason" || k == "notes" {
			v = extra[k] // in the report's language
		}
		field(k, v)
		if k == "verdict" {
			field("expected", extra["expected"])
			field("match", extra["match"])
		}
	}
	for _, k := range []string{"mermaid", "scale_from"} {
		if v, ok := extra[k]; ok {
			field(k, v)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *JSONResult) UnmarshalJSON(b []byte) error {
	var around jsonAround
	if err := json.Unmarshal(b, &around); err != nil {
		return err
	}
	var inner locktest.Result
	if err := json.Unmarshal(b, &inner); err != nil {
		return err
	}
	*r = JSONResult{Strategy: around.Strategy, Kind: around.Kind, Result: inner, Expected: around.Expected, Match: around.Match,
		Reason: around.Reason, NoteTexts: around.Notes, Mermaid: around.Mermaid, ScaleFrom: around.ScaleFrom}
	return nil
}

// JSONChange is the JSON form of a Change.
type JSONChange struct {
	Strategy string             `json:"strategy"`
	Property locktest.Property  `json:"property"`
	Verdicts []locktest.Verdict `json:"verdicts"`
}

// toJSON converts rep to its JSON form; with wr.Trace every break also
// carries its diagram. With wr.Lang, the reasons and the diagrams are in
// that language; nothing else changes.
func toJSON(rep *Report, wr Writer) JSONReport {
	t := wr.tr()
	out := JSONReport{
		Version:      JSONVersion,
		RedisVersion: rep.RedisVersion,
		When:         rep.When.UTC().Format(time.RFC3339),
		Results:      []JSONResult{},
	}
	if rep.Runs > 1 {
		out.Runs = rep.Runs
	}
	for _, r := range rep.Results {
		jr := JSONResult{Strategy: r.Strategy, Result: r.Result, Expected: r.Expected, Match: r.Matches()}
		if k := r.kind(); k != strategy.Mutex {
			// A mutex's result says no kind, as before there were others.
			jr.Kind = k
		}
		jr.Result.Verdict = r.Outcome()
		if r.Granularity > time.Millisecond {
			jr.ScaleFrom = ScaleLock
			if f, ok := rep.ScaleFrom[r.Strategy]; ok {
				jr.ScaleFrom = f
			}
		}
		if r.Err == nil {
			jr.Reason = t.reason(r)
		}
		for _, m := range r.Notes {
			jr.NoteTexts = append(jr.NoteTexts, t.render(m, nil))
		}
		if wr.Trace && jr.Verdict == locktest.Breaks {
			jr.Mermaid = t.mermaid(r.Timeline)
		}
		out.Results = append(out.Results, jr)
	}
	for _, c := range rep.Changes {
		out.Changed = append(out.Changed, JSONChange(c))
	}
	return out
}

// writeJSON writes rep's JSON form, indented.
func (wr Writer) writeJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(wr.JSON(rep))
}

// ReadJSON reads a report as JSON writes it: what a run of lockcheck or
// peercheck with -format json printed, to render again (lockdocs
// -report). The reasons and diagrams written are left: they are derived
// from the messages and timelines.
func ReadJSON(r io.Reader) (*Report, error) {
	var j JSONReport
	if err := json.NewDecoder(r).Decode(&j); err != nil {
		return nil, fmt.Errorf("reading a report as JSON: %w", err)
	}
	if j.Version != JSONVersion {
		return nil, fmt.Errorf("reading a report as JSON: version %d, want %d", j.Version, JSONVersion)
	}
	when, err := time.Parse(time.RFC3339, j.When)
	if err != nil {
		return nil, fmt.Errorf("reading a report as JSON: when: %w", err)
	}
	rep := &Report{RedisVersion: j.RedisVersion, When: when, Runs: max(j.Runs, 1)}
	for _, r := range j.Results {
		rep.Results = append(rep.Results, Result{Strategy: r.Strategy, Kind: r.Kind, Expected: r.Expected, Result: r.Result})
		if r.ScaleFrom != "" {
			if rep.ScaleFrom == nil {
				rep.ScaleFrom = map[string]ScaleFrom{}
			}
			rep.ScaleFrom[r.Strategy] = r.ScaleFrom
		}
	}
	for _, c := range j.Changed {
		rep.Changes = append(rep.Changes, Change(c))
	}
	return rep, nil
}

func verdicts(w io.Writer, rep *Report, strategy string, t tr) {
	fmt.Fprintf(w, "| %s | %s | %s |\n|---|---|---|\n", t.say(mProperty), t.say(mVerdict), t.say(mSaw))
	for _, r := range rep.Results {
		if r.Strategy != strategy {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", r.Property, r.Cell(), strings.ReplaceAll(firstLine(t.reason(r)), "|", "\\|"))
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	_, e.err = e.w.Write(p)
	return len(p), nil
}

func (e *errWriter) WriteString(s string) { e.Write([]byte(s)) }
