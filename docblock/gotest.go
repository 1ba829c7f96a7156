package docblock

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// goTestRuns keeps the output of each go test a gotest block ran, so that
// a block's text and its shape come from one run.
var goTestRuns = struct {
	sync.Mutex
	out map[string]string
}{out: map[string]string{}}

// goTest writes the output of go test for block b, run in root:
// package=P (a directory under root), run=TestName, env=VAR (set to 1 for
// the run), v=yes for -v, and show=a,b (the log of those subtests only,
// each from its === RUN line, and with end=yes the lines that end the
// run, with a line "…" where lines are left out). Lines that say how Redis was found
// (redistest: not using ...) depend on the machine and are left out.
// With shaped, what changes from run to run (times, tokens, keys, the
// server) is written as placeholders.
func goTest(w io.Writer, b Block, root string, shaped bool) error {
	pkg, name := b.Attrs["package"], b.Attrs["run"]
	if pkg == "" || name == "" {
		return fmt.Errorf("%s: want package= and run=", b.Name())
	}
	args := []string{"go", "test", "-count=1"}
	if b.Attrs["v"] == "yes" {
		args = append(args, "-v")
	}
	args = append(args, "-run", "^"+name+"$", pkg)
	shown := strings.Replace(strings.Join(args, " "), "^"+name+"$", "'^"+name+"$'", 1)
	if env := b.Attrs["env"]; env != "" {
		shown = env + "=1 " + shown
	}
	out, err := runOnce(root, b.Attrs["env"], args)
	if err != nil {
		return fmt.Errorf("%s: %w", b.Name(), err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	lines = slices.DeleteFunc(lines, func(l string) bool { return strings.Contains(l, "redistest: not using ") })
	if show := b.Attrs["show"]; show != "" {
		if lines, err = subtests(lines, name, strings.Split(show, ","), b.Attrs["end"] == "yes"); err != nil {
			return fmt.Errorf("%s: %w", b.Name(), err)
		}
	}
	fmt.Fprintf(w, "```text\n$ %s\n", shown)
	for _, l := range lines {
		if shaped {
			for _, m := range goTestMasks {
				l = m.re.ReplaceAllString(l, m.with)
			}
		}
		fmt.Fprintln(w, l)
	}
	fmt.Fprint(w, "```\n")
	return nil
}

// runOnce runs a command (go test, go run) in root once per lockdocs
// run, with env=1 when env is not empty, and returns its output.
func runOnce(root, env string, args []string) (string, error) {
	key := env + " " + strings.Join(args, " ")
	goTestRuns.Lock()
	defer goTestRuns.Unlock()
	if out, ok := goTestRuns.out[key]; ok {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = root
	cmd.Env = os.Environ()
	if env != "" {
		cmd.Env = append(cmd.Env, env+"=1")
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if _, failed := err.(*exec.ExitError); err != nil && !failed || out.Len() == 0 {
		return "", fmt.Errorf("go test in %s: %v\n%s", filepath.Clean(root), err, out.String())
	}
	goTestRuns.out[key] = out.String()
	return out.String(), nil
}

// subtests keeps, of a go test -v output, the log of test's subtests
// named by show, in the output's order, and with end the lines that end
// the run (the test's own --- line, ok or FAIL), with "…" where lines are
// left out.
func subtests(lines []string, test string, show []string, end bool) ([]string, error) {
	var out []string
	keep, found := false, 0
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "=== RUN"):
			keep = slices.ContainsFunc(show, func(s string) bool { return strings.TrimSpace(strings.TrimPrefix(t, "=== RUN")) == test+"/"+s })
			if keep {
				found++
			}
		case strings.HasPrefix(t, "--- ") && strings.Contains(t, ": "+test+" ("),
			strings.HasPrefix(t, "ok "), t == "FAIL", t == "PASS", strings.HasPrefix(t, "FAIL\t"):
			keep = end
		case strings.HasPrefix(t, "--- "):
			keep = false
		}
		switch {
		case keep:
			out = append(out, l)
		case len(out) == 0 || out[len(out)-1] != "…":
			out = append(out, "…")
		}
	}
	if found != len(show) {
		return nil, fmt.Errorf("show=%s: only %d of these subtests of %s ran", strings.Join(show, ","), found, test)
	}
	if out[0] == "…" {
		out = out[1:]
	}
	if out[len(out)-1] == "…" {
		out = out[:len(out)-1]
	}
	return out, nil
}

// goTestMasks write what changes between two runs of the same go test as
// placeholders.
var goTestMasks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`/rerun-\d+`), ""}, // a check run again, the server disturbed
	{regexp.MustCompile(`loop ×\d+`), "loop ×N"},
	// A timeline's times are right-aligned to the widest of the run: its
	// padding changes with them (60.5ms against 101.2ms).
	{regexp.MustCompile(`(?m)^ +\d+(\.\d+)?(ns|µs|ms|s)\b`), "Δ"},
	{regexp.MustCompile(`\d+(\.\d+)?(ns|µs|ms|s)\b`), "Δ"},
	{regexp.MustCompile(`t0 = \d+`), "t0 = T"},
	{regexp.MustCompile(`\b[A-Z2-7]{26}\b`), "TOKEN"},
	{regexp.MustCompile(`\b[0-9a-v]{20}\b`), "XID"},
	{regexp.MustCompile(`redistest: using .*`), "redistest: using SERVER"},
}
