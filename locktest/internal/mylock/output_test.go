package mylock_test

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDraftOutput runs TestDraft as its author would, with go test, and
// checks what they read: the run fails, and its output ends with the
// Expect literal that declares what it observed, gofmt-formatted, one
// comment line above each break saying what it means and which subtest
// holds its counterexample. Then it pastes that literal into TestDraft in
// place of the Expect there (through go test -overlay, so the package's
// files stay as they are) and runs it again: the run must pass. It also
// runs TestConformance on the fixed lock, and checks that the output that
// docs/your-own-lock.md shows is what these runs print.
func TestDraftOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test three times")
	}
	if os.Getenv("MYLOCK_DRAFT") != "" {
		t.Skip("in a child process")
	}
	env := childEnv(t)

	// The fixed lock's run is independent of the other two.
	type run struct {
		out string
		err error
	}
	fixed := make(chan run, 1)
	go func() {
		out, err := goTest(env, "", "-v", "-run", "^TestConformance$")
		fixed <- run{out, err}
	}()

	first, err := goTest(env, "", "-run", "^TestDraft$")
	require.Error(t, err, "the draft breaks safe-release: its run must fail\n%s", first)
	require.NotContains(t, first, "--- SKIP", "TestDraft ran")
	assert.Contains(t, first, "--- FAIL: TestDraft/safe-release", "safe-release fails")
	assert.Contains(t, first, "counterexample:", "with its counterexample")

	literal := closingLiteral(t, first)
	t.Logf("the literal the first run suggests:\n%s", literal)
	breaks := checkLiteral(t, literal, "TestDraft")
	assert.Contains(t, breaks, locktest.SafeRelease, "the draft breaks safe-release")

	// Paste it, and run again.
	overlay := pasteExpect(t, "draft_test.go", "TestDraft", literal)
	second, err := goTest(env, overlay, "-v", "-run", "^TestDraft$")
	require.NoError(t, err, "the run with the suggested Expect pasted must pass\n%s", second)
	assert.Contains(t, second, "--- PASS: TestDraft (")
	assert.NotContains(t, second, "--- SKIP")
	assert.NotContains(t, second, "not as declared", "no literal to paste when every verdict is accepted")
	for _, p := range breaks {
		// Each break's subtest logs its counterexample, where the
		// literal's comment says it is.
		sub := subtestLog(second, "TestDraft/"+string(p))
		assert.Contains(t, sub, string(p)+": breaks as expected", "%s", p)
		assert.Contains(t, sub, "counterexample:", "%s", p)
	}

	r := <-fixed
	require.NoError(t, r.err, "TestConformance passes on the fixed lock\n%s", r.out)
	assert.Contains(t, r.out, "--- PASS: TestConformance (")

	checkPageOutput(t, first, second, r.out)
}

// childEnv returns the environment of the go test processes: this one's,
// with the draft enabled and this test binary's Redis server.
func childEnv(t *testing.T) []string {
	srv := redistest.Shared(t)
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "MYLOCK_DRAFT=")
	})
	env = append(env, "MYLOCK_DRAFT=1")
	if srv.Kind != redistest.KindExternal {
		// The server this binary started: an external one to the child.
		env = slices.DeleteFunc(env, func(kv string) bool {
			return strings.HasPrefix(kv, redistest.EnvURL+"=")
		})
		env = append(env, redistest.EnvMode+"="+redistest.KindExternal, redistest.EnvAddr+"="+srv.Addr)
	}
	return env
}

// goTest runs go test on this package in a child process with env, and
// with the overlay file when it is not "", and returns its output.
func goTest(env []string, overlay string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// go test puts the go command's directory first on the test's PATH.
	cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-count=1"}, args...)...)
	if raceEnabled() {
		// Built as this binary was, the child reuses its build cache.
		cmd.Args = append(cmd.Args, "-race")
	}
	if overlay != "" {
		cmd.Args = append(cmd.Args, "-overlay", overlay)
	}
	cmd.Args = append(cmd.Args, ".")
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// closingLiteral returns the Expect literal at the end of a failed run's
// output, without the indentation of the log: after it come only the go
// command's FAIL lines.
func closingLiteral(t *testing.T, out string) string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for len(lines) > 0 {
		last := lines[len(lines)-1]
		if last != "FAIL" && !strings.HasPrefix(last, "FAIL\t") {
			break
		}
		lines = lines[:len(lines)-1]
	}
	open := slices.IndexFunc(lines, func(l string) bool { return strings.HasSuffix(l, "locktest.Expect{") })
	for i := open + 1; open >= 0 && i < len(lines); i++ {
		if strings.HasSuffix(lines[i], "locktest.Expect{") {
			open = i // the last one
		}
	}
	require.GreaterOrEqual(t, open, 0, "no Expect literal in the output:\n%s", out)
	indent := strings.TrimSuffix(lines[open], "locktest.Expect{")
	require.Equal(t, indent+"}", lines[len(lines)-1], "the output ends with the literal:\n%s", out)
	var lit []string
	for _, l := range lines[open:] {
		require.True(t, strings.HasPrefix(l, indent), "a line of the literal is indented as the log: %q", l)
		lit = append(lit, strings.TrimPrefix(l, indent))
	}
	return strings.Join(lit, "\n")
}

