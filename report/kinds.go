package report

import (
	"cmp"
	"slices"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// A report may hold the matrices of several kinds of locks (lockcheck
// without -kind): each Result says its kind, and every format writes one
// matrix per kind, in a section whose title names it, with one summary
// for them all.

// kind is r's kind: a result that says none is a mutex's (peercheck's, a
// run saved before results said their kind).
func (r Result) kind() strategy.Kind { return cmp.Or(r.Kind, strategy.Mutex) }

// Kinds returns the kinds of the report's results, in the order of their
// first result; a result that says no kind is a mutex's.
func (rep *Report) Kinds() []strategy.Kind {
	var out []strategy.Kind
	for _, r := range rep.Results {
		if k := r.kind(); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// Of returns the part of rep that is about kind k: its results of that
// kind, and the changes between runs of their columns. The rest (the
// server, the date, the sources) is rep's.
func (rep *Report) Of(k strategy.Kind) *Report {
	part := *rep
	part.Results, part.Changes = nil, nil
	var columns []string
	for _, r := range rep.Results {
		if r.kind() == k {
			part.Results = append(part.Results, r)
			if !slices.Contains(columns, r.Strategy) {
				columns = append(columns, r.Strategy)
			}
		}
	}
	for _, c := range rep.Changes {
		if slices.Contains(columns, c.Strategy) {
			part.Changes = append(part.Changes, c)
		}
	}
	return &part
}

// parts returns the report's matrices, one per kind, in order: rep
// itself when it has one kind or none.
func (rep *Report) parts() []*Report {
	if len(rep.Kinds()) < 2 {
		return []*Report{rep}
	}
	var out []*Report
	for _, k := range rep.Kinds() {
		out = append(out, rep.Of(k))
	}
	return out
}

// The names of the kinds, as the titles of their matrices read.
var (
	mKindTitle = map[strategy.Kind]*msg.Def{
		strategy.Mutex:     msg.Define("report.kind-mutex", nil, "Mutexes"),
		strategy.ReadWrite: msg.Define("report.kind-read-write", nil, "Read-write locks"),
		strategy.Semaphore: msg.Define("report.kind-semaphore", nil, "Semaphores"),
	}
	// mKindHeading heads a kind's matrix in text and Markdown: its name,
	// how many columns and properties.
	mKindHeading = msg.Define("report.kind-heading", msg.K(msg.Text, msg.Count, msg.Count),
		"{0}: {1} {1|column|columns}, {2} {2|property|properties}")
	// The HTML page's title: of one kind, or of several.
	mHTMLKindTitle = map[strategy.Kind]*msg.Def{
		strategy.Mutex:     msg.Define("report.html-title-mutex", nil, "locklab: the verdict matrix of the mutexes"),
		strategy.ReadWrite: msg.Define("report.html-title-read-write", nil, "locklab: the verdict matrix of the read-write locks"),
		strategy.Semaphore: msg.Define("report.html-title-semaphore", nil, "locklab: the verdict matrix of the semaphores"),
	}
	mHTMLKindsTitle = msg.Define("report.html-title-kinds", msg.K(msg.Count), "locklab: the verdict matrices of {0} kinds of locks")
	// mHTMLRunKind is what ran of one kind, in the page's header.
	mHTMLRunKind = msg.Define("report.html-run-kind", msg.K(msg.Text, msg.Count, msg.Count, msg.Count),
		"{0}: {1} × {2} = {3}")
	mHTMLRunKindNext = msg.Define("report.html-run-kind-next", msg.K(msg.Text, msg.Text), "{0}; {1}")
	mHTMLRunKinds    = msg.Define("report.html-run-kinds", msg.K(msg.Text, msg.Text, msg.Count, msg.Duration),
		"{0}; checks, columns × properties: {1}; {2} in all, in {3}")
)

// kindTitle names kind k, as its matrix's title reads ("Mutexes"); a kind
// the report does not know reads as it is.
func (t tr) kindTitle(k strategy.Kind) string {
	if d, ok := mKindTitle[k]; ok {
		return t.say(d)
	}
	return string(k)
}

// kindHeading is the line that heads k's matrix, part, in text and
// Markdown.
func (t tr) kindHeading(part *Report, k strategy.Kind) string {
	return t.say(mKindHeading, t.kindTitle(k), len(part.Strategies()), len(part.Properties()))
}

// htmlTitle is the page's title: the verdict matrix of its kind, or the
// matrices of its kinds.
func (rep *Report) htmlTitle(t tr) string {
	kinds := rep.Kinds()
	switch {
	case len(kinds) > 1:
		return t.say(mHTMLKindsTitle, len(kinds))
	case len(kinds) == 1 && mHTMLKindTitle[kinds[0]] != nil:
		return t.say(mHTMLKindTitle[kinds[0]])
	}
	return t.say(mHTMLTitle)
}
