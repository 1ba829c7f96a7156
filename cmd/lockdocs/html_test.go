package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/matrixrun"
	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHTMLAll: the whole matrix as lockcheck -format html writes it, from
// the run the docs are compared with (not one more), in every language:
// one page under 2 MB that loads nothing, a diagram for every break, and
// a link to every strategy's page. report/browser opens such a page in a
// browser.
func TestHTMLAll(t *testing.T) {
	rep := wholeMatrix(t)
	breaks := len(rep.Breaks())
	require.Positive(t, breaks)
	for _, lang := range report.Langs() {
		pages := matrixrun.Pages(root, lang, "")
		for _, e := range catalog.Strategies() {
			assert.NotEmpty(t, pages(e.Name), "%s: %s has a page to link to", lang, e.Name)
		}
		var b bytes.Buffer
		require.NoError(t, report.Writer{Format: report.HTML, Lang: lang, Pages: pages}.Write(&b, rep))
		page := b.String()
		assert.Less(t, b.Len(), 2<<20, "%s: the page is under 2 MB", lang)
		assert.Equal(t, breaks, strings.Count(page, `<svg class="seq"`), "%s: a diagram for every break", lang)
		for _, bad := range []string{"<script", "<link", "<img", "src=", "url(http"} {
			assert.NotContains(t, page, bad, "%s: the page loads nothing", lang)
		}
		t.Logf("%s: %d bytes, %d diagrams", lang, b.Len(), breaks)
	}
}