// checkLiteral checks that literal is gofmt-formatted Go, and that each of
// its breaks has a comment line above it that says what it means and names
// the subtest of test that holds its counterexample. It returns the breaks.
func checkLiteral(t *testing.T, literal, test string) []locktest.Property {
	t.Helper()
	src := "package p\n\nvar _ = " + literal + "\n"
	formatted, err := format.Source([]byte(src))
	require.NoError(t, err, "the literal is Go")
	assert.Equal(t, src, string(formatted), "the literal is gofmt-formatted")

	var breaks []locktest.Property
	lines := strings.Split(literal, "\n")
	for i, l := range lines {
		name, ok := strings.CutPrefix(l, "\t\tlocktest.")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, ",")
		require.Greater(t, i, 0)
		comment, ok := strings.CutPrefix(lines[i-1], "\t\t// ")
		if !assert.True(t, ok, "a comment line above %s", name) {
			continue
		}
		i := slices.IndexFunc(locktest.Properties(), func(p locktest.Property) bool {
			return strings.ReplaceAll(string(p), "-", "") == strings.ToLower(name)
		})
		if !assert.GreaterOrEqual(t, i, 0, "the comment above %s says what its break means: %q", name, comment) {
			continue
		}
		p := locktest.Properties()[i]
		assert.Equal(t, strings.ReplaceAll(string(p), "-", ""), strings.ToLower(name), "the comment says what %s means", name)
		assert.Contains(t, comment, "counterexample in "+test+"/"+string(p), "the comment names the subtest")
		breaks = append(breaks, p)
	}
	assert.NotEmpty(t, breaks)
	return breaks
}

// pasteExpect writes a copy of file, in which the Expect that fn passes to
// locktest.Run is replaced by literal, to a temporary directory, and
// returns an overlay file for go test -overlay that builds the package
// with that copy in place of file.
func pasteExpect(t *testing.T, file, fn, literal string) string {
	t.Helper()
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	require.NoError(t, err)
	var arg ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		if fd, ok := n.(*ast.FuncDecl); ok && fd.Name.Name != fn {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok && len(call.Args) == 3 {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Run" {
				arg = call.Args[2]
			}
		}
		return true
	})
	require.NotNil(t, arg, "%s calls locktest.Run in %s", fn, file)
	from, to := fset.Position(arg.Pos()).Offset, fset.Position(arg.End()).Offset
	pasted := string(src[:from]) + literal + string(src[to:])
	formatted, err := format.Source([]byte(pasted))
	require.NoError(t, err, "the pasted file:\n%s", pasted)

	dir := t.TempDir()
	copyFile := filepath.Join(dir, file)
	require.NoError(t, os.WriteFile(copyFile, formatted, 0o644))
	abs, err := filepath.Abs(file)
	require.NoError(t, err)
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {abs: copyFile}})
	require.NoError(t, err)
	overlayFile := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(overlayFile, overlay, 0o644))
	return overlayFile
}

// subtestLog returns what go test -v printed for the subtest name, from
// its === RUN line to the next === line.
func subtestLog(out, name string) string {
	_, after, ok := strings.Cut(out, "=== RUN   "+name+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(after, "\n=== "); i >= 0 {
		after = after[:i]
	}
	return after
}

// What changes between two runs of the same test, and how canonical
// writes it.
var masks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`^\s+\d+\.\dms `), "\tT "}, // a timeline's first column
	{regexp.MustCompile(`loop ×\d+`), "loop ×N"},   // how many times a waiter polled
	{regexp.MustCompile(`\d+(\.\d+)?(ms|s|µs)\b`), "Δ"},
	{regexp.MustCompile(`t0 = \d+`), "t0 = T"},
	{regexp.MustCompile(`\b[A-Z2-7]{26}\b`), "TOKEN"}, // rand.Text
	{regexp.MustCompile(`\b[0-9a-v]{20}\b`), "XID"},   // a test key's xid
	{regexp.MustCompile(`redistest: using .*`), "redistest: using SERVER"},
}

// canonical returns the lines of out with what changes between runs
// masked, trailing blanks removed, and repeated lines (a waiter's polls)
// written once.
func canonical(out string) []string {
	var lines []string
	for l := range strings.SplitSeq(out, "\n") {
		for _, m := range masks {
			l = m.re.ReplaceAllString(l, m.with)
		}
		l = strings.TrimRight(l, " \t")
		if strings.Contains(l, "redistest: not using ") {
			continue // depends on where Redis comes from
		}
		if len(lines) > 0 && lines[len(lines)-1] == l {
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

// checkPageOutput checks that every text block of docs/your-own-lock.md
// is output of one of the runs, masked as canonical: its lines come in
// the same order among the lines of one run, lines of the run left out
// (a line "…" marks where). The reasons, the timelines and the literal on
// the page are what the suite prints.
func checkPageOutput(t *testing.T, runs ...string) {
	t.Helper()
	blocks := fencedBlocks(t, pagePath, "text")
	require.NotEmpty(t, blocks, "%s shows output", pagePath)
	var canon [][]string
	for _, r := range runs {
		canon = append(canon, canonical(r))
	}
	for _, b := range blocks {
		// make docs writes the blocks: the command line first, "…" where
		// lines are left out.
		want := slices.DeleteFunc(canonical(b), func(l string) bool { return strings.TrimSpace(l) == "…" || strings.HasPrefix(l, "$ ") })
		found := slices.ContainsFunc(canon, func(run []string) bool { return isSubsequence(want, run) })
		assert.True(t, found, "%s: this output is printed by none of the runs (masked: %q):\n%s", pagePath, want, b)
	}
}

// isSubsequence reports whether the lines of sub appear in lines, in order.
func isSubsequence(sub, lines []string) bool {
	i := 0
	for _, l := range lines {
		if i < len(sub) && l == sub[i] {
			i++
		}
	}
	return i == len(sub)
}
