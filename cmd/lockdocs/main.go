// Command lockdocs regenerates the generated blocks of locklab's Markdown
// files, README.md and the pages of docs/ and docs/zh (in Chinese), from
// one run of lockcheck's whole matrices on a real Redis, one per kind of
// lock (the mutexes, the read-write locks, the semaphores): the matrix,
// each strategy's verdicts, the trace of each break, the quoted code.
// Everything outside the blocks is left as it is. make docs runs it from
// the repository's root.
//
// Usage:
//
//	lockdocs [-redis TARGET] [-timeout D] [file or directory ...]
//	lockdocs -report FILE [-marker NAME] [file or directory ...]
//
// The files are README.md, docs and docs/zh by default; a directory stands
// for its *.md files. With -report, the matrix is not run but read from
// FILE, what lockcheck or peercheck printed with -format json; -marker
// peercheck writes the blocks named peercheck, from a run of peercheck
// (make peers-docs writes docs/peers.md so: lockdocs is the one generator
// of the docs), and -marker libraries those of the library pages, from a
// run of peercheck -libraries (make docs). -redis, the -tls-* flags and -timeout are
// lockcheck's, and the Redis is found, looked at, watched and cleaned up
// after as lockcheck does it (package matrixrun); its keys are
// lockcheck's, which lockcheck -cleanup removes. A block sits between two
// HTML comments:
//
//	<!-- lockcheck:matrix --> ... <!-- /lockcheck:matrix -->
//		the verdict matrix, with the Redis version and date of the run;
//	<!-- lockcheck:verdicts strategy=getset --> ... <!-- /lockcheck:verdicts -->
//		one strategy's verdicts, with the suite's reason for each;
//	<!-- lockcheck:trace strategy=getset property=clock-skew --> ... <!-- /lockcheck:trace -->
//		the counterexample of that break, as a Mermaid diagram;
//	<!-- lockcheck:source file=strategy/getset/getset.go func=takeover --> ... <!-- /lockcheck:source -->
//		a code block quoting a file, or one Go function or method
//		(func=Type.Method) of it, so that quoted code stays current;
//	<!-- lockcheck:output format=text strategy=setnxpx,luatoken --> ... <!-- /lockcheck:output -->
//		what the tool prints for those checks (format=text or json;
//		property=, trace=yes, lang=, and for JSON events=N, the first
//		events of each timeline to keep besides its last), with the
//		command line that prints it;
//	<!-- lockcheck:command name=exec-garbage --> ... <!-- /lockcheck:command -->
//		the output of a run of the tool that Style.Commands names, from
//		the line Command.From names;
//	<!-- lockcheck:session name=token-lock --> ... <!-- /lockcheck:session -->
//		an exchange with a program of the line protocol that
//		Style.Sessions names, run directly against a real Redis;
//	<!-- lockcheck:properties --> ... <!-- /lockcheck:properties -->
//		the table of the properties: each one's scenario and what must
//		hold, from the messages PROPERTY.scenario and PROPERTY.must;
//	<!-- lockcheck:grid kind=semaphore --> ... <!-- /lockcheck:grid -->
//		the declared grid of a kind of lock, catalog/verdicts-KIND.txt,
//		every column of it, those of the run checked against it;
//	<!-- lockcheck:gotest package=./p run=TestX env=VAR v=yes show=a,b end=yes --> ... <!-- /lockcheck:gotest -->
//		the output of go test -run '^TestX$' ./p, with VAR=1 (show=
//		keeps the log of those subtests, end=yes the lines that end it).
//
// The matrix, properties and grid blocks take kind=read-write or
// kind=semaphore (kind=mutex by default): that kind's table, from its own
// run (docs/kinds.md).
//
// File paths are relative to the working directory. The blocks of a file
// in a directory named after a language of the catalogs (docs/zh) are
// written in that language, as lockcheck -lang zh writes them.
//
// Each break is drawn from its one run. lockdocs writes each block's
// shape into its marker (shape=...): a digest of the block with what
// changes from run to run (times, retry counts, digests, the time a key
// had left, the Redis version, the date) written as placeholders. A block
// whose shape is unchanged is kept as it is. When a verdict is not the declared
// one, or a trace block names a property that does not break, nothing is
// written. docs/lockcheck.md says more.
//
// Exit status: 0 when the docs are written (or were current); 1 when a
// verdict is not the declared one or a block cannot be generated; 2 for
// bad flags or no Redis; 128+n when signal n stopped it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/docblock"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/matrixrun"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
)

