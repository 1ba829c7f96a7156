package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/locklab/locklab/docblock"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/matrixrun"
	"github.com/locklab/locklab/peers"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// root is the repository's root, seen from this package's directory.
const root = "../../.."

// page is the page of the peers' columns, from root: lockdocs writes it
// from peercheck's JSON (make peers-docs).
const page = "docs/peers.md"

// style is the page's blocks, as far as reading them needs.
var style = docblock.Style{Marker: "peercheck"}

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = peercheck(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-format", "yaml"},
		{"-strategy", "redlock"},
		{"-property", "liveness"},
		{"-timeout", "0s"},
		{"docs/peers.md"},
		{"-docs", "-strategy", "redsync"},
		{"-docs", "-update"},
		{"-redis", "not-an-address"},
		{"-seed", "3"},
		{"-runs", "3"},
		{"-explore", "-property", "exclusion"},
		{"-explore", "-for", "-1s"},
	} {
		code, _, stderr := run(t, args...)
		assert.Equal(t, exitUsage, code, "%q: %s", args, stderr)
		assert.Contains(t, stderr, "peercheck: ", args)
	}
	code, _, _ := run(t, "-h")
	assert.Equal(t, exitOK, code)
}

// TestExplore explores a peer that holds every property the explorer can
// reach: its runs show no violation, and the exit status says so.
func TestExplore(t *testing.T) {
	code, out, stderr := run(t, "-explore", "-strategy", "redislock", "-seed", "1", "-runs", "8")
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "redislock: holds: 8 runs from seed 1, no violation")
}

// TestColumns runs two properties on two columns and reads the JSON: the
// columns in their order, each verdict the declared one, and the run's
// keys gone afterwards.
func TestColumns(t *testing.T) {
	srv := redistest.Shared(t)
	code, stdout, stderr := run(t, "-redis", srv.Addr, "-format", "json", "-trace",
		"-strategy", "luatoken,goredislock", "-property", "safe-refresh,holder-overrun")
	require.Equal(t, exitOK, code, stderr)
	var rep report.JSONReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.Strategy+" "+string(r.Property)+" "+string(r.Verdict))
		assert.True(t, r.Match, "%s %s", r.Strategy, r.Property)
		if r.Verdict == locktest.Breaks {
			assert.Contains(t, r.Mermaid, "sequenceDiagram", "-trace draws every break")
		}
	}
	assert.Equal(t, []string{
		"goredislock safe-refresh n/a",
		"goredislock holder-overrun breaks",
		"luatoken safe-refresh holds",
		"luatoken holder-overrun breaks",
	}, got)
	assert.Contains(t, stderr, "goredislock  holder-overrun       breaks  as declared")

	conn, err := srv.Dial(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	for _, pattern := range []string{"peercheck:*", "{peercheck:*"} {
		keys, err := conn.Do("KEYS", pattern)
		require.NoError(t, err)
		assert.Empty(t, keys, "peercheck removes the keys of its run (%s)", pattern)
	}
}

// TestHTML: -format html writes the peers' page, luatoken linked to its
// own page and the peers to docs/peers.md, under -root.
func TestHTML(t *testing.T) {
	code, stdout, stderr := run(t, "-redis", redistest.Shared(t).Addr, "-format", "html", "-root", root,
		"-strategy", "luatoken,goredislock", "-property", "holder-overrun")
	require.Equal(t, exitOK, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "<!DOCTYPE html>"))
	assert.Equal(t, 2, strings.Count(stdout, `<svg class="seq"`), "both break holder-overrun")
	assert.Contains(t, stdout, `<a href="docs/peers.md">docs/peers.md</a>`)
	assert.Contains(t, stdout, `<a href="docs/luatoken.md">docs/luatoken.md</a>`)
	assert.Contains(t, stdout, "Written by peercheck")
}

func committedPage(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, page))
	require.NoError(t, err)
	return string(b)
}

// peersRun is one run of every column of the page on every property,
// shared by the tests that need one: TestDocsUpToDate, and
// TestLibraryPagesUpToDate, whose Go columns are these on fewer rows.
var peersRun struct {
	sync.Mutex
	rep      *report.Report
	progress string
}

// peersMatrix runs peers.Columns() on every property, as make peers-docs
// does, once for all the tests of the package, requires the declared
// verdicts, and returns a copy of the report.
func peersMatrix(t *testing.T) *report.Report {
	t.Helper()
	peersRun.Lock()
	defer peersRun.Unlock()
	if peersRun.rep == nil {
		var progress bytes.Buffer
		var rep *report.Report
		m := matrixrun.Matrix{Target: redistest.Shared(t).Addr, Entries: peers.Columns(), Properties: locktest.AllProperties(), Runs: 1, Timeout: 30 * time.Second, WarmUp: true}
		code := program(io.Discard, &progress).Run(context.Background(), m, func(r *report.Report) int {
			rep = r
			return exitOK
		})
		require.Equal(t, exitOK, code, progress.String())
		require.True(t, rep.OK(), "the verdicts are not the declared ones:\n%s", progress.String())
		peersRun.rep = rep
	}
	rep := *peersRun.rep
	rep.Results = slices.Clone(rep.Results)
	return &rep
}

// TestDocsCoverEveryBreak: the page shows the matrix, lists every
// column's verdicts and draws every break declared for a peer.
func TestDocsCoverEveryBreak(t *testing.T) {
	blocks, err := style.Parse(committedPage(t))
	require.NoError(t, err)
	has := func(kind string, attrs map[string]string) bool {
		for _, b := range blocks {
			match := b.Kind == kind
			for k, v := range attrs {
				match = match && b.Attrs[k] == v
			}
			if match {
				return true
			}
		}
		return false
	}
	assert.True(t, has("matrix", nil), "%s shows the matrix", page)
	for _, e := range peers.Columns() {
		assert.True(t, has("verdicts", map[string]string{"strategy": e.Name}), "%s lists the verdicts of %s", page, e.Name)
	}
	for _, e := range peers.Peers() {
		for _, p := range e.Expect.Breaks {
			if slices.Contains(locktest.TopologyProperties(), p) {
				continue // as for every lock on one Redis: docs/replication.md draws luatoken's
			}
			assert.True(t, has("trace", map[string]string{"strategy": e.Name, "property": string(p)}),
				"%s draws %s's break of %s", page, e.Name, p)
		}
	}
}

// TestDocsUpToDate runs every column, as make peers-docs does, and has
// lockdocs regenerate the blocks of a copy of the page from its JSON: the
// copy must come out as the page is, each block's shape (the same
// commands, replies, clients and order, whatever the times) unchanged.
// When it fails, run make peers-docs.
func TestDocsUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every column")
	}
	rep := peersMatrix(t)

	dir := t.TempDir()
	var js bytes.Buffer
	require.NoError(t, report.Writer{Format: report.JSON}.Write(&js, rep))
	run := filepath.Join(dir, "run.json")
	require.NoError(t, os.WriteFile(run, js.Bytes(), 0o644))
	committed := committedPage(t)
	copied := filepath.Join(dir, "peers.md")
	require.NoError(t, os.WriteFile(copied, []byte(committed), 0o644))
	cmd := exec.Command("go", "run", "./cmd/lockdocs", "-report", run, "-marker", "peercheck", copied)
	cmd.Dir = root // where the source blocks' files are
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "lockdocs: %s", out)
	got, err := os.ReadFile(copied)
	require.NoError(t, err)
	if string(got) != committed {
		t.Errorf("%s is out of date: run make peers-docs.\n--- this run's:\n%s", page, got)
	}
}
