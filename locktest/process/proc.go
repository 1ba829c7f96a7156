package process

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrProtocol is returned when a program broke the line protocol: it did
// not start, exited, hung, or answered a line the protocol does not have.
// The program is killed; every later request on it fails at once with the
// same error. Like every error of the package, it follows the program's
// name, and the client it played, in the error's text.
var ErrProtocol = errors.New("the program broke the line protocol")

// ErrCrashed is returned for the requests on a program the suite killed to
// crash its client: the request under way, and every one after.
var ErrCrashed = errors.New("the program was killed: the suite crashed its client")

// Error is what a program that broke the protocol gets: the program, the
// client it played, the request, what came back and the end of what it
// wrote to standard error. It matches ErrProtocol.
type Error struct {
	Program string // the program's name (WithName, or its command line)
	Client  string // the simulated client it played: "A", "B", ...
	Request string // the request line, or "start" for the ready line
	Got     string // what came back, in words
	Stderr  string // the last lines the program wrote to standard error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Request == "start" {
		fmt.Fprintf(&b, "%s (client %s): at start: %s", e.Program, e.Client, e.Got)
	} else {
		fmt.Fprintf(&b, "%s (client %s): request %q: %s", e.Program, e.Client, e.Request, e.Got)
	}
	if e.Stderr != "" {
		fmt.Fprintf(&b, "; its standard error ended with:\n%s", indent(e.Stderr))
	} else {
		b.WriteString("; it wrote nothing to standard error")
	}
	return b.String()
}

// Unwrap returns ErrProtocol.
func (e *Error) Unwrap() error { return ErrProtocol }

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}

// maxLine is the longest line a program may write; a longer one is a
// protocol error.
const maxLine = 64 << 10

// stderrTail is how much of the program's standard error is kept.
const stderrTail = 2 << 10

// spec is what one simulated client's program is started with.
type spec struct {
	client string        // LOCKLAB_CLIENT
	addr   string        // LOCKLAB_REDIS_ADDR
	secret string        // LOCKLAB_REDIS_PASSWORD
	skew   time.Duration // the client's clock skew: run under libfaketime when not 0
	// clock is called for every clock notice with the time the program
	// read; an error fails the request under way.
	clock func(ms int64) error
}

// proc is one running program and the protocol spoken with it.
type proc struct {
	cfg    *config
	client string
	clock  func(ms int64) error
	caps   capabilities

	cmd     *exec.Cmd
	stdin   *os.File
	lines   chan string   // the program's standard output, line by line; closed at its end
	readErr error         // why standard output ended, when not at a clean end; set before lines closes
	exited  chan struct{} // closed once the process has exited and waitErr is set
	waitErr error
	stderr  *tail
	// errRead is closed once standard error has been read to its end.
	errRead chan struct{}

	mu sync.Mutex // one request at a time

	stateMu sync.Mutex
	crashed bool
	broken  error // the protocol error that killed the program
	killed  chan struct{}
	once    sync.Once
}

// capabilities are what the program announced on its ready line.
type capabilities struct {
	refresh     bool
	granularity time.Duration // granularity=<ms>; 0 when not announced
	shared      bool          // a read-write lock: acquire-shared
	permits     int           // a semaphore of permits=<n>; 0 when not one
	weighted    bool          // a semaphore that takes several permits: acquire-n
	keys        []string      // keys=<names>: the keys of the lock's state, K for the run's key; nil: K
	beside      []string      // beside=<names>: the keys it writes beside them
}

// start starts the program for one client and waits for its ready line.
func start(cfg *config, s spec) (*proc, error) {
	p := &proc{
		cfg:     cfg,
		client:  s.client,
		clock:   s.clock,
		lines:   make(chan string, 16),
		exited:  make(chan struct{}),
		stderr:  &tail{max: stderrTail},
		errRead: make(chan struct{}),
		killed:  make(chan struct{}),
	}
	if len(cfg.argv) == 0 {
		return nil, p.protocolError("start", "no command to run")
	}
	env, err := cfg.environ(s)
	if err != nil {
		return nil, fmt.Errorf("%s (client %s): %w", cfg.name, s.client, err)
	}
	cmd := exec.Command(cfg.argv[0], cfg.argv[1:]...)
	cmd.Env = env
	cmd.Dir = cfg.dir
	setGroup(cmd)

	// Plain pipes on all three: Wait returns when the process exits,
	// whatever a child it left behind holds open.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, p.protocolError("start", fmt.Sprintf("it could not be started: %v", err))
	}
	p.cmd, p.stdin = cmd, inW
	go p.readLines(outR)
	go func() {
		io.Copy(p.stderr, errR)
		errR.Close()
		close(p.errRead)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()

	if err := p.handshake(); err != nil {
		return nil, err
	}
	return p, nil
}

