package mylock_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The page this package is the worked example of, and the root of the
// repository, seen from this package's directory.
const (
	root     = "../../.."
	pagePath = root + "/docs/your-own-lock.md"
)

// fencedBlocks returns the text of the code blocks of the Markdown file
// whose fence names lang (```go), each ending with a newline.
func fencedBlocks(t *testing.T, file, lang string) []string {
	t.Helper()
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	re := regexp.MustCompile("(?ms)^```" + regexp.QuoteMeta(lang) + "\n(.*?)^```$")
	var out []string
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestDocExample: the example of the package documentation of locktest,
// and the one in the README, are this package's TestMain and
// TestConformance, word for word; TestConformance runs it, and passes, on
// mylock, a plain correct token lock.
func TestDocExample(t *testing.T) {
	test, err := os.ReadFile("mylock_test.go")
	require.NoError(t, err)

	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, root+"/locktest/doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	require.NotNil(t, f.Doc)
	_, after, ok := strings.Cut(f.Doc.Text(), "# Running it on your own strategy\n")
	require.True(t, ok, "locktest/doc.go has a section for lock authors")
	// Its first code block: the lines indented by a tab, blank lines
	// between them included.
	var block []string
	for l := range strings.SplitSeq(after, "\n") {
		code, isCode := strings.CutPrefix(l, "\t")
		if !isCode && l != "" && len(block) > 0 {
			break
		}
		if isCode || len(block) > 0 {
			block = append(block, code)
		}
	}
	example := strings.TrimSpace(strings.Join(block, "\n"))
	require.NotEmpty(t, example)
	assert.Contains(t, string(test), example+"\n", "locktest/doc.go's example is in mylock_test.go as written")

	readme := fencedBlocks(t, root+"/README.md", "go")
	found := false
	for _, b := range readme {
		if strings.Contains(b, "locktest.Run(") {
			found = true
			assert.Contains(t, string(test), b, "README.md's example is in mylock_test.go as written")
		}
	}
	assert.True(t, found, "README.md shows locktest.Run")
}

// TestPageCode: every Go and Lua block of docs/your-own-lock.md appears,
// as written, in a file of this package, where the compiler and the tests
// see it. make docs quotes them there.
func TestPageCode(t *testing.T) {
	var files []string
	for _, pat := range []string{"*.go", "*.lua"} {
		m, err := filepath.Glob(pat)
		require.NoError(t, err)
		files = append(files, m...)
	}
	var sources []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		sources = append(sources, string(b))
	}
	n := 0
	for _, lang := range []string{"go", "lua"} {
		for _, b := range fencedBlocks(t, pagePath, lang) {
			n++
			quoted := false
			for _, src := range sources {
				quoted = quoted || strings.Contains(src, b)
			}
			assert.True(t, quoted, "this %s block of %s is in no file of this package:\n%s", lang, pagePath, b)
		}
	}
	assert.NotZero(t, n, "%s shows code", pagePath)
}