func main() {
	ctx, stop := program(os.Stderr).Signals()
	code := lockdocs(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}

// program is lockdocs as package matrixrun runs it: its keys are
// lockcheck's.
func program(stderr io.Writer) matrixrun.Program {
	return matrixrun.Program{Name: "lockdocs", Keys: "lockcheck", Stdout: io.Discard, Stderr: stderr, Start: redistest.Start, Updater: "lockcheck -update"}
}

// lockdocs is the command; it returns the exit status.
func lockdocs(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("lockdocs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var m matrixrun.Matrix
	fs.StringVar(&m.Target, "redis", "", "use the Redis at `TARGET` (host:port, or a redis:// or rediss:// URL) instead of finding one")
	tlsFiles := matrixrun.TLSFlags(fs)
	fs.DurationVar(&m.Timeout, "timeout", 30*time.Second, "the most one property may take")
	from := fs.String("report", "", "run nothing: read the matrix from `FILE`, as lockcheck or peercheck -format json printed it")
	marker := fs.String("marker", style.Marker, "write the blocks of the markers `NAME`: lockcheck; peercheck (docs/peers.md) or libraries (docs/libraries.md and docs/zh/libraries.md), with -report")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: lockdocs [flags] [file or directory ...]\n       lockdocs -report FILE [-marker NAME] [file or directory ...]\n\n"+
			"lockdocs regenerates the generated blocks of README.md, docs and docs/zh (or of the\n"+
			"files given) from one run of lockcheck's matrices, one per kind of lock, on a real Redis.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return matrixrun.ExitOK
	}
	if err == nil && m.Timeout <= 0 {
		err = fmt.Errorf("-timeout %v: want a positive duration", m.Timeout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lockdocs: %v\n", err)
		return matrixrun.ExitUsage
	}
	st, ok := styles[*marker]
	if !ok {
		fmt.Fprintf(stderr, "lockdocs: -marker %q: want lockcheck, peercheck or libraries\n", *marker)
		return matrixrun.ExitUsage
	}
	m.TLS = *tlsFiles
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{"README.md", "docs", "docs/zh"}
	}
	if *from != "" {
		return fromReport(st, *from, paths, stderr)
	}
	if st.Marker != style.Marker {
		fmt.Fprintf(stderr, "lockdocs: -marker %s: its blocks are written from peercheck's run: give it with -report\n", st.Marker)
		return matrixrun.ExitUsage
	}
	m.Runs = 1
	rep, code := runKinds(ctx, program(stderr), m)
	if code != matrixrun.ExitOK {
		return code
	}
	return writeDocs(st, rep, paths, stderr)
}

// kinds are the matrices lockdocs runs, one per kind of lock: the
// mutexes on their properties, then the read-write locks and the
// semaphores of the catalog on theirs (docs/kinds.md).
func kinds() []matrixrun.Matrix {
	out := []matrixrun.Matrix{{Entries: catalog.Strategies(), Properties: locktest.AllProperties()}}
	for _, k := range []strategy.Kind{strategy.ReadWrite, strategy.Semaphore} {
		out = append(out, matrixrun.Matrix{Entries: catalog.KindStrategies(k), Properties: locktest.KindProperties(k)})
	}
	return out
}

// runKinds runs the matrix of each kind as p runs m, and returns their
// checks in one report, the blocks' run (a block of a kind's table
// shows that kind's checks), or the status of the run that failed.
func runKinds(ctx context.Context, p matrixrun.Program, m matrixrun.Matrix) (*report.Report, int) {
	var all *report.Report
	for _, km := range kinds() {
		m.Entries, m.Properties = km.Entries, km.Properties
		code := p.Run(ctx, m, func(rep *report.Report) int {
			all = merge(all, rep)
			return matrixrun.ExitOK
		})
		if code != matrixrun.ExitOK {
			return nil, code
		}
	}
	return all, matrixrun.ExitOK
}

// merge returns the checks of both reports in one, a's first, with a's
// server and time; a may be nil.
func merge(a, b *report.Report) *report.Report {
	if a == nil {
		return b
	}
	out := *a
	out.Results = slices.Concat(a.Results, b.Results)
	out.Changes = slices.Concat(a.Changes, b.Changes)
	out.Sources, out.ScaleFrom = maps.Clone(a.Sources), maps.Clone(a.ScaleFrom)
	if out.Sources == nil {
		out.Sources = map[string]string{}
	}
	if out.ScaleFrom == nil {
		out.ScaleFrom = map[string]report.ScaleFrom{}
	}
	maps.Copy(out.Sources, b.Sources)
	maps.Copy(out.ScaleFrom, b.ScaleFrom)
	return &out
}

// fromReport writes the blocks of style in paths from the report in the
// JSON file from.
func fromReport(style docblock.Style, from string, paths []string, stderr io.Writer) int {
	f, err := os.Open(from)
	if err != nil {
		fmt.Fprintf(stderr, "lockdocs: -report: %v\n", err)
		return matrixrun.ExitUsage
	}
	defer f.Close()
	rep, err := report.ReadJSON(f)
	if err != nil {
		fmt.Fprintf(stderr, "lockdocs: -report %s: %v\n", from, err)
		return matrixrun.ExitUsage
	}
	return writeDocs(style, rep, paths, stderr)
}
