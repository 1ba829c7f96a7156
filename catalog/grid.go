package catalog

import (
	"bytes"
	_ "embed"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
)

// GridFile is where the declared grid lives, from the repository's root:
// lockcheck -update, peercheck -update and go test ./catalog -update
// rewrite it.
const GridFile = "catalog/verdicts.txt"

//go:embed verdicts.txt
var gridText string

// Outside are the grid's columns that are declared outside this package:
// the peers (module peers), redis-py's Lock and the PHP frameworks' locks
// (package recipes). A column of the grid is one of the catalog's
// strategies or one of these.
var Outside = []string{"redsync", "redislock", "goredislock", "go-zero", "go-zero-shared", "rueidislock", "rueidislock-km1", "redis-py", "symfony-lock", "symfony-lock-store-ttl", "laravel", "laravel-seconds"}

// NotDeclared is the cell of a property a column is not checked on (the
// topology properties for a program run through package recipes).
const NotDeclared = "-"

// Grid is the declared verdict of every column on every property, shaped
// like lockcheck's matrix: one column per strategy, one row per property.
type Grid struct {
	// Columns are the columns in the file's order.
	Columns []string
	cells   map[string]map[locktest.Property]locktest.Verdict
	// kind is the kind of lock the grid declares: a mutex's (zero), or
	// a read-write lock's or a semaphore's (KindGridFile), each a grid
	// of its own properties and columns.
	kind strategy.Kind
}

// rows are the properties of g's kind, in the suite's order.
func (g *Grid) rows() []locktest.Property {
	if g.kind == "" || g.kind == strategy.Mutex {
		return locktest.AllProperties()
	}
	return locktest.KindProperties(g.kind)
}

// file is where g's grid lives, from the repository's root.
func (g *Grid) file() string {
	if g.kind == "" || g.kind == strategy.Mutex {
		return GridFile
	}
	return KindGridFile(g.kind)
}

var declared = sync.OnceValues(func() (*Grid, error) { return ParseGrid(gridText) })

// Declared returns the grid of GridFile, as embedded in the build. It
// panics when the file does not parse (an unknown column or property, a
// malformed row), which TestGrid rules out; a missing column or row
// parses.
func Declared() *Grid {
	g, err := declared()
	if err != nil {
		panic(err)
	}
	return g
}

// Declare returns e with its column of the grid of GridFile: Expect, not
// strict, and Missing, the properties the column declares nothing for
// (all of them when the grid has no such column yet).
func Declare(e Entry) Entry {
	g := Declared()
	e.Expect, _ = g.Expect(e.Name)
	e.Missing = g.Missing(e.Name)
	return e
}

// Missing returns the properties for which g declares nothing in column,
// in the suite's order: every property when g has no such column, a
// property without a row of its own, a cell NotDeclared.
func (g *Grid) Missing(column string) []locktest.Property {
	var out []locktest.Property
	for _, p := range g.rows() {
		if g.Verdict(column, p) == "" {
			out = append(out, p)
		}
	}
	return out
}

// Undeclared returns the columns of es and the properties of props
// between which the grid declares nothing (Entry.Missing): what -update
// must write before a run can compare its verdicts with the declared
// ones. Both are nil when every cell is declared.
func Undeclared(es []Entry, props []locktest.Property) (columns []string, rows []locktest.Property) {
	for _, e := range es {
		for _, p := range props {
			if !slices.Contains(e.Missing, p) {
				continue
			}
			if !slices.Contains(columns, e.Name) {
				columns = append(columns, e.Name)
			}
			if !slices.Contains(rows, p) {
				rows = append(rows, p)
			}
		}
	}
	slices.SortFunc(rows, func(a, b locktest.Property) int {
		return slices.Index(locktest.AllProperties(), a) - slices.Index(locktest.AllProperties(), b)
	})
	return columns, rows
}

// Expect returns the verdicts g declares for column, not strict: breaks
// and n/a in the suite's order of properties. A cell NotDeclared declares
// nothing.
func (g *Grid) Expect(column string) (locktest.Expect, bool) {
	col, ok := g.cells[column]
	if !ok {
		return locktest.Expect{}, false
	}
	var e locktest.Expect
	for _, p := range g.rows() {
		switch col[p] {
		case locktest.Breaks:
			e.Breaks = append(e.Breaks, p)
		case locktest.NotApplicable:
			e.NotApplicable = append(e.NotApplicable, p)
		}
	}
	return e, true
}

