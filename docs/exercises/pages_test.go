package exercises_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
)

// The pages this package checks, relative to docs/exercises.
var (
	exerciseReadmes = []string{"README.md", "README.zh.md"}
	readingPaths    = []string{"../reading-path.md", "../zh/reading-path.md"}
	// kindsPages are checked for their links only: the read-write locks'
	// and semaphores' page, with its many anchors into itself.
	kindsPages = []string{"../kinds.md", "../zh/kinds.md"}
)

// TestHints checks that each README has a section for each exercise,
// whose "fails on" line names exactly the properties its lock breaks.
func TestHints(t *testing.T) {
	failsLine := regexp.MustCompile(`^\*\*(Fails on:|失败的性质：)\*\*`)
	code := regexp.MustCompile("`([^`]+)`")
	for _, readme := range exerciseReadmes {
		sections := splitSections(t, readme)
		for _, ex := range exercises {
			var found []string
			for heading, body := range sections {
				if strings.Contains(heading, "`"+ex.dir+"`") {
					found = append(found, body)
				}
			}
			if len(found) != 1 {
				t.Errorf("%s: %d sections have %s in their heading, want 1", readme, len(found), ex.dir)
				continue
			}
			var lines []string
			for _, line := range strings.Split(found[0], "\n") {
				if failsLine.MatchString(line) {
					lines = append(lines, line)
				}
			}
			if len(lines) != 1 {
				t.Errorf("%s, %s: %d lines say what fails, want 1", readme, ex.dir, len(lines))
				continue
			}
			var named []locktest.Property
			for _, m := range code.FindAllStringSubmatch(lines[0], -1) {
				named = append(named, locktest.Property(m[1]))
			}
			if !sameProperties(named, ex.fails) {
				t.Errorf("%s, %s: the hint names %v, the lock breaks %v", readme, ex.dir, named, ex.fails)
			}
		}
	}
}

// splitSections returns the level-2 sections of a Markdown file, by
// heading.
func splitSections(t *testing.T, path string) map[string]string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	heading := ""
	for _, line := range strings.Split(string(src), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			heading = h
			continue
		}
		sections[heading] += line + "\n"
	}
	return sections
}

func sameProperties(a, b []locktest.Property) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

