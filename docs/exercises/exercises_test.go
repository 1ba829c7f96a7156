// Package exercises_test checks the exercises of docs/exercises: each
// broken lock, as written, fails its conformance test on the properties
// its hint names (and on the contract checks its section names) and on no
// other, and passes once its solution.go.txt
// takes the place of lock.go. Each run is a child go test on a copy of the
// exercise's directory, in a module of its own that uses this repository,
// so that the exercises cannot rot. The same package checks the pages that
// send readers to the exercises: their hints, their links, and the
// verdicts of the reading path (pages_test.go).
package exercises_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// exercise is one directory of docs/exercises.
type exercise struct {
	dir string
	// fails lists the properties that lock.go, as written, breaks: the ones
	// the README's hint names. Every other property must pass, and all of
	// them with the solution.
	fails []locktest.Property
	// contract lists the checks of the contract subtest (locktest.Contract)
	// that lock.go, as written, fails, as the README says; it passes the
	// others, and all of them with the solution.
	contract []string
}

var exercises = []exercise{
	// PEXPIRE 0 deletes the key SETNX created, and TryAcquire returns a lock.
	// A SETNX whose reply is lost leaves a key PEXPIRE never reaches.
	{"01-setnx-expire", []locktest.Property{locktest.CrashMidAcquire, locktest.AcquireFaults}, []string{"bad-ttl"}},
	{"02-plain-del", []locktest.Property{locktest.SafeRelease, locktest.DoubleRelease}, nil},
	{"03-get-then-del", []locktest.Property{locktest.SafeRelease}, nil},
	// Its EVALSHA, answered NOSCRIPT, falls back to EVAL: a retry that,
	// late, finds B's lock under the one password.
	{"04-fixed-password", []locktest.Property{locktest.SafeRelease, locktest.DoubleRelease, locktest.ReleaseFaults}, nil},
	{"05-halved-ttl", []locktest.Property{locktest.LeaseKept}, nil},
	// Its bare PEXPIRE, sent late with a fault, extends the next holder's
	// lock (acquire-faults' late refresh) as it does without one.
	{"06-refresh", []locktest.Property{locktest.SafeRefresh, locktest.AcquireFaults}, nil},
}

// TestExercisesAreAllListed keeps the list above and the directories in
// step: an exercise added without a line here would never be checked.
func TestExercisesAreAllListed(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var dirs, listed []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	for _, ex := range exercises {
		listed = append(listed, ex.dir)
	}
	if !slices.Equal(dirs, listed) {
		t.Errorf("the directories of docs/exercises are %q, the exercises checked here %q", dirs, listed)
	}
}

// TestExercises runs each exercise as written and with its solution.
func TestExercises(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to run the exercises: %v", err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	env := childEnv(t)
	for _, ex := range exercises {
		t.Run(ex.dir, func(t *testing.T) {
			t.Run("as-written", func(t *testing.T) {
				t.Parallel()
				lock, err := os.ReadFile(filepath.Join(ex.dir, "lock.go"))
				if err != nil {
					t.Fatal(err)
				}
				run := runExercise(t, goTool, root, ex.dir, lock, env)
				if run.exitErr == nil {
					t.Errorf("as written, the exercise passes: it must fail on %v\n%s", ex.fails, run.output)
				}
				run.check(t, ex.fails, ex.contract)
			})
			t.Run("solution", func(t *testing.T) {
				t.Parallel()
				solution, err := os.ReadFile(filepath.Join(ex.dir, "solution.go.txt"))
				if err != nil {
					t.Fatal(err)
				}
				if formatted, err := format.Source(solution); err != nil {
					t.Errorf("solution.go.txt does not parse: %v", err)
				} else if !bytes.Equal(formatted, solution) {
					t.Errorf("solution.go.txt is not gofmt-formatted")
				}
				run := runExercise(t, goTool, root, ex.dir, solution, env)
				if run.exitErr != nil {
					t.Errorf("with its solution, the exercise fails (%v)", run.exitErr)
				}
				run.check(t, nil, nil)
			})
		})
	}
}

