package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/docblock"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The read-write locks' and semaphores' pages, docs/kinds.md and its
// Chinese edition, are prose around generated blocks: the grids, the
// tables of properties, each column's verdicts and each break's trace.
// What the prose says of a verdict is checked against the grids here.

// kindsPages are the pages of the kinds, from the repository's root.
var kindsPages = []string{"docs/kinds.md", "docs/zh/kinds.md"}

// lockKinds are the kinds of lock that have grids of their own.
var lockKinds = []strategy.Kind{strategy.ReadWrite, strategy.Semaphore}

// kindColumns returns each column of the kinds' grids with its kind.
func kindColumns() map[string]strategy.Kind {
	out := map[string]strategy.Kind{}
	for _, k := range lockKinds {
		for _, c := range catalog.DeclaredKind(k).Columns {
			out[c] = k
		}
	}
	return out
}

// claim is a verdict the prose gives a property, where it gives it.
type claim struct {
	line     int
	column   string // the column of the section it is in; "" outside one
	property locktest.Property
	verdict  string // holds, breaks, n/a; or the words of another
}

// proseClaims returns the verdicts the prose of a page gives properties:
// a property's name (in backquotes or not) beside holds, breaks or n/a,
// or, in Chinese, beside a word that says a verdict (成立, 打破, 满足),
// which the page must write as the verdict itself. Generated blocks and
// code blocks are not prose. Each claim is in the section of the last
// heading of level 2 or 3 above it, whose column is the heading's first
// word when that is a column of a kind's grid.
func proseClaims(src string) []claim {
	var names []string
	for _, p := range slices.Concat(locktest.AllProperties(), locktest.KindProperties(strategy.ReadWrite), locktest.KindProperties(strategy.Semaphore)) {
		names = append(names, regexp.QuoteMeta(string(p)))
	}
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) }) // the longest name first
	prop := "`?(" + strings.Join(names, "|") + ")`?"
	verdict := `(holds|breaks|n/a|成立|不成立|被打破|打破|不满足|满足)`
	after := regexp.MustCompile(`(?:^|[^\w-])` + prop + `(?:\s*(?:is|判定为|为|：|:)?\s*)` + verdict)
	before := regexp.MustCompile(verdict + `了?\s*` + prop + `(?:[^\w-]|$)`)
	columns := kindColumns()
	var out []claim
	column, inBlock, inCode := "", false, false
	for i, line := range strings.Split(src, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inCode = !inCode
			continue
		case inCode:
			continue
		case strings.HasPrefix(line, "<!-- lockcheck:"):
			inBlock = true
			continue
		case strings.HasPrefix(line, "<!-- /lockcheck:"):
			inBlock = false
			continue
		case inBlock:
			continue
		}
		if h, ok := strings.CutPrefix(line, "## "); ok || strings.HasPrefix(line, "### ") {
			if !ok {
				h = strings.TrimPrefix(line, "### ")
			}
			first := strings.FieldsFunc(h, func(r rune) bool { return r == ' ' || r == ':' || r == '：' })
			column = ""
			if _, isColumn := columns[first[0]]; len(first) > 0 && isColumn {
				column = first[0]
			}
			continue
		}
		for _, m := range after.FindAllStringSubmatch(line, -1) {
			out = append(out, claim{line: i + 1, column: column, property: locktest.Property(m[1]), verdict: m[2]})
		}
		for _, m := range before.FindAllStringSubmatch(line, -1) {
			out = append(out, claim{line: i + 1, column: column, property: locktest.Property(m[2]), verdict: m[1]})
		}
	}
	return out
}

// checkClaims returns what is wrong with the claims of a page: a verdict
// outside a column's section, of a property its kind's grid has no row
// for, written in other words than the verdict's, or not the grid's.
func checkClaims(claims []claim) []string {
	columns := kindColumns()
	var out []string
	for _, c := range claims {
		at := fmt.Sprintf("line %d: %s %s", c.line, c.property, c.verdict)
		switch {
		case c.column == "":
			out = append(out, at+": a verdict outside a column's section: say it in the section of the column, or let a generated block say it")
		case !slices.Contains([]string{"holds", "breaks", "n/a"}, c.verdict):
			out = append(out, at+": write the verdict as the grid does, holds, breaks or n/a")
		case !slices.Contains(locktest.KindProperties(columns[c.column]), c.property):
			out = append(out, fmt.Sprintf("%s: %s's grid (%s) has no row %s", at, c.column, catalog.KindGridFile(columns[c.column]), c.property))
		default:
			if want := catalog.DeclaredKind(columns[c.column]).Verdict(c.column, c.property); string(want) != c.verdict {
				out = append(out, fmt.Sprintf("%s: %s declares %s %s on %s", at, catalog.KindGridFile(columns[c.column]), c.column, cmpCell(want), c.property))
			}
		}
	}
	return out
}

