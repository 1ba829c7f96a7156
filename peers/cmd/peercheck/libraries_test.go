package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/docblock"
	"github.com/locklab/locklab/internal/langtest"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/matrixrun"
	"github.com/locklab/locklab/peers"
	"github.com/locklab/locklab/recipes"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLibraryColumns: the library pages' columns are every peer, redis-py,
// every PHP framework's lock and luatoken, in that order, each with its
// column of the grid.
func TestLibraryColumns(t *testing.T) {
	var got, want []string
	for _, e := range peers.Peers() {
		want = append(want, e.Name)
	}
	want = append(want, "redis-py")
	for _, p := range recipes.Libraries() {
		want = append(want, p.Name)
	}
	want = append(want, "luatoken")
	for _, l := range libraries(root) {
		got = append(got, l.entry.Name)
		assert.True(t, l.entry.Expect.Strict || l.entry.Name == "luatoken", "%s: declared strictly, n/a too", l.entry.Name)
		assert.Contains(t, catalog.Declared().Columns, l.entry.Name)
	}
	assert.Equal(t, want, got)
}

// TestLibraryColumnsMissing: a column whose packages are missing is left
// out with one line naming them, and the others stay.
func TestLibraryColumnsMissing(t *testing.T) {
	libs := libraries(root)
	libs[0].needs = []string{"no-such-package"}
	var stderr bytes.Buffer
	got, err := available(libs, &stderr)
	require.NoError(t, err)
	assert.Len(t, got, len(libs)-1)
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), stderr.String())
	assert.Contains(t, stderr.String(), "peercheck: "+libs[0].entry.Name+" skipped: ")
	assert.Contains(t, stderr.String(), "no-such-package")
}

func TestRepositoryRoot(t *testing.T) {
	got, err := repositoryRoot(".")
	require.NoError(t, err)
	want, err := filepath.Abs(root)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	_, err = repositoryRoot(t.TempDir())
	assert.ErrorContains(t, err, "-root")
}

// libraryStyle is the library pages' blocks, as far as reading them needs.
var libraryStyle = docblock.Style{Marker: "libraries"}

func libraryPage(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, page))
	require.NoError(t, err)
	return string(b)
}

// TestLibraryPagesCoverEveryBreak: each library page shows the matrix,
// lists every column's verdicts and draws every break declared for a
// library on one Redis.
func TestLibraryPagesCoverEveryBreak(t *testing.T) {
	for _, page := range libraryPages {
		blocks, err := libraryStyle.Parse(libraryPage(t, page))
		require.NoError(t, err)
		has := func(kind string, attrs map[string]string) bool {
			return slices.ContainsFunc(blocks, func(b docblock.Block) bool {
				match := b.Kind == kind
				for k, v := range attrs {
					match = match && b.Attrs[k] == v
				}
				return match
			})
		}
		assert.True(t, has("matrix", nil), "%s shows the matrix", page)
		for _, l := range libraries(root) {
			e := l.entry
			assert.True(t, has("verdicts", map[string]string{"strategy": e.Name}), "%s lists the verdicts of %s", page, e.Name)
			if e.Name == "luatoken" {
				continue // its own page draws its breaks
			}
			for _, p := range e.Expect.Breaks {
				if slices.Contains(locktest.TopologyProperties(), p) {
					continue
				}
				assert.True(t, has("trace", map[string]string{"strategy": e.Name, "property": string(p)}),
					"%s draws %s's break of %s", page, e.Name, p)
			}
		}
	}
}

