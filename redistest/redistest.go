package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Kinds of server, as found in [Server.Kind].
const (
	KindExternal = "external" // named by REDIS_ADDR or REDIS_URL; never stopped
	KindDocker   = "docker"   // a container started through a Docker engine
	KindProcess  = "process"  // a redis-server process started from PATH
)

// Environment variables read by this package.
const (
	// EnvAddr names an external server as host:port.
	EnvAddr = "REDIS_ADDR"
	// EnvURL names an external server as redis://[user:password@]host:port[/db]
	// (or rediss:// for TLS). It is used when EnvAddr is not set.
	EnvURL = "REDIS_URL"
	// EnvMode forces one way of finding a server: "external", "docker" or
	// "process". Unset, empty or "auto" tries them in order.
	EnvMode = "LOCKLAB_REDIS"
	// EnvImage is the Docker image's repository. When neither it nor
	// EnvTag is set, the image is locklab/redis:local if the engine has
	// it, else redis:7.
	EnvImage = "LOCKLAB_REDIS_IMAGE"
	// EnvTag is the Docker image's tag, "7" by default (see EnvImage).
	EnvTag = "LOCKLAB_REDIS_TAG"
	// EnvExpire is how long a container may live at most, as a Go duration
	// ("30m" by default). It only matters when the program dies before
	// [Server.Close]: the engine then stops and removes the container.
	EnvExpire = "LOCKLAB_REDIS_EXPIRE"
)

// Timeouts of the connections made by [Server.Dial] and [Server.NewPool].
// A blocking command that may wait longer than ReadTimeout must say so with
// redis.DoWithTimeout.
const (
	ConnectTimeout = 5 * time.Second
	ReadTimeout    = 10 * time.Second
	WriteTimeout   = 10 * time.Second
)

// How long Start waits at most for a server it started to answer PING, when
// the context given to it has no earlier deadline.
const readyTimeout = 30 * time.Second

// Errors that the errors returned by this package match with errors.Is.
var (
	// ErrUnavailable is returned when no Redis server could be found or
	// started. The error's message says why each way failed and how to get
	// a server.
	ErrUnavailable = errors.New("redistest: no Redis server available")
	// ErrNoDocker is returned when no Docker engine answers.
	ErrNoDocker = errors.New("redistest: no Docker engine answers")
	// ErrNoImage is returned when the Docker engine answers, but the image
	// is not there and could not be pulled.
	ErrNoImage = errors.New("redistest: the Redis image is missing and could not be pulled")
	// ErrNoRedisServer is returned when redis-server is not on PATH.
	ErrNoRedisServer = errors.New("redistest: redis-server is not on PATH")
)

// Server is a Redis server that tests and tools can use. Get one from
// [Start], [StartDocker], [StartProcess] or [Shared], and Close it when done
// unless it came from Shared.
type Server struct {
	Addr    string // host:port
	Kind    string // "external", "docker" or "process"
	Version string // redis_version from INFO server
	// Login is how every connection to the server logs in: a server
	// named by a URL may have a user, a password, a database and TLS.
	Login Login

	image      string // the image of a container, repository:tag
	passedOver []step // the ways Start tried before this one, and why they failed

	closeOnce sync.Once
	closeErr  error
	stop      func() error // nil for an external server
}

// String describes the server, such as "redis 7.0.15 (process) at
// 127.0.0.1:40123"; a container's names its image, "redis 7.0.15 (docker
// locklab/redis:local) at 127.0.0.1:32847".
func (s *Server) String() string {
	kind := s.Kind
	if s.image != "" {
		kind += " " + s.image
	}
	return fmt.Sprintf("redis %s (%s) at %s", s.Version, kind, s.Addr)
}

// Close stops the server and removes whatever was made for it: the
// container, or the process and its directory. It does nothing for an
// external server. Calling it again returns the first call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		if s.stop != nil {
			s.closeErr = s.stop()
		}
	})
	return s.closeErr
}

// Dial opens one connection to the server, with [ConnectTimeout],
// [ReadTimeout] and [WriteTimeout]. The caller closes it.
func (s *Server) Dial(ctx context.Context) (redis.Conn, error) {
	return redis.DialContext(ctx, "tcp", s.Addr, s.Login.dialOptions()...)
}

