package report

import (
	"io"

	"github.com/locklab/locklab/history"
)

// A Writer writes a Report, whole (Write, for a command's output; JSON,
// its JSON form as a value) or in the parts the docs quote
// (MarkdownTable, Scales, Verdicts, Reason, Sentence, Mermaid), in one
// language. The zero Writer writes text in English.
type Writer struct {
	// Format is the whole report's format (Formats): text, the default
	// when "", aligned for a terminal; markdown; json, the stable form
	// that package lockcheck's documentation describes; html, one
	// self-contained page. The tables of the parts (MarkdownTable,
	// Verdicts) are Markdown whatever it says.
	Format Format
	// Lang is the language of the headers, summaries, reasons and
	// diagrams; "" is English. In JSON only the reasons and diagrams are
	// translated.
	Lang Lang
	// Shape writes what changes from one run of the same scenario to the
	// next as placeholders: times (t0±Δ), how many times a loop ran and
	// when, scripts' digests (SHA), the time a key had left (LEFT; -1 and
	// -2 stay) and what a server says of itself (SERVER); clock readings
	// in a row, which clients take in either order before the scheduler
	// gates their first command, are drawn in the clients' order. Two
	// runs that did the same things write the same text, which is how
	// the docs tell a changed block from a later run.
	Shape bool
	// Trace adds the counterexample of every break as a sequence
	// diagram.
	Trace bool
	// Width is the most columns text output's matrix may take, 0 for no
	// limit: a wider matrix is printed in parts, one under the other, each
	// with the property column and as many strategies as fit (one at
	// least).
	Width int
	// Pages, when set, links a strategy to its page ("" for none): HTML
	// output links each column and each break to it.
	Pages func(strategy string) string
	// Hint adds to text output, when some cell breaks and Trace is off, a
	// line under the matrix on how to see why: lockcheck's -trace, and
	// the strategy's page under docs/.
	Hint bool
}

// Write writes rep to w in wr.Format.
func (wr Writer) Write(w io.Writer, rep *Report) error {
	write, err := writerOf(wr.Format)
	if err != nil {
		return err
	}
	return write(wr, w, rep)
}

// JSON returns the JSON form of rep, which Write writes in format json.
func (wr Writer) JSON(rep *Report) JSONReport { return toJSON(rep, wr) }

// MarkdownTable writes the matrix alone as a Markdown table.
func (wr Writer) MarkdownTable(w io.Writer, rep *Report) { rep.cells(wr.tr()).markdown(w) }

// Scales writes one line for each group of columns of rep that ran at a
// time scale coarser than a millisecond: which, at what granularity and
// why; nothing when every column ran at the default.
func (wr Writer) Scales(w io.Writer, rep *Report) { rep.writeScales(w, wr.tr()) }

// Verdicts writes one strategy's verdicts as a Markdown table: property,
// verdict, and the suite's reason.
func (wr Writer) Verdicts(w io.Writer, rep *Report, strategy string) {
	verdicts(w, rep, strategy, wr.tr())
}

// Reason returns r's reason, or its error as it is when it has one.
func (wr Writer) Reason(r Result) string { return wr.tr().reason(r) }

// Sentence ends s with the language's full stop.
func (wr Writer) Sentence(s string) string { return wr.tr().sentence(s) }

// Mermaid renders a timeline as a Mermaid sequence diagram, ending with a
// newline:
//
//   - the participants are the clients (A, B, C, ... in name order) and
//     Redis, on the right;
//   - a command is an arrow from its client to Redis, its reply a dashed
//     arrow back;
//   - clock readings, lock calls returning, crashes, the critical section
//     (enter, leave, overlap) and the scenario's notes are notes over the
//     client, or over everyone; a client inside the critical section is
//     also shown active;
//   - a client's failed attempts in a row (its commands and clock readings,
//     each attempt ended by an EvNotAcquired) are drawn once inside a loop
//     labelled ×N with the time they spanned: the attempt most of them
//     made, from the first that made it; an attempt that went otherwise
//     there (one that met the key expiring midway) counts in N but is not
//     drawn, so that the diagram of a waiter does not depend on when its
//     polls met the expiry;
//   - a run of identical consecutive events, or of identical groups of
//     events such as a waiter's retries, is drawn once inside a loop
//     labelled ×N with the time it spanned; values that change from one
//     repetition to the next read first…last;
//   - the values are drawn as the suite typed them when it recorded them
//     (history.Arg), whatever the lock's format: the run's lock key reads
//     K, a time t0±Δms, a script's digest its first 7 digits, and the
//     tokens tokA, tokB, ... after the client that wrote them, in the
//     order they are drawn (tokA2 for A's second); a token that is new on
//     every repetition of a loop reads (new token).
//
// Characters that Mermaid would misread (; # " < >) are written as
// entity codes.
func (wr Writer) Mermaid(tl []history.Event) string { return wr.tr().mermaid(tl) }

// Mermaid is Writer{}.Mermaid: tl's diagram in English.
func Mermaid(tl []history.Event) string { return Writer{}.Mermaid(tl) }

// tr is the translator that writes in wr's language, and shape.
func (wr Writer) tr() tr {
	t := wr.Lang.tr()
	t.shape = wr.Shape
	return t
}