// readLines passes the program's standard output on, line by line.
func (p *proc) readLines(r *os.File) {
	defer r.Close()
	defer close(p.lines)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxLine)
	for sc.Scan() {
		select {
		case p.lines <- strings.TrimSuffix(sc.Text(), "\r"):
		case <-p.killed: // nobody reads any more
			return
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("it wrote a line longer than %d bytes", maxLine)
		}
		p.readErr = err
	}
}

// handshake waits for the ready line.
func (p *proc) handshake() error {
	timer := time.NewTimer(p.cfg.timeout)
	defer timer.Stop()
	select {
	case line, ok := <-p.lines:
		if !ok {
			return p.fail("start", p.endText("before it wrote its ready line"))
		}
		words := strings.Fields(line)
		if len(words) == 0 || words[0] != "ready" {
			return p.fail("start", fmt.Sprintf("its first line is %q, where the protocol wants %q (or %q)", line, "ready", "ready refresh"))
		}
		for _, w := range words[1:] {
			name, value, hasValue := strings.Cut(w, "=")
			switch {
			case w == "refresh":
				p.caps.refresh = true
			case w == "shared":
				p.caps.shared = true
			case w == "weighted":
				p.caps.weighted = true
			case name == "permits" && hasValue:
				n, err := strconv.Atoi(value)
				if err != nil || n < 1 {
					return p.fail("start", fmt.Sprintf("its ready line %q announces %q, where permits= takes a whole number, 1 or more", line, w))
				}
				p.caps.permits = n
			case name == "granularity" && hasValue:
				ms, err := strconv.ParseInt(value, 10, 64)
				if err != nil || ms < 1 {
					return p.fail("start", fmt.Sprintf("its ready line %q announces %q, where granularity= takes a whole number of milliseconds, 1 or more", line, w))
				}
				p.caps.granularity = time.Duration(ms) * time.Millisecond
			case (name == "keys" || name == "beside") && hasValue:
				keys, why := parseKeys(name, value)
				if why != "" {
					return p.fail("start", fmt.Sprintf("its ready line %q announces %q, where %s", line, w, why))
				}
				if name == "keys" {
					p.caps.keys = keys
				} else {
					p.caps.beside = keys
				}
			default:
				return p.fail("start", fmt.Sprintf("its ready line %q announces %q, which the protocol does not know (it knows refresh, granularity=<ms>, shared, permits=<n>, weighted, keys=<names> and beside=<names>)", line, w))
			}
		}
		switch {
		case p.caps.shared && p.caps.permits > 0:
			return p.fail("start", fmt.Sprintf("its ready line %q announces both shared and permits=: a lock is a read-write lock or a semaphore, not both", line))
		case p.caps.weighted && p.caps.permits == 0:
			return p.fail("start", fmt.Sprintf("its ready line %q announces weighted without permits=<n>: only a semaphore takes several permits", line))
		}
		return nil
	case <-timer.C:
		return p.fail("start", fmt.Sprintf("no ready line within %v", p.cfg.timeout))
	}
}

// answer is a program's reply to a request: its first word and the rest.
type answer struct {
	word, rest string
}

// call sends one request line and returns the answer, passing the clock
// notices that come before it to the client's clock. It returns an error
// when the program breaks the protocol, has crashed, or ctx ends.
func (p *proc) call(ctx context.Context, request string) (answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.unusable(); err != nil {
		return answer{}, err
	}
	// A line written while no request was pending is a protocol error:
	// taken as the next answer, it would shift every answer by one.
	select {
	case line, ok := <-p.lines:
		if !ok {
			return answer{}, p.fail(request, p.endText("while no request was pending"))
		}
		return answer{}, p.fail(request, fmt.Sprintf("before the request, it wrote %q while no request was pending", line))
	default:
	}
	if err := p.write(request); err != nil {
		if cerr := p.unusable(); cerr != nil {
			return answer{}, cerr
		}
		select { // a program that has exited says so better than EPIPE
		case <-p.exited:
			return answer{}, p.fail(request, p.endText("before the request could be written"))
		case <-time.After(100 * time.Millisecond):
		}
		return answer{}, p.fail(request, fmt.Sprintf("the request could not be written to its standard input: %v", err))
	}
	timer := time.NewTimer(p.cfg.timeout)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-p.lines:
			if cerr := p.crashedErr(); cerr != nil {
				return answer{}, cerr
			}
			if !ok {
				return answer{}, p.fail(request, p.endText("before it answered"))
			}
			word, rest, _ := strings.Cut(line, " ")
			if word != "clock" {
				return answer{word: word, rest: rest}, nil
			}
			if err := p.notice(request, line, rest); err != nil {
				return answer{}, err
			}
		case <-p.killed:
			if err := p.unusable(); err != nil {
				return answer{}, err
			}
			return answer{}, fmt.Errorf("%s (client %s): request %q: the program was stopped at the end of the run", p.cfg.name, p.client, request)
		case <-timer.C:
			return answer{}, p.fail(request, fmt.Sprintf("no answer within %v", p.cfg.timeout))
		case <-ctx.Done():
			p.kill()
			return answer{}, fmt.Errorf("%s (client %s): request %q: %w", p.cfg.name, p.client, request, ctx.Err())
		}
	}
}

