package redistest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// StartProcess starts a private redis-server, found on PATH, on a free
// loopback port with a new temporary directory and no persistence, and
// waits until it answers PING. [Server.Close] stops it (SIGTERM, then a
// kill) and removes the directory; on Linux the process is also killed
// when the program that started it dies. The error matches
// [ErrNoRedisServer] when redis-server is not on PATH. Extra arguments go to
// redis-server after the project's own (for example "--enable-debug-command",
// "yes").
func StartProcess(ctx context.Context, extra ...string) (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoRedisServer, err)
	}
	// The port is free when asked for but may be taken before redis-server
	// binds it: try again with another.
	for attempt := 1; ; attempt++ {
		s, err := startProcessOnce(ctx, bin, extra)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errPortTaken) || attempt == 5 || ctx.Err() != nil {
			return nil, err
		}
	}
}

var errPortTaken = errors.New("port already in use")

func startProcessOnce(ctx context.Context, bin string, extra []string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("process: finding a free port: %w", err)
	}
	dir, err := os.MkdirTemp("", "locklab-redis-")
	if err != nil {
		return nil, fmt.Errorf("process: %w", err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	p, err := launch(ctx, bin, port, dir, extra, nil)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("process: %s on %s: %w", bin, addr, err)
	}

	s := &Server{Addr: addr, Kind: KindProcess}
	s.stop = func() error {
		err := p.stop()
		if rmErr := os.RemoveAll(dir); err == nil && rmErr != nil {
			err = fmt.Errorf("redistest: removing %s: %w", dir, rmErr)
		}
		return err
	}
	vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	s.Version, err = s.version(vctx)
	cancel()
	if err != nil {
		err = p.fail(err)
		os.RemoveAll(dir)
		return nil, fmt.Errorf("process: %s on %s: %w", bin, addr, err)
	}
	return s, nil
}

// proc is a running redis-server process.
type proc struct {
	cmd     *exec.Cmd
	log     string        // its log file
	exited  chan struct{} // closed once it has exited and been waited for
	waitErr error         // what Wait returned; set before exited is closed
}

// launch starts bin on a loopback port, with dir as its working directory
// (its log, and whatever it writes, go there), no persistence and the
// extra arguments, and waits until it answers PING. When it does not, the
// process is stopped and the error says what its log says; dir is left to
// the caller.
func launch(ctx context.Context, bin string, port int, dir string, extra, env []string) (*proc, error) {
	logFile := filepath.Join(dir, "redis.log")
	cmd := exec.Command(bin, append([]string{
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--dir", dir,
		"--logfile", logFile,
	}, extra...)...)
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &proc{cmd: cmd, log: logFile, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if err := waitProcess(ctx, addr, p.exited); err != nil {
		return nil, p.fail(err)
	}
	// The port was free when it was picked, but another server (of a test
	// running beside this one) may have taken it before this one bound it:
	// then the PING was answered by that server, and this one is exiting.
	if pid, err := (&Server{Addr: addr}).ServerInfo(ctx, "process_id"); err != nil || pid != strconv.Itoa(cmd.Process.Pid) {
		if err == nil {
			err = fmt.Errorf("%w: %s is served by pid %s, not by the redis-server just started (pid %d)", errPortTaken, addr, pid, cmd.Process.Pid)
		}
		return nil, p.fail(err)
	}
	return p, nil
}

// fail stops the process and returns err with the reason it exited, if it
// did, and the end of its log.
func (p *proc) fail(err error) error {
	select {
	case <-p.exited:
		err = fmt.Errorf("redis-server exited: %v", p.waitErr)
	default:
	}
	log := tail(p.log, 20)
	_ = p.stop()
	if strings.Contains(log, "Address already in use") {
		err = fmt.Errorf("%w: %v", errPortTaken, err)
	}
	if log != "" {
		err = fmt.Errorf("%w\nredis-server log:\n%s", err, log)
	}
	return err
}

// stop asks the process to stop, then kills it (see stopProcess).
func (p *proc) stop() error { return stopProcess(p.cmd.Process, p.exited) }

// kill kills the process at once, as a crash would, and waits until it
// has exited.
func (p *proc) kill() error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("redistest: killing redis-server (pid %d): %w", p.cmd.Process.Pid, err)
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("redistest: redis-server (pid %d) did not exit when killed", p.cmd.Process.Pid)
	}
}

// waitProcess waits until addr answers PING, the process exits, or time is
// up.
func waitProcess(ctx context.Context, addr string, exited <-chan struct{}) error {
	ctx, cancel := readyContext(ctx)
	defer cancel()
	for {
		err := ping(ctx, addr, time.Second)
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return errors.New("redis-server exited before it answered PING")
		default:
		}
		if !sleepCtx(ctx, 20*time.Millisecond) {
			return fmt.Errorf("no answer to PING in time: %v", err)
		}
	}
}

// stopProcess asks the process to stop, and kills it if it has not stopped
// after five seconds.
func stopProcess(p *os.Process, exited <-chan struct{}) error {
	select {
	case <-exited:
		return nil
	default:
	}
	if err := terminate(p); err != nil {
		_ = p.Kill()
	}
	select {
	case <-exited:
		return nil
	case <-time.After(5 * time.Second):
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("redistest: killing redis-server (pid %d): %w", p.Pid, err)
	}
	select {
	case <-exited:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("redistest: redis-server (pid %d) did not exit when killed", p.Pid)
	}
}

// freePort returns a loopback TCP port that nothing listens on now. It
// picks one below the range the system hands out to outgoing connections
// (32768 and up on Linux), where the many connections of a run (each
// client's proxy dials Redis) would take it before redis-server binds it;
// the system's own choice when none there is free.
func freePort() (int, error) {
	for range 20 {
		port := 20000 + rand.IntN(12000)
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err == nil {
			l.Close()
			return port, nil
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail returns up to the last n lines of a file, or "" if it cannot be read.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