// NewPool returns a new connection pool to the server, whose connections
// are made by [Server.Dial] and of which up to 64 are kept idle. A
// connection idle for more than 100ms is PINGed before it is handed out
// again, so that one broken by a restart or a dropped link is replaced
// rather than failing the next command. The caller closes it.
func (s *Server) NewPool() *redis.Pool {
	return &redis.Pool{
		DialContext: s.Dial,
		MaxIdle:     64,
		IdleTimeout: 5 * time.Minute,
		TestOnBorrowContext: func(ctx context.Context, c redis.Conn, idle time.Time) error {
			if time.Since(idle) < 100*time.Millisecond {
				return nil
			}
			_, err := redis.DoContext(c, ctx, "PING")
			return err
		},
	}
}

// Start finds a Redis server: the external one named by REDIS_ADDR or
// REDIS_URL, else a Docker container, else a redis-server process, unless
// LOCKLAB_REDIS forces one of them (see the package documentation). When
// none works, the error matches [ErrUnavailable] and says why each failed
// and how to get a server.
func Start(ctx context.Context) (*Server, error) {
	mode := strings.ToLower(strings.TrimSpace(os.Getenv(EnvMode)))
	switch mode {
	case "", "auto":
	case KindExternal:
		s, err := startExternal(ctx)
		if s == nil && err == nil {
			err = fmt.Errorf("neither %s nor %s is set", EnvAddr, EnvURL)
		}
		return s, forced(err, mode)
	case KindDocker:
		s, err := StartDocker(ctx)
		return s, forced(err, mode)
	case KindProcess:
		s, err := StartProcess(ctx)
		return s, forced(err, mode)
	default:
		return nil, fmt.Errorf("redistest: %s=%q: want %q, %q, %q or unset",
			EnvMode, mode, KindExternal, KindDocker, KindProcess)
	}

	// An external server named by the environment is the user's choice:
	// when it does not answer, say so rather than quietly start another.
	if s, err := startExternal(ctx); s != nil || err != nil {
		return s, unavailable("external server", err)
	}
	s, dockerErr := StartDocker(ctx)
	if dockerErr == nil {
		return s, nil
	}
	if ctx.Err() != nil {
		return nil, dockerErr
	}
	s, processErr := StartProcess(ctx)
	if processErr == nil {
		s.passedOver = []step{{"Docker", dockerErr}}
		return s, nil
	}
	return nil, &unavailableError{steps: []step{
		{"external server", fmt.Errorf("neither %s nor %s is set", EnvAddr, EnvURL)},
		{"Docker", dockerErr},
		{"redis-server process", processErr},
	}}
}

// startExternal returns the server named by REDIS_ADDR or REDIS_URL, or nil
// and no error when neither is set.
func startExternal(ctx context.Context) (*Server, error) {
	s := &Server{Kind: KindExternal}
	switch addr, rawURL := os.Getenv(EnvAddr), os.Getenv(EnvURL); {
	case addr != "":
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("%s=%q is not host:port: %w", EnvAddr, addr, err)
		}
		s.Addr = addr
	case rawURL != "":
		if !strings.Contains(rawURL, "://") {
			return nil, fmt.Errorf("%s is not a redis:// or rediss:// URL", EnvURL)
		}
		var err error
		if s.Addr, s.Login, err = ParseTarget(rawURL, TLSFilesFromEnv()); err != nil {
			return nil, fmt.Errorf("%s: %w", EnvURL, err)
		}
	default:
		return nil, nil
	}
	if err := s.check(ctx); err != nil {
		return nil, fmt.Errorf("the server at %s (from %s) does not answer: %w",
			s.Addr, externalSource(), loginError(s.Addr, s.Login, err))
	}
	return s, nil
}

// Connect returns the running server that target names, as an external
// server that Close leaves running, once it has answered INFO. target is
// host:port or a URL (see [ParseTarget]); a rediss:// one is checked as
// files says (see [TLSFilesFromEnv]).
func Connect(ctx context.Context, target string, files TLSFiles) (*Server, error) {
	addr, login, err := ParseTarget(target, files)
	if err != nil {
		return nil, fmt.Errorf("redistest: %w", err)
	}
	s := &Server{Addr: addr, Kind: KindExternal, Login: login}
	if err := s.check(ctx); err != nil {
		if le := loginError(addr, login, err); le != err {
			return nil, fmt.Errorf("redistest: %w", le)
		}
		return nil, fmt.Errorf("redistest: the server at %s does not answer: %w", addr, err)
	}
	return s, nil
}