// cmpCell is a grid's cell as the file writes it.
func cmpCell(v locktest.Verdict) string {
	if v == "" {
		return catalog.NotDeclared
	}
	return string(v)
}

// propertyCounts finds the counts of properties a page's prose states,
// which a grid's next row would make wrong: "three read-write
// properties", "五个性质".
var propertyCounts = regexp.MustCompile(`(?i)\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+)\s+(?:[\w'-]+\s+){0,3}?propert(?:y|ies)\b|[一二两三四五六七八九十\d]+\s*个[^，。；、\s]{0,8}性质`)

// TestKindsPagesTrue: what the prose of the kinds' pages says of a
// verdict is the grids' (see proseClaims), and it states no count of
// properties; each page has, for each kind, the table of its properties
// and its grid as generated blocks, and its table of the reports each
// property answers has a row for every property of the kinds.
func TestKindsPagesTrue(t *testing.T) {
	docs := committedDocs(t)
	for _, page := range kindsPages {
		src, ok := docs[page]
		require.True(t, ok, "%s is one of the docs", page)
		claims := proseClaims(src)
		assert.NotEmpty(t, claims, "%s: the verdicts its sections give", page)
		for _, e := range checkClaims(claims) {
			t.Errorf("%s: %s", page, e)
		}
		prose := withoutBlocks(src)
		for _, m := range propertyCounts.FindAllString(prose, -1) {
			t.Errorf("%s: %q: a count of properties in the prose, which the next row of a grid makes wrong: let a generated block show them", page, m)
		}
		blocks, err := style.Parse(src)
		require.NoError(t, err, page)
		for _, k := range lockKinds {
			for _, kind := range []string{"properties", "grid"} {
				assert.True(t, slices.ContainsFunc(blocks, func(b docblock.Block) bool { return b.Kind == kind && b.Attrs["kind"] == string(k) }),
					"%s has a %s block of kind=%s", page, kind, k)
			}
		}
		var want []locktest.Property
		for _, k := range lockKinds {
			want = append(want, locktest.KindProperties(k)...)
		}
		assert.ElementsMatch(t, want, bugsTable(prose), "%s: the table of the reports each property answers has a row for each property of the kinds, and no other", page)
	}
}

// bugsTable returns the properties of the rows of a page's table of the
// reports each property answers: the table whose header's last cell
// names the reports (reported bugs, 已报告的 bug).
func bugsTable(prose string) []locktest.Property {
	var out []locktest.Property
	in := false
	for _, line := range strings.Split(prose, "\n") {
		switch {
		case strings.HasPrefix(line, "|") && (strings.Contains(line, "reported bugs") || strings.Contains(line, "已报告的 bug")) && !strings.Contains(line, "`"):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "| `"):
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "| `"), "`")
			out = append(out, locktest.Property(name))
		default:
			in = false
		}
	}
	return out
}

// withoutBlocks returns src without its generated blocks and code blocks.
func withoutBlocks(src string) string {
	var out []string
	inBlock, inCode := false, false
	for _, line := range strings.Split(src, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inCode = !inCode
		case strings.HasPrefix(line, "<!-- lockcheck:"):
			inBlock = true
		case strings.HasPrefix(line, "<!-- /lockcheck:"):
			inBlock = false
		case !inBlock && !inCode:
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// TestKindsClaimsCheck: the check of the prose finds a verdict that is
// not the grid's, one in other words, one outside a column's section, and
// a count of properties; it passes what the grid says.
func TestKindsClaimsCheck(t *testing.T) {
	page := "## The verdicts\n\nAll hold: `permit-bound` holds everywhere.\n\n" +
		"### zsetsemaphore: a sorted set\n\n`permit-skew` breaks, and permit-bound holds.\n" +
		"<!-- lockcheck:verdicts strategy=zsetsemaphore -->\n| permit-bound | breaks |\n<!-- /lockcheck:verdicts -->\n" +
		"It breaks `permit-release-exact`.\n\n### semlua：信号量\n\npermit-skew 判定为 n/a；permit-crash-recovery 成立。\n"
	got := checkClaims(proseClaims(page))
	require.Len(t, got, 3, "%q", got)
	assert.Contains(t, got[0], "line 3: permit-bound holds: a verdict outside a column's section")
	assert.Contains(t, got[1], "line 11: permit-release-exact breaks: catalog/verdicts-semaphore.txt declares zsetsemaphore holds on permit-release-exact")
	assert.Contains(t, got[2], "line 15: permit-crash-recovery 成立: write the verdict as the grid does")
	assert.Equal(t, []string{"three read-write properties", "五个性质"},
		propertyCounts.FindAllString("The suite's three read-write properties hold; 测试套件的五个性质; two of them", -1))
	assert.Equal(t, []locktest.Property{"permit-bound", "permit-skew"},
		bugsTable("| property | reported bugs it answers |\n|---|---|\n| `permit-bound` | x |\n| `permit-skew` | y |\n\nafter\n| `rw-exclusion` | z |\n"))
}
