package locktest_test

import (
	"context"
	"flag"
	"os"
	"testing"

	"github.com/locklab/locklab/docblock"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateTraces = flag.Bool("update-traces", false, "rewrite the mutants: blocks of the docs from a run (make docs)")

// mutantTraces are the blocks that draw a mutant's break, from a run of
// the mutant: <!-- mutants:trace strategy=MUTANT property=P -->, which the
// catalog's run (lockdocs) does not write, as the mutants are no column of
// it.
var mutantTraces = docblock.Style{Marker: "mutants", Trace: docblock.MutantTrace}

// tracePages are the pages with mutants: blocks, and their language.
var tracePages = []struct {
	file string
	lang report.Lang
}{
	{"../docs/README.md", report.English},
	{"../docs/zh/README.md", report.Chinese},
}

// TestMutantTraces keeps the diagrams of mutants' breaks in the docs true
// to a run: each block's shape must be the one a run draws now. With
// -update-traces (make docs), it rewrites them.
func TestMutantTraces(t *testing.T) {
	rep := &report.Report{}
	run := func(name string, p locktest.Property) {
		if _, ok := rep.Lookup(name, p); ok {
			return
		}
		cfg := locktest.Config{Addr: redistest.Shared(t).Addr, New: mutant(t, name).New, Key: redistest.Key(t)}
		res := locktest.Check(context.Background(), cfg, p)
		require.NoError(t, res.Err, "%s %s", name, p)
		require.Equal(t, locktest.Breaks, res.Verdict, "%s %s: %s", name, p, res.Reason)
		rep.Results = append(rep.Results, report.Result{Strategy: name, Expected: locktest.Breaks, Result: res})
	}
	for _, pg := range tracePages {
		src, err := os.ReadFile(pg.file)
		require.NoError(t, err)
		blocks, err := mutantTraces.Parse(string(src))
		require.NoError(t, err, pg.file)
		for _, b := range blocks {
			require.Equal(t, "trace", b.Kind, "%s: %s: only traces are drawn from mutants", pg.file, b.Name())
			run(b.Attrs["strategy"], locktest.Property(b.Attrs["property"]))
		}
		if *updateTraces {
			out, err := mutantTraces.Rewrite(string(src), rep, "..", pg.lang)
			require.NoError(t, err, pg.file)
			require.NoError(t, os.WriteFile(pg.file, []byte(out), 0o644))
			continue
		}
		for _, b := range blocks {
			ok, _, err := mutantTraces.UpToDate(b, rep, "..", pg.lang)
			require.NoError(t, err, "%s: %s", pg.file, b.Name())
			assert.True(t, ok, "%s: %s is not what a run draws now: run make docs", pg.file, b.Name())
		}
	}
}
