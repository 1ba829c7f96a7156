package servererr

import "strings"

// Conn is the model of one client connection: whether it is inside
// MULTI, the flags of what it queued, and whether a queued command was
// refused.
// Answer each command the connection sends, in order, refused or not,
// so that it follows the transaction. A Conn is used by one goroutine.
type Conn struct {
	srv *Server

	multi  bool // between MULTI and EXEC, DISCARD or RESET
	dirty  bool // a command was refused since MULTI: EXEC aborts
	qFlags Flag // the flags of the queued commands, or'ed
	qInv   Flag // their complements, or'ed: a flag one of them lacks
}

// Answer is what the server does with one command.
type Answer struct {
	// Reply is the error reply the server gives in place of running
	// the command, code first; empty when the command goes to the
	// server: it runs, or, inside MULTI, it is queued (+QUEUED).
	Reply string
	// Discard is set for an EXEC the server answers with EXECABORT: the
	// transaction ends and nothing queued runs. The server never
	// refused the commands the model did, so it must be sent DISCARD
	// in EXEC's place.
	Discard bool
	// Instead, when set, is what to send the server in the command's
	// place, Reply being empty: a script behind a shim that refuses its
	// calls as the state does, if it gets to them (see shim); or,
	// inside MULTI, a script that gives the error the command meets
	// when EXEC runs it (an EVALSHA whose script is gone).
	Instead Command
}

// Answer says what the server, in the states it is in now, does with
// cmd, sent next on this connection.
func (c *Conn) Answer(cmd Command) Answer {
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	f, sc, known := s.flags(cmd)
	isExec := cmd.is("exec")
	if known {
		if r := c.refuse(cmd, f, isExec); r != "" {
			if isExec {
				queued := c.multi
				c.reset()
				return Answer{Reply: execAbort(r), Discard: queued}
			}
			if c.multi {
				c.dirty = true // flagTransaction, multi.c
			}
			return Answer{Reply: r}
		}
	}
	s.learn(cmd)
	switch {
	case cmd.is("multi"):
		if !c.multi {
			c.reset()
			c.multi = true
		}
		return Answer{}
	case cmd.is("discard", "reset"):
		c.reset()
		return Answer{}
	case isExec:
		if !c.multi {
			return Answer{}
		}
		dirty := c.dirty
		c.reset()
		if dirty {
			return Answer{Reply: ReplyExecAbort, Discard: true}
		}
		return Answer{}
	case c.multi && !cmd.is("watch", "quit"):
		// queueMultiCommand, multi.c: the server answers QUEUED.
		if known {
			c.qFlags |= f
			c.qInv |= ^f
		}
		r, instead := c.inCommand(cmd, sc)
		if r != "" {
			instead = failing(r)
		}
		return Answer{Instead: instead}
	}
	if !known {
		return Answer{}
	}
	r, instead := c.inCommand(cmd, sc)
	return Answer{Reply: r, Instead: instead}
}

// reset leaves the transaction, as discardTransaction does.
func (c *Conn) reset() {
	c.multi, c.dirty, c.qFlags, c.qInv = false, false, 0, 0
}

// refuse is processCommand's checks of the states on, in its order
// (server.c), for a command with flags f: the reply it gets in place of
// running, or "". For EXEC, the flags of the queued commands count
// too: EXEC may grow memory or write when one of them does, and is
// refused while loading or stale when one of them would be.
func (c *Conn) refuse(cmd Command, f Flag, isExec bool) string {
	on := c.srv.on
	q, qInv := Flag(0), Flag(0)
	if isExec {
		q, qInv = c.qFlags, c.qInv
	}
	busy := on[Busy] || on[BusyFunction]
	// Past maxmemory; not checked while a script is busy.
	if on[OOM] && !busy {
		deny := (f|q)&CmdDenyOOM != 0
		if c.multi && !isExec && !cmd.is("discard", "quit", "reset") && c.srv.Version.queuedOOM() {
			deny = true
		}
		if deny {
			return ReplyOOM
		}
	}
	if on[DiskError] && ((f|q)&CmdWrite != 0 || cmd.is("ping")) {
		return ReplyMisconf
	}
	if on[NoReplicas] && (f|q)&CmdWrite != 0 {
		return ReplyNoReplicas
	}
	if on[MasterDown] {
		if (f|q)&CmdWrite != 0 {
			return ReplyReadOnly
		}
		if f&CmdStale == 0 || qInv&CmdStale != 0 {
			return ReplyMasterDown
		}
	}
	if on[Loading] && (f&CmdLoading == 0 || qInv&CmdLoading != 0) {
		return ReplyLoading
	}
	if busy && f&CmdAllowBusy == 0 {
		if on[Busy] {
			return ReplyBusy
		}
		return ReplyBusyFunction
	}
	return ""
}

// inCommand is what a command the checks let through meets as it runs,
// from the states on: the error reply it gets for sure (an EVALSHA
// whose script is gone; a script without shebang on a stale replica,
// before it starts, scriptPrepareForRun in script.c), or the shimmed
// script to run in its place when its writes are stopped: writes
// refused (scriptVerifyWriteCommandAllow) or past maxmemory
// (scriptVerifyOOM).
func (c *Conn) inCommand(cmd Command, sc *script) (reply string, instead Command) {
	on := c.srv.on
	if !cmd.is("eval", "evalsha", "eval_ro", "evalsha_ro") {
		return "", nil
	}
	if cmd.is("evalsha", "evalsha_ro") && on[ScriptsFlushed] && len(cmd) > 1 {
		if !c.srv.reloaded[strings.ToLower(cmd[1])] {
			return ReplyNoScript, nil
		}
	}
	if sc == nil {
		return "", nil
	}
	if sc.compat && on[MasterDown] {
		return ReplyMasterDown, nil
	}
	// A script the model never saw cannot be shimmed.
	if sc.body == "" {
		return "", nil
	}
	if !sc.compat {
		// Declared flags: the checks before it ran were the
		// command's; a script that may run on a stale replica meets it
		// at each call.
		if on[MasterDown] && sc.flags&allowStale != 0 {
			return "", asEval(cmd, shimmed(sc.body, replyStale, refuseFresh))
		}
		return "", nil
	}
	// A read-only script's writes fail whatever the state.
	if !sc.writes || cmd.is("eval_ro", "evalsha_ro") {
		return "", nil
	}
	switch {
	case on[DiskError]:
		return "", asEval(cmd, shimmed(sc.body, ReplyMisconf, refuseWrites))
	case on[NoReplicas]:
		return "", asEval(cmd, shimmed(sc.body, ReplyNoReplicas, refuseWrites))
	case on[OOM] && !on[Busy] && !on[BusyFunction]:
		return "", asEval(cmd, shimmed(sc.body, ReplyOOM, refuseGrowth))
	}
	return "", nil
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