// notice handles a clock notice: the suite's clock is read (the timeline
// records it), and the program is told to go on.
func (p *proc) notice(request, line, rest string) error {
	ms, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
	if err != nil {
		return p.fail(request, fmt.Sprintf("it wrote %q, where a clock notice is %q", line, "clock <unix milliseconds>"))
	}
	if p.clock != nil {
		if err := p.clock(ms); err != nil {
			return p.fail(request, err.Error())
		}
	}
	if err := p.write("go"); err != nil {
		return p.fail(request, fmt.Sprintf("the go after its clock notice could not be written: %v", err))
	}
	return nil
}

// write sends one line to the program's standard input.
func (p *proc) write(line string) error {
	p.stdin.SetWriteDeadline(time.Now().Add(p.cfg.timeout))
	_, err := io.WriteString(p.stdin, line+"\n")
	return err
}

// unusable returns the error every request gets once the program is
// crashed or broken, and nil while it serves.
func (p *proc) unusable() error {
	p.stateMu.Lock()
	defer p.stateMu.Unlock()
	switch {
	case p.crashed:
		return fmt.Errorf("%s (client %s): %w", p.cfg.name, p.client, ErrCrashed)
	case p.broken != nil:
		return p.broken
	}
	return nil
}

func (p *proc) crashedErr() error {
	p.stateMu.Lock()
	defer p.stateMu.Unlock()
	if p.crashed {
		return fmt.Errorf("%s (client %s): %w", p.cfg.name, p.client, ErrCrashed)
	}
	return nil
}

// fail kills the program for breaking the protocol and returns the error
// that every later request gets too.
func (p *proc) fail(request, got string) error {
	p.kill()
	// What the program wrote to standard error before it died is read
	// to its end, briefly: its exit does not wait for the reader, and a
	// child it left behind may hold the pipe open.
	deadline := time.After(time.Second)
wait:
	for _, done := range []chan struct{}{p.exited, p.errRead} {
		select {
		case <-done:
		case <-deadline:
			break wait
		}
	}
	err := p.protocolError(request, got)
	p.stateMu.Lock()
	defer p.stateMu.Unlock()
	if p.crashed {
		return fmt.Errorf("%s (client %s): %w", p.cfg.name, p.client, ErrCrashed)
	}
	if p.broken == nil {
		p.broken = err
	}
	return p.broken
}

func (p *proc) protocolError(request, got string) *Error {
	e := &Error{Program: p.cfg.name, Client: p.client, Request: request, Got: got}
	if p.stderr != nil {
		e.Stderr = p.stderr.String()
	}
	return e
}

// endText says that the program's output ended, and how: its exit status
// when it exited, or why its output could not be read.
func (p *proc) endText(when string) string {
	if p.readErr != nil {
		return fmt.Sprintf("its output could not be read %s: %v", when, p.readErr)
	}
	select {
	case <-p.exited:
		return fmt.Sprintf("it exited %s (%s)", when, exitText(p.waitErr))
	case <-time.After(time.Second):
		return fmt.Sprintf("it closed its standard output %s", when)
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// crash kills the program for the suite's crash of its client.
func (p *proc) crash() {
	p.stateMu.Lock()
	p.crashed = true
	p.stateMu.Unlock()
	p.kill()
}

// kill ends the program and everything it started, at once.
func (p *proc) kill() {
	p.once.Do(func() {
		close(p.killed)
		if p.cmd == nil || p.cmd.Process == nil {
			return
		}
		select {
		case <-p.exited:
		default:
			killGroup(p.cmd.Process)
		}
	})
}

// close ends the program: its standard input closes, which tells it to
// exit; it is killed if it has not within the grace period.
func (p *proc) close() {
	if p.stdin != nil {
		p.stdin.Close()
	}
	if p.cmd == nil {
		return
	}
	select {
	case <-p.exited:
	case <-time.After(p.cfg.grace):
		p.kill()
		<-p.exited
	}
	p.kill() // what is left of it stops: the reader of its output
}

// tail keeps the last bytes written to it, cut to whole lines.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
		if i := strings.IndexByte(string(t.buf), '\n'); i >= 0 && i < len(t.buf)-1 {
			t.buf = t.buf[i+1:]
		}
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimRight(string(t.buf), "\n")
}
