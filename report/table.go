package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"
)

// table is the matrix as cells, one row per line, the header first: what
// text and Markdown output lay out.
type table [][]string

// align writes t as columns: each cell but the last of a row padded with
// spaces to the widest of its column, plus two. It is what text/tabwriter
// does with a padding of 2, except that a Chinese character counts as the
// two columns a terminal gives it.
func (t table) align(w io.Writer) {
	widths := t.widths()
	for _, row := range t {
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

// markdown writes t as a Markdown table, its first row the header.
func (t table) markdown(w io.Writer) {
	if len(t) == 0 {
		return
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(t[0], " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(t[0])))
	for _, row := range t[1:] {
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
}

// widths returns the width of each column of t, as align pads them: the
// widest cell of the column.
func (t table) widths() []int {
	var out []int
	for _, row := range t {
		for j, cell := range row {
			if j == len(out) {
				out = append(out, 0)
			}
			out[j] = max(out[j], width(cell))
		}
	}
	return out
}

// split cuts a table wider than limit columns, as align writes it, into
// parts of whole columns that fit, each with the first column; one part,
// t, when it fits or limit is 0.
func (t table) split(limit int) []table {
	w := t.widths()
	if limit <= 0 || len(w) < 3 {
		return []table{t}
	}
	var parts []table
	for from := 1; from < len(w); {
		// The first column and at least one more; each padded by two
		// but the last.
		to, used := from+1, w[0]+2+w[from]
		for to < len(w) && used+2+w[to] <= limit {
			used += 2 + w[to]
			to++
		}
		part := make(table, len(t))
		for i, row := range t {
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