// Verdict returns the cell of column and p: "" when the cell is
// NotDeclared or the column is not in g.
func (g *Grid) Verdict(column string, p locktest.Property) locktest.Verdict {
	return g.cells[column][p]
}

// Set makes v the cell of column and p; a new column takes its place
// among the others (the catalog's order, then Outside), its other cells
// NotDeclared.
func (g *Grid) Set(column string, p locktest.Property, v locktest.Verdict) {
	if g.cells == nil {
		g.cells = map[string]map[locktest.Property]locktest.Verdict{}
	}
	if _, ok := g.cells[column]; !ok {
		g.Columns = append(g.Columns, column)
		g.cells[column] = map[locktest.Property]locktest.Verdict{}
		order := knownColumns(g.kind)
		slices.SortStableFunc(g.Columns, func(a, b string) int {
			return rank(order, a) - rank(order, b)
		})
	}
	g.cells[column][p] = v
}

// knownColumns are the columns a grid may have, in the order it keeps
// them: the catalog's strategies in its order, then Outside.
func knownColumns(k strategy.Kind) []string {
	var known []string
	if k != "" && k != strategy.Mutex {
		for _, e := range kindStrategies(k) {
			known = append(known, e.Name)
		}
		return append(known, OutsideKinds[k]...)
	}
	for _, e := range strategies() {
		known = append(known, e.Name)
	}
	return append(known, Outside...)
}

// rank is the place of column in order; an unknown column goes last.
func rank(order []string, column string) int {
	if i := slices.Index(order, column); i >= 0 {
		return i
	}
	return len(order)
}

// Clone returns a copy of g that Set leaves g alone in.
func (g *Grid) Clone() *Grid {
	c := &Grid{Columns: slices.Clone(g.Columns), cells: map[string]map[locktest.Property]locktest.Verdict{}, kind: g.kind}
	for name, col := range g.cells {
		c.cells[name] = map[locktest.Property]locktest.Verdict{}
		for p, v := range col {
			c.cells[name][p] = v
		}
	}
	return c
}

// gridHeader starts the file.
const gridHeader = `# The declared verdicts of every column: the catalog's strategies, the
# peers (module peers), redis-py and the PHP frameworks' locks (package
# recipes); a PHP recipe reads its Go column. Cells: holds, breaks, n/a,
# or - (not checked).
# lockcheck -update, peercheck -update or go test ./catalog -update rewrite
# it from a real run: a change of verdict is a diff of this file.
`

