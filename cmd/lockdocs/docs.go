package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/locklab/locklab/docblock"
	"github.com/locklab/locklab/matrixrun"
	"github.com/locklab/locklab/recipes"
	"github.com/locklab/locklab/report"
)

// The generated blocks of the docs are package docblock's, with markers
// named lockcheck: <!-- lockcheck:KIND key=value ... -->.
var style = docblock.Style{Marker: "lockcheck", Make: "make docs", Commands: map[string]docblock.Command{
	// docs/exec.md: a program that answers nonsense, and one that does
	// not start.
	"exec-garbage": {Args: []string{"-exec", "echo ready; read -r l; echo 'hello there'", "-name", "garbage", "-property", "exclusion"}, From: "garbage / exclusion"},
	"exec-nosuch":  {Args: []string{"-exec", "nosuch", "-property", "exclusion"}, From: "nosuch / exclusion"},
}, Sessions: map[string]docblock.Session{
	// docs/exec.md: the example program, acquire, release twice, refresh.
	"token-lock": {Argv: recipes.TokenLock().Argv, Client: "A", Requests: []string{
		"acquire example:lock 5000", "release HANDLE", "release HANDLE", "refresh HANDLE 5000",
	}},
}}

// peersStyle is the blocks of docs/peers.md, written from a run of
// peercheck (module peers): markers named peercheck, so that the run of
// lockcheck, which has no peers' columns, leaves them alone.
var peersStyle = docblock.Style{Marker: "peercheck", Make: "make peers-docs"}

// librariesStyle is the blocks of the library pages, docs/libraries.md and
// docs/zh/libraries.md, written from a run of peercheck -libraries: the
// Go peers, redis-py's Lock, the PHP frameworks' locks and luatoken.
var librariesStyle = docblock.Style{Marker: "libraries", Make: "make docs", Run: "peercheck -libraries"}

// styles are the blocks lockdocs writes, by marker.
var styles = map[string]docblock.Style{style.Marker: style, peersStyle.Marker: peersStyle, librariesStyle.Marker: librariesStyle}

// langOf returns the language of the doc file: that of a directory named
// after a language of the catalogs (docs/zh is Chinese), English
// elsewhere.
func langOf(file string) report.Lang {
	dir := report.Lang(filepath.Base(filepath.Dir(file)))
	if dir != report.English && slices.Contains(report.Langs(), dir) {
		return dir
	}
	return report.English
}

// docFiles lists the Markdown files named by paths: files as given, and
// the *.md files of directories.
func docFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		md, err := filepath.Glob(filepath.Join(p, "*.md"))
		if err != nil {
			return nil, err
		}
		out = append(out, md...)
	}
	return out, nil
}

// writeDocs regenerates the blocks of the files named by paths from rep,
// each break's trace from its one run, and returns the exit status. It
// writes nothing unless every verdict is the declared one and every block
// can be generated.
func writeDocs(style docblock.Style, rep *report.Report, paths []string, stderr io.Writer) int {
	files, err := docFiles(paths)
	if err != nil {
		fmt.Fprintf(stderr, "lockdocs: %v\n", err)
		return matrixrun.ExitUsage
	}
	written, err := style.Write(rep, files, ".", langOf)
	for _, f := range written {
		fmt.Fprintf(stderr, "lockdocs: rewrote the generated blocks of %s\n", f)
	}
	if errors.Is(err, docblock.ErrMismatch) {
		report.Writer{}.Write(stderr, rep)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lockdocs: %v\n", err)
		return matrixrun.ExitMismatch
	}
	return matrixrun.ExitOK
}
