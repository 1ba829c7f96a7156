package docblock

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
)

// A run that docs are written from may hold the checks of every kind of
// lock: the mutexes on their properties, the read-write locks and the
// semaphores on theirs. The blocks that show a whole table, matrix,
// properties and grid, take kind=mutex (the default), kind=read-write or
// kind=semaphore, and show that kind's rows only.

// The words of a grid block.
var (
	mGrid = msg.Define("docblock.grid", msg.K(msg.Text, msg.Text, msg.Text),
		"The declared verdicts, `{0}`: `{1}` writes nothing unless its run of {2} finds them. A cell `-` is not checked.")
	// mGridOthers says who checks the columns the run does not have: the
	// programs of package recipes.
	mGridOthers = msg.Define("docblock.grid-others", msg.K(msg.Text, msg.Text),
		"`{1}` checks {0}, run as programs.")
)

// blockKind returns the kind of lock block b shows: its kind=, a mutex
// when it has none.
func blockKind(b Block) (strategy.Kind, error) {
	k := strategy.Kind(b.Attrs["kind"])
	switch k {
	case "":
		return strategy.Mutex, nil
	case strategy.Mutex, strategy.ReadWrite, strategy.Semaphore:
		return k, nil
	}
	return "", fmt.Errorf("%s: kind=%q: want mutex, read-write or semaphore", b.Name(), k)
}

// kindProperties are the rows of kind k's tables, in the suite's order.
func kindProperties(k strategy.Kind) []locktest.Property {
	if k == strategy.Mutex {
		return locktest.AllProperties()
	}
	return locktest.KindProperties(k)
}

// ofKind returns rep with only the checks of kind k's properties.
func ofKind(rep *report.Report, k strategy.Kind) *report.Report {
	props := kindProperties(k)
	sub := *rep
	sub.Results, sub.Changes = nil, nil
	for _, r := range rep.Results {
		if slices.Contains(props, r.Property) {
			sub.Results = append(sub.Results, r)
		}
	}
	for _, c := range rep.Changes {
		if slices.Contains(props, c.Property) {
			sub.Changes = append(sub.Changes, c)
		}
	}
	return &sub
}

// grid writes the declared grid of b's kind (catalog.KindGridFile) as a
// Markdown table, every column of it: those of the run, whose verdicts
// must be the grid's, and those of package recipes' programs, which the
// run does not have.
func (s Style) grid(w io.Writer, b Block, rep *report.Report, lang report.Lang) error {
	k, err := blockKind(b)
	if err != nil {
		return err
	}
	if k == strategy.Mutex {
		return fmt.Errorf("%s: the mutexes' grid is the matrix block's: want kind=read-write or kind=semaphore", b.Name())
	}
	g := catalog.DeclaredKind(k)
	var run, others []string
	for _, c := range g.Columns {
		if slices.Contains(catalog.OutsideKinds[k], c) {
			others = append(others, c)
			continue
		}
		run = append(run, c)
		for _, p := range locktest.KindProperties(k) {
			r, ok := rep.Lookup(c, p)
			want := cmpVerdict(g.Verdict(c, p))
			if !ok {
				return fmt.Errorf("%s: the run has no check of %s on %s", b.Name(), c, p)
			}
			if got := r.Cell(); got != want {
				return fmt.Errorf("%s: %s on %s: the run found %s, %s declares %s", b.Name(), c, p, got, catalog.KindGridFile(k), want)
			}
		}
	}
	fmt.Fprintf(w, "| %s | %s |\n|---|%s\n", say(lang, mColProperty), strings.Join(g.Columns, " | "), strings.Repeat("---|", len(g.Columns)))
	for _, p := range locktest.KindProperties(k) {
		cells := []string{string(p)}
		for _, c := range g.Columns {
			cells = append(cells, cmpVerdict(g.Verdict(c, p)))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintf(w, "\n_%s_\n", say(lang, mGrid, catalog.KindGridFile(k), s.Make, strings.Join(run, ", ")))
	if len(others) > 0 {
		fmt.Fprintf(w, "\n_%s_\n", say(lang, mGridOthers, strings.Join(others, ", "), "go test -run TestKinds ./recipes"))
	}
	return nil
}

// cmpVerdict is the cell of a declared verdict: v, or catalog.NotDeclared.
func cmpVerdict(v locktest.Verdict) string {
	if v == "" {
		return catalog.NotDeclared
	}
	return string(v)
}
