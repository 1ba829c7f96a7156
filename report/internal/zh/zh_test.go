package zh

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExamples(t *testing.T) {
	for _, ex := range examples {
		got, ok := Translate(ex.en)
		if assert.True(t, ok, "no rule translates %q", ex.en) {
			assert.Equal(t, ex.zh, got, ex.en)
		}
	}
}

// TestEveryRule: each rule of the table translates some example, whole or
// a fragment of it, so that none is left that nothing reaches.
func TestEveryRule(t *testing.T) {
	used := map[int]bool{}
	for _, ex := range examples {
		translate(ex.en, used)
	}
	for i, ru := range rules {
		assert.True(t, used[i], "rule %d (%s) translates no example", i, ru.re)
	}
}

func TestUntranslated(t *testing.T) {
	for _, s := range []string{"", "something the suite never says", "A resumes now", "paused nowhere in particular"} {
		got, ok := Translate(s)
		assert.False(t, ok, s)
		assert.Equal(t, s, got, "an untranslated sentence comes back as it is")
	}
}

// suiteDir holds the suite's sources, seen from this package's directory.
const suiteDir = "../../../locktest"

// notSentences are the strings of the suite's sources that contain a space
// but are no part of a sentence this package translates: they build
// replies, separators and go test's messages.
var notSentences = map[string]bool{
	"error: ": true, // a Redis error inside a reply, which stays as Redis said it
	", ":      true,
}

// TestSuiteSentences reads the suite's sources and checks that every
// string in them that builds a reason, a note or the text of an event
// (every literal with a space outside errors, go test's messages and the
// formatting of Event.String) has an example, and so a translation. A
// sentence added to the suite fails here until the table and the
// examples have it.
func TestSuiteSentences(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(suiteDir, "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	skipFiles := map[string]bool{
		"suite.go":        true, // go test's messages
		"capabilities.go": true, // go test's log
		"contract.go":     true, // go test's log
		"expect.go":       true, // Go source for go test's log
		"watchdog.go":     true, // errors, worded by its callers
		"properties.go":   true, // Describe, for the Go source in go test's log
		"result.go":       true, // Event.String and formatEvents
		"doc.go":          true,
	}
	// Calls whose strings are errors or panics, never sentences.
	skipCalls := map[string]bool{"fail": true, "Errorf": true, "New": true, "panic": true, "Define": true} // Define: a catalog entry, checked by TestCatalogs
	verb := regexp.MustCompile(`%[-+# 0]*[0-9]*(?:\.[0-9]+)?[vsdq]`)
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || skipFiles[filepath.Base(f)] {
			continue
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		ast.Inspect(af, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ImportSpec:
				return false
			case *ast.CallExpr:
				switch fn := n.Fun.(type) {
				case *ast.Ident:
					return !skipCalls[fn.Name]
				case *ast.SelectorExpr:
					return !skipCalls[fn.Sel.Name]
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return false
				}
				s, err := strconv.Unquote(n.Value)
				require.NoError(t, err)
				if !strings.Contains(s, " ") || notSentences[s] {
					return false
				}
				found++
				// The format as an expression: its verbs stand for anything.
				parts := verb.Split(s, -1)
				for i := range parts {
					parts[i] = regexp.QuoteMeta(parts[i])
				}
				re := regexp.MustCompile(strings.Join(parts, ".+"))
				for _, ex := range examples {
					if re.MatchString(ex.en) {
						return false
					}
				}
				t.Errorf("%s: %q: no example in examples_test.go, so maybe no translation: add the sentence to the table of zh.go and an example of it",
					fset.Position(n.Pos()), s)
			}
			return true
		})
	}
}
