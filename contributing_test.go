package locklab_test

import (
	"bytes"
	"context"
	"errors"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/internal/langtest"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// TestContributing follows CONTRIBUTING.md's recipes on a copy of the
// tree, each in a copy of its own: it runs the commands its code blocks
// show, as written, puts its Go blocks where the steps say, and fails
// when a command does not do what the page says, or when the recipe
// touches a file its section does not name, or more files than the
// section counts.
func TestContributing(t *testing.T) {
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on PATH: the recipes are run with it", tool)
		}
	}
	page, err := os.ReadFile("CONTRIBUTING.md")
	require.NoError(t, err)
	files := trackedFiles(t)
	env := append(os.Environ(), "REDIS_ADDR="+redistest.Shared(t).Addr, "GOWORK=off",
		// The copies differ from the tree only in what a recipe adds:
		// without their paths, their builds share the tree's cache.
		"GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -trimpath"))

	t.Run("strategy", func(t *testing.T) {
		sec := section(t, string(page), "## Add a strategy")
		dir := scratch(t, files)
		run(t, dir, env, sec.block(t, "sh", 0), 0)

		// Step 2: the import and the Entry, in catalog/catalog.go.
		imp := regexp.MustCompile("`(\"github.com/locklab/locklab/strategy/[^\"]+\")`").FindStringSubmatch(sec.text)
		require.NotNil(t, imp, "the section names the import to add")
		edit(t, dir, "catalog/catalog.go", func(src string) string {
			src = strings.Replace(src, "import (\n", "import (\n\t"+imp[1]+"\n", 1)
			start := strings.Index(src, "func strategies() []Entry {")
			require.Positive(t, start, "catalog.go has strategies()")
			end := strings.Index(src[start:], "\n\t}\n}\n")
			require.Positive(t, end, "strategies() ends its list")
			at := start + end + 1
			return src[:at] + sec.block(t, "go", 0) + src[at:]
		})

		// Step 3: refused until declared, then -update writes the column.
		refused := sec.block(t, "text", 0)
		_, stderr := run(t, dir, env, sec.block(t, "sh", 1), 1)
		assert.Contains(t, stderr, strings.TrimSpace(refused), "lockcheck says what the page says")
		run(t, dir, env, sec.block(t, "sh", 2), 0)
		grid := readGrid(t, dir)
		require.Contains(t, grid, "dummy", "-update wrote the column")
		assert.Equal(t, grid["setnxpx"], grid["dummy"], "a copy of setnxpx has setnxpx's verdicts")
		sec.touches(t, dir, 3)
	})

	t.Run("property", func(t *testing.T) {
		// peercheck -libraries runs the PHP and Python columns.
		langtest.Need(t, langtest.PHP, langtest.RedisPy, langtest.SymfonyLock, langtest.Laravel)
		sec := section(t, string(page), "## Add a property")
		dir := scratch(t, files)
		file := sec.path(t, `locktest/internal/props/prop_[a-z_]+\.go`)
		write(t, dir, file, sec.block(t, "go", 0))
		edit(t, dir, "locktest/names.go", func(src string) string { return src + "\n" + sec.block(t, "go", 1) })
		edit(t, dir, "internal/msg/catalogs/zh.txt", func(src string) string { return src + sec.block(t, "catalog", 0) })
		run(t, dir, env, sec.block(t, "sh", 0), 0)
		run(t, dir, env, "go test -count=1 -run TestCatalogs ./locktest", 0)

		grid := readGrid(t, dir)
		require.Contains(t, grid["luatoken"], "trivial", "-update wrote the row")
		for column, cells := range grid {
			assert.Equal(t, "holds", cells["trivial"], "%s: every lock holds trivial", column)
		}
		// The new row is declared: a run of it is compared, and passes.
		run(t, dir, env, "go run ./cmd/lockcheck -property trivial", 0)
		sec.touches(t, dir, 3)
	})

	t.Run("format", func(t *testing.T) {
		sec := section(t, string(page), "## Add an output format")
		dir := scratch(t, files)
		write(t, dir, sec.path(t, `report/[a-z]+\.go`), sec.block(t, "go", 0))
		edit(t, dir, "report/format.go", func(src string) string {
			start := strings.Index(src, "var formats = ")
			require.Positive(t, start, "format.go has the table formats")
			end := strings.Index(src[start:], "\n}\n")
			require.Positive(t, end)
			at := start + end + 1
			return src[:at] + sec.block(t, "go", 1) + src[at:]
		})
		stdout, _ := run(t, dir, env, sec.block(t, "sh", 0), 0)
		assert.Contains(t, stdout, "property\tsetnxpx\ndouble-release\tbreaks\n")
		sec.touches(t, dir, 3)
	})
}

// recipe is one section of the page: its text and its code blocks.
type recipe struct {
	text   string
	blocks []codeBlock
}

// codeBlock is a fenced block: its language and its lines, without the
// indent of the list item it is in.
type codeBlock struct{ lang, body string }

// section returns the section of page under heading, up to the next.
func section(t *testing.T, page, heading string) recipe {
	t.Helper()
	start := strings.Index(page, "\n"+heading+"\n")
	require.GreaterOrEqual(t, start, 0, "CONTRIBUTING.md has %q", heading)
	text := page[start+1:]
	if end := strings.Index(text[len(heading):], "\n## "); end >= 0 {
		text = text[:len(heading)+end+1]
	}
	r := recipe{text: text}
	var cur *codeBlock
	indent := ""
	for line := range strings.Lines(text) {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &codeBlock{lang: strings.TrimPrefix(trimmed, "```")}
			indent = line[:strings.Index(line, "```")]
		case cur != nil && trimmed == "```":
			r.blocks = append(r.blocks, *cur)
			cur = nil
		case cur != nil:
			cur.body += strings.TrimPrefix(line, indent)
		}
	}
	return r
}