// check asks the server for its version, within 10 seconds.
func (s *Server) check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := s.version(ctx)
	s.Version = v
	return err
}

func externalSource() string {
	if os.Getenv(EnvAddr) != "" {
		return EnvAddr
	}
	return EnvURL
}

// version asks the server for INFO server and returns its redis_version.
func (s *Server) version(ctx context.Context) (string, error) {
	return s.ServerInfo(ctx, "redis_version")
}

// ServerInfo asks the server, on a connection of its own, for INFO server
// and returns the value of one of its fields, such as redis_version or
// run_id (which changes when the server restarts).
func (s *Server) ServerInfo(ctx context.Context, field string) (string, error) {
	return s.Info(ctx, "server", field)
}

// Info asks the server, on a connection of its own, for INFO section and
// returns the value of one of its fields, such as maxmemory_policy in
// section memory.
func (s *Server) Info(ctx context.Context, section, field string) (string, error) {
	c, err := s.Dial(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	fields, err := Info(ctx, c, section)
	if err != nil {
		return "", err
	}
	if v := fields[field]; v != "" {
		return v, nil
	}
	return "", fmt.Errorf("INFO %s has no %s", section, field)
}

// Info sends INFO section on c and returns its fields, the "name:value"
// lines of the reply.
func Info(ctx context.Context, c redis.Conn, section string) (map[string]string, error) {
	s, err := redis.String(redis.DoContext(c, ctx, "INFO", section))
	if err != nil {
		return nil, err
	}
	fields := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":"); ok {
			fields[k] = v
		}
	}
	return fields, nil
}

// ping dials addr and sends PING, all within timeout.
func ping(ctx context.Context, addr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := redis.DialContext(ctx, "tcp", addr,
		redis.DialConnectTimeout(timeout),
		redis.DialReadTimeout(timeout),
		redis.DialWriteTimeout(timeout))
	if err != nil {
		return err
	}
	defer c.Close()
	reply, err := redis.String(redis.DoContext(c, ctx, "PING"))
	if err != nil {
		return err
	}
	if reply != "PONG" {
		return fmt.Errorf("PING answered %q", reply)
	}
	return nil
}

// readyContext bounds ctx by readyTimeout.
func readyContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, readyTimeout)
}

// sleepCtx waits for d or until ctx is done, and reports whether it waited
// the whole time.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

type step struct {
	name string
	err  error
}

// unavailableError is the error of Start when it found no server.
type unavailableError struct {
	steps []step
}

func (e *unavailableError) Error() string {
	var b strings.Builder
	b.WriteString(ErrUnavailable.Error())
	b.WriteString(".\nTried, in order:\n")
	for _, s := range e.steps {
		fmt.Fprintf(&b, "  - %s: %v\n", s.name, indent(s.err.Error()))
	}
	b.WriteString(howTo)
	return b.String()
}

func (e *unavailableError) Is(target error) bool { return target == ErrUnavailable }

func (e *unavailableError) Unwrap() []error {
	errs := make([]error, len(e.steps))
	for i, s := range e.steps {
		errs[i] = s.err
	}
	return errs
}

// unavailable wraps the error of the one step tried, so that it too says
// how to get a server.
func unavailable(name string, err error) error {
	if err == nil {
		return nil
	}
	return &unavailableError{steps: []step{{name, err}}}
}

// forced is unavailable for a step forced by LOCKLAB_REDIS.
func forced(err error, mode string) error {
	return unavailable(fmt.Sprintf("%s (forced by %s=%s)", mode, EnvMode, mode), err)
}

func indent(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n      ")
}

const howTo = `Get a Redis server in one of these ways:
  - point at a running one: REDIS_ADDR=host:port (or REDIS_URL=redis://host:port/0);
  - start a Docker engine with a Redis image: LOCKLAB_REDIS_IMAGE and LOCKLAB_REDIS_TAG
    name it (default locklab/redis:local when the engine has it, else redis:7);
    without a registry, scripts/redis-image.sh (make setup) builds
    locklab/redis:local from a local redis-server;
  - install redis-server on PATH: apt-get install redis-server (Debian, Ubuntu),
    brew install redis (macOS), or run scripts/setup-redis.sh.
LOCKLAB_REDIS=external|docker|process forces one of these.
`
