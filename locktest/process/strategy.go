package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locklab/locklab/strategy"
)

// Option configures Factory.
type Option func(*config)

type config struct {
	argv    []string
	name    string
	dir     string
	env     []string
	timeout time.Duration
	grace   time.Duration
}

// WithName sets how errors and timelines name the program; by default its
// command line, joined with spaces.
func WithName(name string) Option {
	return func(c *config) {
		if name != "" {
			c.name = name
		}
	}
}

// WithDir sets the program's working directory; by default the caller's.
func WithDir(dir string) Option { return func(c *config) { c.dir = dir } }

// WithEnv adds variables, "KEY=value", to the program's environment, which
// is otherwise the caller's, with LOCKLAB_REDIS_ADDR, LOCKLAB_REDIS_PASSWORD
// and LOCKLAB_CLIENT, and without what could log in to the user's server
// (REDIS_URL, REDISCLI_AUTH, the TLS files' variables).
func WithEnv(kv ...string) Option { return func(c *config) { c.env = append(c.env, kv...) } }

// WithTimeout sets the most the program may take to write its ready line
// and to answer one request (10s by default). It must be longer than the
// suite holds a paused client's command: a second is the longest pause of
// the default Timing.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithGrace sets how long a program whose standard input has closed may
// take to exit before it is killed (1s by default).
func WithGrace(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.grace = d
		}
	}
}

func newConfig(argv []string, opts []Option) *config {
	c := &config{
		argv:    append([]string(nil), argv...),
		name:    strings.Join(argv, " "),
		timeout: 10 * time.Second,
		grace:   time.Second,
	}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}

// environ is the program's environment for client s.
func (c *config) environ(s spec) ([]string, error) {
	env := append(withoutCredentials(os.Environ()), c.env...)
	env = append(env, "LOCKLAB_REDIS_ADDR="+s.addr, "LOCKLAB_REDIS_PASSWORD="+s.secret, "LOCKLAB_CLIENT="+s.client)
	if s.skew != 0 {
		lib, err := FindFaketime()
		if err != nil {
			return nil, err
		}
		env = append(env, faketimeEnv(lib, s.skew, env)...)
	}
	return env, nil
}

// Strategy is a lock strategy served by a program over the line protocol.
type Strategy struct{ p *proc }

// Refresh reports whether the program announced refresh on its ready line:
// then the locks TryAcquire returns implement strategy.Refresher.
func (s *Strategy) Refresh() bool { return s.p.caps.refresh }

// Granularity is the step of TTL the program announced on its ready line
// (granularity=<ms>), 0 when it announced none: the suite then asks it
// only for TTLs that are whole multiples of it (strategy.Granular).
func (s *Strategy) Granularity() time.Duration { return s.p.caps.granularity }

// TryAcquire sends "acquire <key> <ttl_ms>". It returns the lock on "ok
// <handle>", an error matching strategy.ErrNotAcquired on "busy", and on
// "error <message>" an error with the message. A key with white space in it
// cannot be written on a line, nor a TTL below a millisecond: those fail
// before anything is sent.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.acquire(ctx, "acquire", key, "", ttl)
}