// Format returns g as GridFile holds it: a comment, then the matrix as
// aligned text, a row per property in the suite's order.
func (g *Grid) Format() []byte {
	rows := [][]string{append([]string{"property"}, g.Columns...)}
	for _, p := range g.rows() {
		row := []string{string(p)}
		for _, c := range g.Columns {
			v := string(g.cells[c][p])
			if v == "" {
				v = NotDeclared
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			width[i] = max(width[i], len(cell))
		}
	}
	var b strings.Builder
	if g.kind != "" && g.kind != strategy.Mutex {
		fmt.Fprintf(&b, kindGridHeader, g.kind)
	} else {
		b.WriteString(gridHeader)
	}
	for _, row := range rows {
		var line strings.Builder
		for i, cell := range row {
			if i > 0 {
				line.WriteString("  ")
			}
			fmt.Fprintf(&line, "%-*s", width[i], cell)
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return []byte(b.String())
}

// ParseGrid reads a grid as Format writes it: lines starting with # are
// comments, the first other line names the columns after "property", and
// each row gives a property's cell in every column. An unknown property
// or column (neither a strategy of the catalog nor Outside), a repeated
// one, a row of the wrong length or an unknown cell is an error. A
// property without a row, or a strategy without a column, is declared
// nothing yet (Missing): -update writes them.
func ParseGrid(src string) (*Grid, error) { return parseGrid(src, strategy.Mutex) }

// parseGrid is ParseGrid of a grid of kind k: its columns and rows are
// those of k.
func parseGrid(src string, k strategy.Kind) (*Grid, error) {
	g := &Grid{cells: map[string]map[locktest.Property]locktest.Verdict{}, kind: k}
	known := knownColumns(k)
	seen := map[locktest.Property]bool{}
	header := false
	for n, line := range strings.Split(src, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		at := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", g.file(), n+1, fmt.Sprintf(format, args...))
		}
		if !header {
			if fields[0] != "property" {
				return nil, at("the first line names the columns after %q, not %q", "property", fields[0])
			}
			for _, c := range fields[1:] {
				switch {
				case !slices.Contains(known, c):
					return nil, at("unknown column %q: the columns are %s", c, strings.Join(known, ", "))
				case slices.Contains(g.Columns, c):
					return nil, at("column %q twice", c)
				}
				g.Columns = append(g.Columns, c)
				g.cells[c] = map[locktest.Property]locktest.Verdict{}
			}
			header = true
			continue
		}
		p, err := locktest.ParseProperty(fields[0])
		if err != nil {
			return nil, at("%v", err)
		}
		if !slices.Contains(g.rows(), p) {
			return nil, at("%s is not a property of this grid's locks (%s)", p, k)
		}
		if seen[p] {
			return nil, at("row %s twice", p)
		}
		seen[p] = true
		if len(fields)-1 != len(g.Columns) {
			return nil, at("%s: %d cells for %d columns", p, len(fields)-1, len(g.Columns))
		}
		for i, cell := range fields[1:] {
			switch v := locktest.Verdict(cell); v {
			case locktest.Holds, locktest.Breaks, locktest.NotApplicable:
				g.cells[g.Columns[i]][p] = v
			case NotDeclared:
			default:
				return nil, at("%s, %s: cell %q: want holds, breaks, n/a or %s", p, g.Columns[i], cell, NotDeclared)
			}
		}
	}
	if !header {
		return nil, fmt.Errorf("%s: no line naming the columns", g.file())
	}
	return g, nil
}

// Change is a cell that UpdateGrid changed.
type Change struct {
	Column   string
	Property locktest.Property
	Old, New locktest.Verdict // "" for NotDeclared
}

func (c Change) String() string {
	show := func(v locktest.Verdict) string {
		if v == "" {
			return NotDeclared
		}
		return string(v)
	}
	return fmt.Sprintf("%s %s: %s -> %s", c.Column, c.Property, show(c.Old), show(c.New))
}

// Found are verdicts found by a run, by column and property.
type Found map[string]map[locktest.Property]locktest.Verdict

// Add records verdict v of column on p.
func (f Found) Add(column string, p locktest.Property, v locktest.Verdict) {
	if f[column] == nil {
		f[column] = map[locktest.Property]locktest.Verdict{}
	}
	f[column][p] = v
}

// UpdateGrid reads the grid of GridFile under root, the repository's
// root, puts in it the verdicts found, and writes the file back when a
// cell changed: -update. It returns the cells that changed, in the order
// of the columns' names and the suite's order of properties.
func UpdateGrid(root string, found Found) ([]Change, error) {
	return updateGrid(root, strategy.Mutex, found)
}

// UpdateKindGrid is UpdateGrid of the grid of kind k (KindGridFile).
func UpdateKindGrid(root string, k strategy.Kind, found Found) ([]Change, error) {
	return updateGrid(root, k, found)
}

func updateGrid(root string, k strategy.Kind, found Found) ([]Change, error) {
	g := &Grid{kind: k}
	file := filepath.Join(root, g.file())
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if g, err = parseGrid(string(src), k); err != nil {
		return nil, err
	}
	var changes []Change
	for _, c := range slices.Sorted(maps.Keys(found)) {
		for _, p := range g.rows() {
			v, ok := found[c][p]
			if !ok || v == g.Verdict(c, p) {
				continue
			}
			changes = append(changes, Change{Column: c, Property: p, Old: g.Verdict(c, p), New: v})
			g.Set(c, p, v)
		}
	}
	out := g.Format()
	if _, err := parseGrid(string(out), k); err != nil {
		return nil, err
	}
	if !bytes.Equal(out, src) {
		if err := os.WriteFile(file, out, 0o644); err != nil {
			return nil, err
		}
	}
	return changes, nil
}
