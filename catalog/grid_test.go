package catalog_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "run the whole matrix and rewrite "+catalog.GridFile+" with the verdicts found")

// TestGrid checks the committed grid: it parses, it is in the form Format
// writes, and every column declares what its place needs.
func TestGrid(t *testing.T) {
	if *update {
		t.Skip("-update rewrites the grid: run the tests again without it to check what it wrote")
	}
	src, err := os.ReadFile("verdicts.txt")
	require.NoError(t, err)
	g, err := catalog.ParseGrid(string(src))
	require.NoError(t, err)
	assert.Equal(t, string(src), string(g.Format()), "%s is not as Format writes it", catalog.GridFile)
	assert.Equal(t, g.Columns, catalog.Declared().Columns)

	var want []string
	for _, e := range catalog.Strategies() {
		want = append(want, e.Name)
		for _, p := range locktest.AllProperties() {
			assert.NotEmpty(t, g.Verdict(e.Name, p), "%s: %s declares nothing for %s", catalog.GridFile, e.Name, p)
		}
		decl, ok := g.Expect(e.Name)
		require.True(t, ok, e.Name)
		assert.Equal(t, decl, e.Expect, e.Name)
	}
	assert.Equal(t, append(want, catalog.Outside...), g.Columns, "the columns: the catalog's strategies in its order, then those declared outside it")
	for _, c := range catalog.Outside {
		for _, p := range locktest.Properties() {
			assert.NotEmpty(t, g.Verdict(c, p), "%s: %s declares nothing for %s", catalog.GridFile, c, p)
		}
	}
}