// acquire sends "<verb> <key> [<arg>] <ttl_ms>" and reads the answer as
// TryAcquire does.
func (s *Strategy) acquire(ctx context.Context, verb, key, arg string, ttl time.Duration) (strategy.Lock, error) {
	if err := strategy.Validate(key, ttl); err != nil {
		return nil, fmt.Errorf("%s: %w", s.p.cfg.name, err)
	}
	if strings.ContainsFunc(key, isSpace) {
		return nil, fmt.Errorf("%s: %w: %q has white space, which the line protocol cannot carry", s.p.cfg.name, strategy.ErrInvalidKey, key)
	}
	request := verb + " " + key + " "
	if arg != "" {
		request += arg + " "
	}
	request += strconv.FormatInt(ttl.Milliseconds(), 10)
	a, err := s.p.call(ctx, request)
	if err != nil {
		return nil, err
	}
	switch a.word {
	case "ok":
		handle := strings.TrimSpace(a.rest)
		if handle == "" || strings.ContainsFunc(handle, isSpace) {
			return nil, s.p.fail(request, fmt.Sprintf("it answered %q, where the handle after ok must be one word", a.line()))
		}
		l := &Lock{s: s, key: key, handle: handle}
		if s.p.caps.refresh {
			return RefreshLock{l}, nil
		}
		return l, nil
	case "busy":
		if a.rest != "" {
			return nil, s.p.fail(request, fmt.Sprintf("it answered %q, where busy takes nothing after it", a.line()))
		}
		return nil, fmt.Errorf("%s: %q: %w", s.p.cfg.name, key, strategy.ErrNotAcquired)
	case "error":
		return nil, s.opError(verb, key, message(a.rest))
	}
	return nil, s.p.fail(request, fmt.Sprintf("it answered %q, which is none of ok <handle>, busy, error <message>", a.line()))
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

// line is the answer as the program wrote it.
func (a answer) line() string {
	if a.rest == "" {
		return a.word
	}
	return a.word + " " + a.rest
}

// message is the error of an "error <message>" answer.
func message(m string) error {
	if m = strings.TrimSpace(m); m == "" {
		m = "(no message)"
	}
	return errors.New(m)
}

func (s *Strategy) opError(op, key string, err error) error {
	return &strategy.OpError{Strategy: s.p.cfg.name, Op: op, Key: key, Err: err}
}

// Lock is a lock held through a program: the handle it answered.
type Lock struct {
	s      *Strategy
	key    string
	handle string
}

// Key returns the locked key.
func (l *Lock) Key() string { return l.key }

// Handle returns the word the program answered the acquire with.
func (l *Lock) Handle() string { return l.handle }

// Release sends "release <handle>": nil on "ok", an error matching
// strategy.ErrNotHeld on "not-held [message]", and on "error <message>"
// an error with the message. It may be called more than once; each call is
// a request.
func (l *Lock) Release(ctx context.Context) error {
	return l.done(ctx, "release", "release "+l.handle)
}

// done sends a release or a refresh and reads its answer.
func (l *Lock) done(ctx context.Context, op, request string) error {
	a, err := l.s.p.call(ctx, request)
	if err != nil {
		return err
	}
	switch a.word {
	case "ok":
		if a.rest != "" {
			break
		}
		return nil
	case "not-held":
		if m := strings.TrimSpace(a.rest); m != "" {
			return l.s.opError(op, l.key, fmt.Errorf("%w: %s", strategy.ErrNotHeld, m))
		}
		return l.s.opError(op, l.key, strategy.ErrNotHeld)
	case "error":
		return l.s.opError(op, l.key, message(a.rest))
	}
	return l.s.p.fail(request, fmt.Sprintf("it answered %q, which is none of ok, not-held [message], error <message>", a.line()))
}

// RefreshLock is the lock of a program that announced refresh.
type RefreshLock struct{ *Lock }

var _ strategy.Refresher = RefreshLock{}

// Refresh sends "refresh <handle> <ttl_ms>", and reads the answer as
// Release does.
func (l RefreshLock) Refresh(ctx context.Context, ttl time.Duration) error {
	if ttl < time.Millisecond {
		return fmt.Errorf("%s: refresh %q: %w: %v is below 1ms", l.s.p.cfg.name, l.key, strategy.ErrInvalidTTL, ttl)
	}
	return l.done(ctx, "refresh", "refresh "+l.handle+" "+strconv.FormatInt(ttl.Milliseconds(), 10))
}

// newStrategy starts the program for one client.
func newStrategy(cfg *config, s spec) (*Strategy, *proc, error) {
	p, err := start(cfg, s)
	if err != nil {
		return nil, nil, err
	}
	return &Strategy{p: p}, p, nil
}

// credentialVars are the variables that may name the user's server with
// its password or certificates: a program under test talks only to its
// proxy, and gets none of them.
var credentialVars = []string{"REDIS_URL", "REDISCLI_AUTH",
	"LOCKLAB_REDIS_CA", "LOCKLAB_REDIS_CERT", "LOCKLAB_REDIS_KEY", "LOCKLAB_REDIS_SERVER_NAME"}

// withoutCredentials returns env without the credentialVars.
func withoutCredentials(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(credentialVars, name)
	})
}
