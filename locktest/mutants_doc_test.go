package locktest_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/locklab/locklab/internal/mutants"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMutantsDoc keeps docs/mutants.md true to the corpus: its tables list
// exactly the mutants with their declared killers, the survivors and the
// variants.
func TestMutantsDoc(t *testing.T) {
	page, err := os.ReadFile("../docs/mutants.md")
	require.NoError(t, err)
	mutantRows := tableRows(string(page), "| mutant |")
	var names []string
	for _, m := range mutants.Mutants() {
		names = append(names, m.Name)
		row, ok := mutantRows[m.Name]
		if !assert.True(t, ok, "docs/mutants.md: no row for mutant %s", m.Name) {
			continue
		}
		killers := backticked(row[len(row)-1])
		var want []string
		for _, p := range m.Killers {
			want = append(want, string(p))
		}
		assert.Equal(t, want, killers, "docs/mutants.md: the killers of %s", m.Name)
	}
	assert.ElementsMatch(t, names, keys(mutantRows), "docs/mutants.md: the mutants listed")

	names = nil
	for _, m := range mutants.Survivors() {
		names = append(names, m.Name)
	}
	assert.ElementsMatch(t, names, keys(tableRows(string(page), "| survivor |")), "docs/mutants.md: the survivors listed")

	names = nil
	for _, v := range mutants.Variants() {
		names = append(names, v.Name)
	}
	assert.ElementsMatch(t, names, keys(tableRows(string(page), "| variant |")), "docs/mutants.md: the variants listed")
}

// tableRows returns the rows of the Markdown table whose header line starts
// with header, by the backticked name in their first cell, each split into
// cells.
func tableRows(page, header string) map[string][]string {
	rows := map[string][]string{}
	in := false
	for line := range strings.Lines(page) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, header):
			in = true
		case !in:
		case !strings.HasPrefix(line, "|"):
			in = false
		case strings.HasPrefix(line, "|---"):
		default:
			cells := strings.Split(strings.Trim(line, "|"), " | ")
			if names := backticked(cells[0]); len(names) == 1 {
				rows[names[0]] = cells
			}
		}
	}
	return rows
}

var backtick = regexp.MustCompile("`([^`]+)`")

// backticked returns the texts in backticks in s, in order.
func backticked(s string) []string {
	var out []string
	for _, m := range backtick.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