// TestGridErrors feeds ParseGrid what it must refuse.
func TestGridErrors(t *testing.T) {
	src, err := os.ReadFile("verdicts.txt")
	require.NoError(t, err)
	good := string(src)
	for _, tt := range []struct {
		name, old, new, want string
	}{
		{"unknown property", "\nexclusion ", "\nexclusivity ", `unknown property "exclusivity"`},
		{"unknown column", " setnxdel ", " setnxdell ", `unknown column "setnxdell"`},
		{"repeated column", " setnxexpire ", " setnxdel ", `column "setnxdel" twice`},
		{"repeated row", "\nrelease-frees ", "\nexclusion ", "row exclusion twice"},
		{"unknown cell", "\nexclusion            holds ", "\nexclusion            held ", `cell "held"`},
		{"short row", "\nexclusion            holds ", "\nexclusion ", "cells for"},
		{"no header", "\nproperty ", "\nproperties ", `not "properties"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bad := strings.Replace(good, tt.old, tt.new, 1)
			require.NotEqual(t, good, bad, "the test's replacement applies")
			_, err := catalog.ParseGrid(bad)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), catalog.GridFile)
		})
	}
	_, err = catalog.ParseGrid("# nothing\n")
	assert.ErrorContains(t, err, "no line naming the columns")
}

// withoutColumnAndRow returns src, a grid, without its column column and
// its row row, as a grid reads before -update declares them.
func withoutColumnAndRow(t *testing.T, src, column string, row locktest.Property) string {
	t.Helper()
	var out strings.Builder
	drop := -1
	for line := range strings.Lines(src) {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0 || strings.HasPrefix(fields[0], "#"):
			out.WriteString(line)
			continue
		case fields[0] == "property":
			drop = slices.Index(fields, column)
			require.Positive(t, drop, "no column %s", column)
		case fields[0] == string(row):
			continue
		}
		out.WriteString(strings.Join(slices.Delete(fields, drop, drop+1), "  ") + "\n")
	}
	return out.String()
}

// TestGridBootstrap: a grid without a column or a row parses, declares
// nothing for them (Missing), and -update restores them from the
// verdicts found, in their places.
func TestGridBootstrap(t *testing.T) {
	committed := catalog.Declared()
	src := withoutColumnAndRow(t, string(committed.Format()), "setnxpx", locktest.HolderClock)
	g, err := catalog.ParseGrid(src)
	require.NoError(t, err)
	assert.NotContains(t, g.Columns, "setnxpx")
	assert.Equal(t, locktest.AllProperties(), g.Missing("setnxpx"), "a column not declared yet")
	assert.Equal(t, []locktest.Property{locktest.HolderClock}, g.Missing("luatoken"), "a row not declared yet")
	assert.Empty(t, committed.Missing("luatoken"))

	setnxpx := catalog.Declare(catalog.Entry{Name: "setnxpx"})
	declared := []catalog.Entry{setnxpx, {Name: "luatoken", Missing: []locktest.Property{locktest.HolderClock}}}
	cols, rows := catalog.Undeclared(declared, locktest.AllProperties())
	assert.Equal(t, []string{"luatoken"}, cols)
	assert.Equal(t, []locktest.Property{locktest.HolderClock}, rows)
	cols, rows = catalog.Undeclared(declared, []locktest.Property{locktest.Exclusion})
	assert.Empty(t, cols)
	assert.Empty(t, rows)

	root := t.TempDir()
	file := filepath.Join(root, catalog.GridFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
	found := catalog.Found{}
	for _, p := range locktest.AllProperties() {
		found.Add("setnxpx", p, committed.Verdict("setnxpx", p))
	}
	for _, c := range committed.Columns {
		if v := committed.Verdict(c, locktest.HolderClock); v != "" {
			found.Add(c, locktest.HolderClock, v)
		}
	}
	changes, err := catalog.UpdateGrid(root, found)
	require.NoError(t, err)
	assert.Len(t, changes, len(locktest.AllProperties())+len(committed.Columns)-1)
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, string(committed.Format()), string(got), "the column and the row restored in their places")
}

// TestGridRoundTrip writes a grid as -update does and reads it back.
func TestGridRoundTrip(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, catalog.GridFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	committed := catalog.Declared().Format()
	require.NoError(t, os.WriteFile(file, committed, 0o644))

	changes, err := catalog.UpdateGrid(root, catalog.Found{"luatoken": {locktest.Exclusion: locktest.Holds}})
	require.NoError(t, err)
	assert.Empty(t, changes, "the verdict declared")
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, string(committed), string(got), "nothing changed, nothing written")

	found := catalog.Found{}
	found.Add("luatoken", locktest.Exclusion, locktest.Breaks)
	found.Add("redis-py", locktest.Failover, locktest.Breaks)
	changes, err = catalog.UpdateGrid(root, found)
	require.NoError(t, err)
	var said []string
	for _, c := range changes {
		said = append(said, c.String())
	}
	assert.Equal(t, []string{"luatoken exclusion: holds -> breaks", "redis-py failover: - -> breaks"}, said)
	got, err = os.ReadFile(file)
	require.NoError(t, err)
	g, err := catalog.ParseGrid(string(got))
	require.NoError(t, err)
	assert.Equal(t, locktest.Breaks, g.Verdict("luatoken", locktest.Exclusion))
	assert.Equal(t, locktest.Breaks, g.Verdict("redis-py", locktest.Failover))
	want := catalog.Declared().Clone()
	want.Set("luatoken", locktest.Exclusion, locktest.Breaks)
	want.Set("redis-py", locktest.Failover, locktest.Breaks)
	assert.Equal(t, want, g, "write then read gives the grid written")
	assert.Equal(t, string(want.Format()), string(got))
	assert.NotEqual(t, locktest.Breaks, catalog.Declared().Verdict("luatoken", locktest.Exclusion), "Clone leaves the declared grid alone")

	_, err = catalog.UpdateGrid(root, catalog.Found{"no-such-lock": {locktest.Exclusion: locktest.Holds}})
	assert.ErrorContains(t, err, `unknown column "no-such-lock"`)
}

// TestUpdate, with -update, runs the whole matrix of the catalog's
// strategies and rewrites their columns of the grid with the verdicts
// found: go test ./catalog -update. A check without a verdict writes
// nothing.
func TestUpdate(t *testing.T) {
	if !*update {
		t.Skip("-update is not set")
	}
	addr := redistest.Shared(t).Addr
	found := catalog.Found{}
	for _, e := range catalog.Strategies() {
		for _, p := range locktest.AllProperties() {
			cfg := e.Config(locktest.Config{Addr: addr, Key: fmt.Sprintf("%s:%s", redistest.Key(t), e.Name)})
			res := locktest.Check(context.Background(), cfg, p)
			require.NoError(t, res.Err, "%s %s: no verdict; %s left as it is", e.Name, p, catalog.GridFile)
			found.Add(e.Name, p, res.Verdict)
		}
	}
	changes, err := catalog.UpdateGrid("..", found)
	require.NoError(t, err)
	for _, c := range changes {
		t.Logf("%s: %v", catalog.GridFile, c)
	}
}
