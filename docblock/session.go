package docblock

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/locklab/locklab/redistest"
)

// Session is an exchange with a program of the line protocol (docs/exec.md)
// that a session block shows: the program started against the Redis that
// redistest.Start finds, directly, without the suite's proxy, and the
// requests written to it.
type Session struct {
	// Argv is the program, run in the repository's root.
	Argv []string
	// Client is its LOCKLAB_CLIENT.
	Client string
	// Requests are written one after the other, each once the answer to
	// the one before has come; HANDLE in a request stands for the handle
	// of the last ok that had one.
	Requests []string
}

// sessionTimeout bounds the ready line and each answer.
const sessionTimeout = 10 * time.Second

// session writes the exchange with the program that Style.Sessions names
// name=: the command line that starts it, then each line it wrote (<) and
// each request (>). With shaped, the server's address and the handles,
// which change from run to run, are written as ADDR and HANDLE.
func (s Style) session(w io.Writer, b Block, root string, shaped bool) error {
	c, ok := s.Sessions[b.Attrs["name"]]
	if !ok {
		return fmt.Errorf("%s: no session named %q", b.Name(), b.Attrs["name"])
	}
	key := "session " + b.Attrs["name"]
	goTestRuns.Lock()
	defer goTestRuns.Unlock()
	out, ok := goTestRuns.out[key]
	if !ok {
		var err error
		if out, err = c.run(root); err != nil {
			return fmt.Errorf("%s: %w", b.Name(), err)
		}
		goTestRuns.out[key] = out
	}
	if shaped {
		out = shapeSession(out)
	}
	fmt.Fprintf(w, "```text\n%s```\n", out)
	return nil
}

// run starts a Redis, runs the session against it and returns its text.
func (c Session) run(root string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := redistest.Start(ctx)
	if err != nil {
		return "", err
	}
	defer srv.Close()
	if srv.Login.TLS != nil {
		return "", fmt.Errorf("%s: the program speaks plain TCP, and this server wants TLS", srv)
	}
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "LOCKLAB_REDIS_ADDR="+srv.Addr, "LOCKLAB_CLIENT="+c.Client)
	if srv.Login.Password != "" {
		cmd.Env = append(cmd.Env, "LOCKLAB_REDIS_PASSWORD="+srv.Login.Password)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func() (string, error) {
		select {
		case l, ok := <-lines:
			if !ok {
				return "", fmt.Errorf("%s exited; its standard error:\n%s", strings.Join(c.Argv, " "), stderr.String())
			}
			return l, nil
		case <-time.After(sessionTimeout):
			return "", fmt.Errorf("%s did not answer within %v", strings.Join(c.Argv, " "), sessionTimeout)
		}
	}
	var w strings.Builder
	fmt.Fprintf(&w, "$ LOCKLAB_REDIS_ADDR=%s LOCKLAB_CLIENT=%s %s\n", srv.Addr, c.Client, shell(c.Argv))
	l, err := next()
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&w, "< %s\n", l)
	handle := ""
	for _, r := range c.Requests {
		r = strings.ReplaceAll(r, "HANDLE", handle)
		fmt.Fprintf(&w, "> %s\n", r)
		if _, err := fmt.Fprintln(stdin, r); err != nil {
			return "", err
		}
		if l, err = next(); err != nil {
			return "", err
		}
		fmt.Fprintf(&w, "< %s\n", l)
		if h, ok := strings.CutPrefix(l, "ok "); ok {
			handle = h
		}
	}
	return w.String(), nil
}

// shell writes argv as a command line, with its program's path as given
// (an absolute path stays absolute, a path in the repository relative).
func shell(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = filepath.ToSlash(a)
		if strings.ContainsAny(a, " ;'\"") {
			out[i] = `'` + a + `'`
		}
	}
	return strings.Join(out, " ")
}

// shapeSession writes the address on the command line as ADDR, and each
// handle (what follows an ok) as HANDLE wherever it appears.
func shapeSession(text string) string {
	lines := strings.Split(text, "\n")
	var handles []string
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "$ LOCKLAB_REDIS_ADDR="); ok {
			_, after, _ := strings.Cut(rest, " ")
			lines[i] = "$ LOCKLAB_REDIS_ADDR=ADDR " + after
		}
		if h, ok := strings.CutPrefix(l, "< ok "); ok {
			handles = append(handles, h)
		}
	}
	text = strings.Join(lines, "\n")
	for _, h := range handles {
		text = strings.ReplaceAll(text, h, "HANDLE")
	}
	return text
}