// TestLibraryPagesUpToDate runs every library column, as make docs does,
// and has lockdocs regenerate the blocks of copies of the library pages
// from its JSON: each copy must come out as its page is, each block's
// shape unchanged. When it fails, run make docs.
func TestLibraryPagesUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every library column")
	}
	var needs []string
	for _, l := range libraries(root) {
		needs = append(needs, l.needs...)
	}
	langtest.Need(t, needs...)
	srv := redistest.Shared(t)
	var progress bytes.Buffer
	var rep *report.Report
	cols, err := libraryColumns(root, io.Discard)
	require.NoError(t, err)
	// The Go columns (the peers and luatoken) come from the run of every
	// property that TestDocsUpToDate compares docs/peers.md with, on
	// these rows: only the programs' columns run here.
	shared := peersMatrix(t)
	var programs []catalog.Entry
	for _, e := range cols {
		if _, ok := peers.Lookup(e.Name); !ok {
			programs = append(programs, e)
		}
	}
	// Two program columns at once: their checks spend their time
	// waiting on the programs and on TTLs.
	m := matrixrun.Matrix{Target: srv.Addr, Entries: programs, Properties: locktest.Properties(), Runs: 1, Timeout: 30 * time.Second, WarmUp: true,
		Columns: 2}
	code := program(io.Discard, &progress).Run(context.Background(), m, func(r *report.Report) int {
		rep = r
		return exitOK
	})
	require.Equal(t, exitOK, code, progress.String())
	rerunInconclusive(t, rep, programs, srv.Addr)
	rep.Results = libraryResults(t, cols, shared.Results, rep.Results)
	for name, src := range shared.Sources {
		rep.Sources[name] = src
	}
	for name, from := range shared.ScaleFrom {
		rep.ScaleFrom[name] = from
	}
	require.True(t, rep.OK(), "the verdicts are not the declared ones:\n%s", progress.String())

	dir := t.TempDir()
	var js bytes.Buffer
	require.NoError(t, report.Writer{Format: report.JSON}.Write(&js, rep))
	run := filepath.Join(dir, "run.json")
	require.NoError(t, os.WriteFile(run, js.Bytes(), 0o644))
	args := []string{"run", "./cmd/lockdocs", "-report", run, "-marker", "libraries"}
	for _, page := range libraryPages {
		copied := filepath.Join(dir, page) // docs/zh/... stays in a zh directory: Chinese
		require.NoError(t, os.MkdirAll(filepath.Dir(copied), 0o755))
		require.NoError(t, os.WriteFile(copied, []byte(libraryPage(t, page)), 0o644))
		args = append(args, copied)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root // where the source blocks' files are
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "lockdocs: %s", out)
	for _, page := range libraryPages {
		got, err := os.ReadFile(filepath.Join(dir, page))
		require.NoError(t, err)
		if string(got) != libraryPage(t, page) {
			t.Errorf("%s is out of date: run make docs.\n--- this run's:\n%s", page, got)
		}
	}
}

// libraryResults returns the results of the columns cols, in their order,
// on locktest.Properties(), each in the order of the properties: those of
// a Go column from shared, the others from programs, as one run of cols
// would have given them.
func libraryResults(t *testing.T, cols []catalog.Entry, shared, programs []report.Result) []report.Result {
	t.Helper()
	byCell := map[string]report.Result{}
	for _, r := range append(slices.Clone(shared), programs...) {
		byCell[r.Strategy+"/"+string(r.Property)] = r
	}
	var out []report.Result
	for _, e := range cols {
		for _, p := range locktest.Properties() {
			r, ok := byCell[e.Name+"/"+string(p)]
			require.True(t, ok, "no result for %s / %s", e.Name, p)
			out = append(out, r)
		}
	}
	return out
}

// rerunInconclusive runs again, twice at most, each check of rep that the
// server disturbed in every one of its runs (a stall on a busy machine,
// likelier in the program columns, which run ten times longer than a Go
// one): it says nothing about the lock, nor about the pages.
func rerunInconclusive(t *testing.T, rep *report.Report, cols []catalog.Entry, addr string) {
	t.Helper()
	for i, r := range rep.Results {
		for try := 2; try <= 3 && errors.Is(r.Err, locktest.ErrInconclusive); try++ {
			t.Logf("%s / %s, try %d: %v", r.Strategy, r.Property, try, r.Err)
			e, err := catalog.Select(cols, r.Strategy)
			require.NoError(t, err)
			cfg := e[0].Config(locktest.Config{Addr: addr, Key: redistest.Key(t) + ":" + r.Strategy})
			r.Result = locktest.Check(context.Background(), cfg, r.Property)
		}
		rep.Results[i] = r
	}
}
