package servererr

import (
	"fmt"
	"strings"
	"sync"
)

// Version is a Redis server's version. Where servers differ, the package
// answers as that version does; the zero Version answers as the newest.
// Versions before 7.0, whose command flags differ, are not modelled.
type Version struct{ Major, Minor int }

// ParseVersion reads "7.0.15" or "7.4".
func ParseVersion(s string) (Version, error) {
	var v Version
	parts := strings.SplitN(s, ".", 3)
	if len(parts) < 2 {
		return v, fmt.Errorf("servererr: version %q: want major.minor", s)
	}
	if _, err := fmt.Sscan(parts[0], &v.Major); err != nil {
		return v, fmt.Errorf("servererr: version %q: %w", s, err)
	}
	if _, err := fmt.Sscan(parts[1], &v.Minor); err != nil {
		return v, fmt.Errorf("servererr: version %q: %w", s, err)
	}
	return v, nil
}

// queuedOOM says whether, past maxmemory, the server refuses every
// command queued inside MULTI, not only those that may grow memory: 7.0
// to 7.2 do; 7.4 dropped it (redis/redis#12961).
func (v Version) queuedOOM() bool {
	return !v.atLeast(Version{7, 4})
}

// atLeast says whether v is o or later; the zero Version is the newest.
func (v Version) atLeast(o Version) bool {
	return v == Version{} || v.Major > o.Major || v.Major == o.Major && v.Minor >= o.Minor
}

// Server is a model of one Redis server: the states it is in, and what
// it knows of the scripts and functions its clients sent. Its methods
// may be called from several goroutines.
type Server struct {
	Version Version

	mu        sync.Mutex
	on        map[State]bool
	scripts   map[string]script     // by SHA1: the scripts seen in EVAL and SCRIPT LOAD
	functions map[string]scriptFlag // by name: the functions seen in FUNCTION LOAD
	reloaded  map[string]bool       // since the cache was emptied, the scripts sent again
	parsed    map[string]script     // by text: the scripts read so far
}

// parse reads a script's text once.
func (s *Server) parse(body string) script {
	if sc, ok := s.parsed[body]; ok {
		return sc
	}
	if s.parsed == nil {
		s.parsed = map[string]script{}
	}
	sc := parseScript(body)
	s.parsed[body] = sc
	return sc
}

// Begin switches state s on: every later command it applies to gets its
// error reply, until End.
func (s *Server) Begin(st State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on == nil {
		s.on = map[State]bool{}
	}
	s.on[st] = true
	if st == ScriptsFlushed {
		s.reloaded = map[string]bool{}
	}
}

// End switches state s off.
func (s *Server) End(st State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.on, st)
}

// In says whether state s is on.
func (s *Server) In(st State) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.on[st]
}

// NewConn starts the model of one client connection to the server:
// the transaction it is in, if any.
func (s *Server) NewConn() *Conn { return &Conn{srv: s} }

// learn records the scripts and functions a command sends.
func (s *Server) learn(cmd Command) {
	var body string
	switch {
	case cmd.is("eval", "eval_ro") && len(cmd) > 1:
		body = cmd[1]
	case cmd.is("script|load") && len(cmd) > 2:
		body = cmd[2]
	case cmd.is("function|load") && len(cmd) > 2:
		for name, flags := range parseLibrary(cmd[len(cmd)-1]) {
			if s.functions == nil {
				s.functions = map[string]scriptFlag{}
			}
			s.functions[name] = flags
		}
		return
	default:
		return
	}
	sc := s.parse(body)
	if s.scripts == nil {
		s.scripts = map[string]script{}
	}
	s.scripts[sc.sha] = sc
	if s.reloaded != nil {
		s.reloaded[sc.sha] = true
	}
}

// flags returns the flags the server checks for cmd (getCommandFlags,
// server.c): a script's or a function's declared flags replace the
// command's own. sc is the script cmd runs, when the server knows it.
// ok is false for a command the table does not hold.
func (s *Server) flags(cmd Command) (f Flag, sc *script, ok bool) {
	f, ok = lookup(cmd, s.Version)
	if !ok || len(cmd) < 2 {
		return f, nil, ok
	}
	switch {
	case cmd.is("eval", "eval_ro"):
		p := s.parse(cmd[1])
		sc = &p
	case cmd.is("evalsha", "evalsha_ro"):
		sha := strings.ToLower(cmd[1])
		known, found := s.scripts[sha]
		if !found {
			// A script the model has not seen is taken as most
			// are: without shebang, and not growing memory first.
			known = script{sha: sha, compat: true}
		}
		sc = &known
	case cmd.is("fcall", "fcall_ro"):
		// A function the model has not seen registered is taken as
		// one without flags, as most are: it writes and may grow
		// memory.
		return s.functions[cmd[1]].toCmdFlags(f), nil, true
	}
	if sc != nil && !sc.compat {
		f = sc.flags.toCmdFlags(f)
	}
	return f, sc, true
}
