package locktest_test

import (
	"bytes"
	"os/exec"
	"testing"
)

// maxDocLines bounds go doc -all ./locktest: the whole API of the suite
// reads in one sitting. A doc comment says what a caller needs; the why
// of a choice goes beside the code, where go doc does not print it.
const maxDocLines = 320

func TestDocLength(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: the API's length is measured with go doc")
	}
	out, err := exec.Command(goTool, "doc", "-all", ".").Output()
	if err != nil {
		t.Fatalf("go doc -all: %v", err)
	}
	if n := bytes.Count(out, []byte("\n")); n > maxDocLines {
		t.Errorf("go doc -all ./locktest is %d lines, more than %d: shorten a doc comment, or unexport what only this module calls", n, maxDocLines)
	}
}
