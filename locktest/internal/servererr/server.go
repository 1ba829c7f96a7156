package servererr

import (
	"strings"
	"sync"
)

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

// Applies says what a server in state s answers cmd, sent outside a
// transaction: the error reply it gives in place of running it, and ok
// true; ok false when cmd runs, if only to meet the state as it runs (a
// script, see Answer.Instead). It knows of scripts only what cmd
// carries: an EVALSHA's script is taken as one without shebang (see
// Server to tell it more).
func (s State) Applies(cmd Command) (reply string, ok bool) {
	srv := &Server{}
	srv.Begin(s)
	a := srv.NewConn().Answer(cmd)
	return a.Reply, a.Reply != ""
}

// Meets says whether a server in state s does anything to cmd, sent
// outside a transaction, but run it: an error reply in its place
// (Applies), or a script run so that the state meets its calls
// (Answer.Instead), as OOM meets a script without shebang at its first
// write.
func (s State) Meets(cmd Command) bool {
	srv := &Server{}
	srv.Begin(s)
	a := srv.NewConn().Answer(cmd)
	return a.Reply != "" || len(a.Instead) > 0
}

// Replies lists the error replies a server can give cmd, sent outside a
// transaction, in any of the States, before running it: the ones a fault
// layer may answer it with. A command none applies to (MULTI, DISCARD,
// WATCH, AUTH...) has none. A script without shebang meets stopped
// writes only as it runs, if it gets to a write: those errors are not
// listed (see Answer.Instead).
func Replies(cmd Command) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range States {
		if r, ok := s.Applies(cmd); ok && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