// childEnv is the environment of the child go test runs: this one, with
// LOCKLAB_EXERCISE set so that the exercises run, and pointed at this
// test's own Redis server unless that server was named from outside
// (REDIS_ADDR, REDIS_URL), in which case the children find it the same way.
func childEnv(t *testing.T) []string {
	srv := redistest.Shared(t)
	// The copy is a module of its own, outside any workspace.
	env := append(os.Environ(), "LOCKLAB_EXERCISE=1", "GOWORK=off")
	if srv.Kind != redistest.KindExternal {
		env = slices.DeleteFunc(env, func(kv string) bool {
			return strings.HasPrefix(kv, redistest.EnvURL+"=")
		})
		env = append(env, redistest.EnvMode+"=external", redistest.EnvAddr+"="+srv.Addr)
	}
	return env
}

// A run is the outcome of one child go test.
type run struct {
	exitErr error
	// results holds the last action (pass, fail, skip) of each test and
	// subtest, by name.
	results map[string]string
	// output is what the child printed, for the failure messages.
	output string
}

// runExercise copies the exercise's directory into a module of its own
// that uses the repository at root, with lockSrc as its lock.go, and runs
// go test -json on it.
func runExercise(t *testing.T, goTool, root, dir string, lockSrc []byte, env []string) run {
	t.Helper()
	tmp := t.TempDir()
	writeModule(t, root, tmp)
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(f) == "lock.go" {
			src = lockSrc
		}
		if err := os.WriteFile(filepath.Join(tmp, filepath.Base(f)), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{"test", "-json", "-count=1", "-run", "^TestConformance$"}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.CommandContext(ctx, goTool, append(args, ".")...)
	cmd.Dir = tmp
	cmd.Env = env
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	exitErr := cmd.Run()
	t.Logf("go %s in a copy of %s: %v after %v", strings.Join(args, " "), dir, exitStatus(exitErr), time.Since(start).Round(time.Millisecond))

	r := run{exitErr: exitErr, results: map[string]string{}}
	var out strings.Builder
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct{ Action, Test, Output string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			out.WriteString(sc.Text() + "\n")
			continue
		}
		out.WriteString(ev.Output)
		switch ev.Action {
		case "pass", "fail", "skip":
			if ev.Test != "" {
				r.results[ev.Test] = ev.Action
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading go test -json: %v", err)
	}
	out.WriteString(stderr.String())
	r.output = out.String()
	return r
}

// check fails t unless exactly the properties fails and the contract
// checks contract failed, every other one passed, and the test ran at all.
func (r run) check(t *testing.T, fails []locktest.Property, contract []string) {
	t.Helper()
	if got := r.results["TestConformance"]; got != "pass" && got != "fail" {
		t.Fatalf("TestConformance did not run (%q): is LOCKLAB_EXERCISE read?\n%s", got, r.output)
	}
	var wrong []string
	for _, p := range locktest.Properties() {
		want := "pass"
		if slices.Contains(fails, p) {
			want = "fail"
		}
		if got := r.results["TestConformance/"+string(p)]; got != want {
			wrong = append(wrong, fmt.Sprintf("%s: %q, wanted %q", p, got, want))
		}
	}
	checks := 0
	for name, got := range r.results {
		check, ok := strings.CutPrefix(name, "TestConformance/contract/")
		if !ok {
			continue
		}
		checks++
		want := "pass"
		if slices.Contains(contract, check) {
			want = "fail"
		}
		if got != want {
			wrong = append(wrong, fmt.Sprintf("contract/%s: %q, wanted %q", check, got, want))
		}
	}
	for _, check := range contract {
		if _, ok := r.results["TestConformance/contract/"+check]; !ok {
			wrong = append(wrong, fmt.Sprintf("contract/%s: did not run, wanted \"fail\"", check))
		}
	}
	if checks == 0 {
		wrong = append(wrong, "contract: no check ran")
	}
	if len(wrong) > 0 {
		t.Errorf("subtests not as expected:\n\t%s\nthe run:\n%s", strings.Join(wrong, "\n\t"), r.output)
	}
}

// writeModule makes dir a module that requires this repository's module,
// replaced by the repository at root, with root's requirements and
// checksums so that nothing needs to be fetched.
func writeModule(t *testing.T, root, dir string) {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	const self = "module github.com/locklab/locklab\n"
	if !bytes.HasPrefix(mod, []byte(self)) {
		t.Fatalf("%s/go.mod does not start with %q", root, self)
	}
	var b bytes.Buffer
	b.WriteString("module exercise\n")
	b.Write(mod[len(self):])
	fmt.Fprintf(&b, "\nrequire github.com/locklab/locklab v0.0.0\n\nreplace github.com/locklab/locklab => %s\n", root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
}

func exitStatus(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}