// block returns the n-th block of lang.
func (r recipe) block(t *testing.T, lang string, n int) string {
	t.Helper()
	for _, b := range r.blocks {
		if b.lang == lang {
			if n == 0 {
				return b.body
			}
			n--
		}
	}
	t.Fatalf("the section has no %s block %d", lang, n)
	return ""
}

// path returns the first file the section names in backquotes that
// matches pattern.
func (r recipe) path(t *testing.T, pattern string) string {
	t.Helper()
	m := regexp.MustCompile("`(" + pattern + ")`").FindStringSubmatch(r.text)
	require.NotNil(t, m, "the section names a file %s", pattern)
	return m[1]
}

// touches fails t when the copy in dir has a changed or new file that the
// section does not name in backquotes, or more than most outside docs/
// and the translations of internal/msg/catalogs.
func (r recipe) touches(t *testing.T, dir string, most int) {
	t.Helper()
	out, err := command(dir, nil, "git status --porcelain --untracked-files=all").Output()
	require.NoError(t, err)
	var counted []string
	for line := range strings.Lines(string(out)) {
		file := strings.TrimSpace(line[3:])
		assert.Contains(t, r.text, "`"+file+"`", "the recipe touched %s, which its section does not name", file)
		if !strings.HasPrefix(file, "docs/") && !strings.HasPrefix(file, "internal/msg/catalogs/") {
			counted = append(counted, file)
		}
	}
	assert.LessOrEqual(t, len(counted), most, "files touched: %v", counted)
	t.Logf("touched: %v", counted)
}

// trackedFiles lists the files of the tree as git sees them, tracked or
// new, not ignored.
func trackedFiles(t *testing.T) []string {
	t.Helper()
	out, err := command(".", nil, "git ls-files -z --cached --others --exclude-standard").Output()
	if err != nil {
		t.Skipf("not in a git checkout (%v): the recipes run on a copy of one", err)
	}
	var files []string
	for f := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if _, err := os.Lstat(f); err == nil { // not deleted in the working tree
			files = append(files, f)
		}
	}
	return files
}

// scratch copies files into a directory of the test's, made a git
// repository with one commit, whose status then says what a recipe
// touched.
func scratch(t *testing.T, files []string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		info, err := os.Lstat(f)
		require.NoError(t, err)
		if !info.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		to := filepath.Join(dir, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(to), 0o755))
		require.NoError(t, os.WriteFile(to, b, info.Mode().Perm()))
	}
	for _, c := range []string{"git init -q", "git add -A", "git -c user.name=t -c user.email=t@t commit -qm tree"} {
		out, err := command(dir, nil, c).CombinedOutput()
		require.NoError(t, err, "%s: %s", c, out)
	}
	return dir
}

// command is sh, run by bash in dir with env (the test's when nil).
func command(dir string, env []string, sh string) *exec.Cmd {
	cmd := exec.Command("bash", "-c", sh)
	cmd.Dir, cmd.Env = dir, env
	return cmd
}

// run runs each command of lines in dir, as the page shows them, and
// requires the exit status of the last to be want, the others' 0. It
// returns the last one's standard output and error.
func run(t *testing.T, dir string, env []string, lines string, want int) (stdout, stderr string) {
	t.Helper()
	var cmds []string
	for line := range strings.Lines(lines) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			cmds = append(cmds, line)
		}
	}
	require.NotEmpty(t, cmds)
	for i, c := range cmds {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-c", c)
		cmd.Dir, cmd.Env = dir, env
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		start := time.Now()
		err := cmd.Run()
		cancel()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else {
			require.NoError(t, err, c)
		}
		t.Logf("$ %s: exit %d in %.1fs", c, code, time.Since(start).Seconds())
		wantHere := 0
		if i == len(cmds)-1 {
			wantHere = want
		}
		require.Equal(t, wantHere, code, "$ %s\nstdout:\n%s\nstderr:\n%s", c, out.String(), errOut.String())
		stdout, stderr = out.String(), errOut.String()
	}
	return stdout, stderr
}

// write writes text to file under dir.
func write(t *testing.T, dir, file, text string) {
	t.Helper()
	to := filepath.Join(dir, file)
	require.NoError(t, os.MkdirAll(filepath.Dir(to), 0o755))
	require.NoError(t, os.WriteFile(to, []byte(text), 0o644))
}

// edit rewrites file under dir with change, and formats it when it is Go.
func edit(t *testing.T, dir, file string, change func(string) string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, file))
	require.NoError(t, err)
	out := []byte(change(string(b)))
	if strings.HasSuffix(file, ".go") {
		out, err = format.Source(out)
		require.NoError(t, err, "%s after the edit:\n%s", file, change(string(b)))
	}
	write(t, dir, file, string(out))
}

// readGrid reads the declared grid of the copy in dir: the cell of each
// column and row.
func readGrid(t *testing.T, dir string) map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "catalog", "verdicts.txt"))
	require.NoError(t, err)
	grid := map[string]map[string]string{}
	var columns []string
	for line := range strings.Lines(string(b)) {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0 || strings.HasPrefix(fields[0], "#"):
		case fields[0] == "property":
			columns = fields[1:]
			for _, c := range columns {
				grid[c] = map[string]string{}
			}
		default:
			require.Len(t, fields, len(columns)+1, line)
			for i, c := range columns {
				grid[c][fields[0]] = fields[i+1]
			}
		}
	}
	return grid
}
