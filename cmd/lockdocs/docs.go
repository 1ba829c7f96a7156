package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/locklab/locklab/internal/docblock"
	"github.com/locklab/locklab/internal/matrixrun"
	"github.com/locklab/locklab/report"
)

// The generated blocks of the docs are package docblock's, with markers
// named lockcheck: <!-- lockcheck:KIND key=value ... -->.
var style = docblock.Style{Marker: "lockcheck", Make: "make docs", Commands: map[string]docblock.Command{
	// docs/exec.md: a program that answers nonsense, and one that does
	// not start.
	"exec-garbage": {Args: []string{"-exec", "echo ready; read -r l; echo 'hello there'", "-name", "garbage", "-property", "exclusion"}, From: "garbage / exclusion"},
	"exec-nosuch":  {Args: []string{"-exec", "nosuch", "-property", "exclusion"}, From: "nosuch / exclusion"},
}}

// block is one generated block of a file.
type block = docblock.Block

// parseBlocks finds the generated blocks of a file.
func parseBlocks(src string) ([]block, error) { return style.Parse(src) }

// rewrite returns src with every generated block regenerated from rep, in
// lang; a block whose shape has not changed is left as it is.
func rewrite(src string, rep *report.Report, root string, lang report.Lang) (string, error) {
	return style.Rewrite(src, rep, root, lang)
}

// shape returns block b's shape (see docblock.Style.Shape): its text and
// the digest its marker holds once make docs has written it.
func shape(b block, rep *report.Report, root string, lang report.Lang) (text, digest string, err error) {
	return style.Shape(b, rep, root, lang)
}

// quote quotes a file or one of its functions (see docblock.Quote).
func quote(root, file, fn string) (text, lang string, err error) {
	return docblock.Quote(root, file, fn)
}

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
func writeDocs(rep *report.Report, paths []string, stderr io.Writer) int {
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
		report.Text(stderr, rep, report.Options{})
	}
	if err != nil {
		fmt.Fprintf(stderr, "lockdocs: %v\n", err)
		return matrixrun.ExitMismatch
	}
	return matrixrun.ExitOK
}