var (
	inlineLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]+)\)`)
	refLink    = regexp.MustCompile(`\[([^\]]+)\]\[([^\]]+)\]`)
	refDef     = regexp.MustCompile(`^\[([^\]]+)\]:\s*(\S+)\s*$`)
)

// TestLinks checks every relative link of the exercises' READMEs, of
// the reading paths and of the kinds' pages: the file must exist, and the anchor, if any, must be
// a heading of that file (as GitHub makes anchors of headings).
func TestLinks(t *testing.T) {
	pages := slices.Concat(exerciseReadmes, readingPaths, kindsPages)
	for _, page := range pages {
		lines := readLines(t, page)
		defs := map[string]string{}
		for _, line := range lines {
			if m := refDef.FindStringSubmatch(line); m != nil {
				defs[m[1]] = m[2]
			}
		}
		var targets []string
		for i, line := range lines {
			for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
				targets = append(targets, m[2])
			}
			for _, m := range refLink.FindAllStringSubmatch(line, -1) {
				if _, ok := defs[m[2]]; !ok {
					t.Errorf("%s:%d: [%s][%s]: no definition of [%s]", page, i+1, m[1], m[2], m[2])
				}
			}
		}
		for _, target := range defs {
			targets = append(targets, target)
		}
		for _, target := range targets {
			if err := checkLink(page, target); err != nil {
				t.Errorf("%s: link %s: %v", page, target, err)
			}
		}
	}
}

// checkLink checks one link target of page.
func checkLink(page, target string) error {
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		return nil
	}
	path, anchor, _ := strings.Cut(target, "#")
	file := page
	if path != "" {
		file = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
	}
	if _, err := os.Stat(file); err != nil {
		return err
	}
	if anchor == "" {
		return nil
	}
	if !strings.HasSuffix(file, ".md") {
		return fmt.Errorf("an anchor into %s, which is not Markdown", file)
	}
	anchors, err := headingAnchors(file)
	if err != nil {
		return err
	}
	if !anchors[anchor] {
		return fmt.Errorf("%s has no heading with the anchor #%s", file, anchor)
	}
	return nil
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown file: lower case, spaces made hyphens, punctuation dropped,
// and -1, -2... after a repeated one.
func headingAnchors(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<22)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		text := strings.TrimLeft(line, "#")
		if level := len(line) - len(text); level == 0 || level > 6 || !strings.HasPrefix(text, " ") {
			continue
		}
		a := slug(inlineLink.ReplaceAllString(text, "$1"))
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors, sc.Err()
}

func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(src), "\n")
}

// A pathRow is one row of a reading path's table of a document.
type pathRow struct {
	where    string   // file:line
	sections []string // the post's words, in bold, of the first cell
	pkg      string   // the package the row names, or ""
	breaks   []locktest.Property
}

// The columns of a document's table.
const (
	colSection = iota
	colSays
	colPackage
	colBreaks
	colDiagram
	colWrong
	columns
)

var (
	bold      = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	pageLink  = regexp.MustCompile(`\]\((?:\.\./)?([a-z0-9-]+)\.md\)`)
	linkTexts = regexp.MustCompile(`\[([a-z-]+)\]`)
)

// TestReadingPath checks the tables of the reading paths against the
// catalog, whose verdicts the catalog's tests check on a real Redis: a
// row that names a package lists exactly the properties that package
// breaks. The English and the Chinese page have the same rows, quoting
// the same section headings and naming the same packages.
func TestReadingPath(t *testing.T) {
	props := locktest.Properties()
	var pages [][][]pathRow
	for _, page := range readingPaths {
		tables := docTables(t, page)
		if len(tables) != 5 {
			t.Errorf("%s: %d tables of %d columns, want one for each of the documents 000 to 004", page, len(tables), columns)
		}
		var rows [][]pathRow
		for _, table := range tables {
			var out []pathRow
			for _, r := range table {
				row := pathRow{where: r.where}
				for _, m := range bold.FindAllStringSubmatch(r.cells[colSection], -1) {
					row.sections = append(row.sections, m[1])
				}
				if len(row.sections) == 0 {
					t.Errorf("%s: the first cell quotes no section heading in bold", r.where)
				}
				pkgs := pageLink.FindAllStringSubmatch(r.cells[colPackage], -1)
				if len(pkgs) > 1 {
					t.Errorf("%s: %d packages in one row: give each its own row", r.where, len(pkgs))
				}
				if len(pkgs) > 0 {
					row.pkg = pkgs[0][1]
				}
				for _, m := range linkTexts.FindAllStringSubmatch(r.cells[colBreaks], -1) {
					if p := locktest.Property(m[1]); slices.Contains(props, p) {
						row.breaks = append(row.breaks, p)
					}
				}
				checkRow(t, row)
				out = append(out, row)
			}
			rows = append(rows, out)
		}
		pages = append(pages, rows)
	}
	if len(pages) != 2 || len(pages[0]) != len(pages[1]) {
		return
	}
	for i := range pages[0] {
		en, zh := pages[0][i], pages[1][i]
		if len(en) != len(zh) {
			t.Errorf("table %d: %d rows in English, %d in Chinese", i+1, len(en), len(zh))
			continue
		}
		for j := range en {
			if !slices.Equal(en[j].sections, zh[j].sections) || en[j].pkg != zh[j].pkg {
				t.Errorf("%s and %s differ: sections %q and %q, packages %q and %q",
					en[j].where, zh[j].where, en[j].sections, zh[j].sections, en[j].pkg, zh[j].pkg)
			}
		}
	}
}

// checkRow checks one row's package and its breaks.
func checkRow(t *testing.T, row pathRow) {
	t.Helper()
	if row.pkg == "" {
		if len(row.breaks) > 0 {
			t.Errorf("%s: breaks %v, but no package", row.where, row.breaks)
		}
		return
	}
	entry, ok := catalog.Lookup(row.pkg)
	if !ok {
		// A package the matrix does not run yet: it must exist, and its
		// row can only describe what its page says.
		if _, err := os.Stat(filepath.Join("..", "..", "strategy", row.pkg)); err != nil {
			t.Errorf("%s: %s is neither in the catalog nor a package of strategy/", row.where, row.pkg)
		}
		if len(row.breaks) > 0 {
			t.Errorf("%s: %s is not in the catalog, whose verdicts come from real runs: name no property as broken", row.where, row.pkg)
		}
		return
	}
	// The rows follow the documents, which know one Redis only: the
	// topology properties, which every lock on one Redis breaks alike, are
	// not theirs to list.
	var breaks []locktest.Property
	for _, p := range entry.Expect.Breaks {
		if slices.Contains(locktest.Properties(), p) {
			breaks = append(breaks, p)
		}
	}
	if !sameProperties(row.breaks, breaks) {
		t.Errorf("%s: %s breaks %v, the row says %v", row.where, row.pkg, breaks, row.breaks)
	}
}

// A tableRow is one row of a Markdown table, split into cells.
type tableRow struct {
	where string
	cells []string
}

// docTables returns the tables of page that have the columns of a
// document's table, without their header and separator rows.
func docTables(t *testing.T, page string) [][]tableRow {
	t.Helper()
	lines := readLines(t, page)
	var tables [][]tableRow
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") || !strings.HasPrefix(lines[i+1], "|---") {
			continue
		}
		header := splitRow(lines[i])
		var table []tableRow
		j := i + 2
		for ; j < len(lines) && strings.HasPrefix(lines[j], "|"); j++ {
			cells := splitRow(lines[j])
			where := fmt.Sprintf("%s:%d", page, j+1)
			if len(cells) != len(header) {
				t.Errorf("%s: %d cells, the header has %d", where, len(cells), len(header))
				continue
			}
			table = append(table, tableRow{where: where, cells: cells})
		}
		if len(header) == columns {
			tables = append(tables, table)
		}
		i = j
	}
	return tables
}

// splitRow splits a table row into its cells; an escaped \| stays in its
// cell.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cell.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}
