package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/locklab/locklab/internal/docblock"
	"github.com/locklab/locklab/report"
)

// style is the blocks peercheck writes: markers named peercheck, so that
// lockdocs, which reads every page of docs/, leaves them alone.
var style = docblock.Style{Marker: "peercheck", Make: "make peers-docs"}

// writeDocs regenerates the blocks of files from rep, each break's trace
// from its one run, and returns the exit status. It writes nothing unless
// every verdict is the declared one and every block can be generated.
// Source blocks quote files relative to root.
func writeDocs(rep *report.Report, files []string, root string, stderr io.Writer) int {
	written, err := style.Write(rep, files, root, func(string) report.Lang { return report.English })
	for _, f := range written {
		fmt.Fprintf(stderr, "peercheck: rewrote the generated blocks of %s\n", f)
	}
	if errors.Is(err, docblock.ErrMismatch) {
		report.Text(stderr, rep, report.Options{})
	}
	if err != nil {
		fmt.Fprintf(stderr, "peercheck: -docs: %v\n", err)
		return exitMismatch
	}
	return exitOK
}
