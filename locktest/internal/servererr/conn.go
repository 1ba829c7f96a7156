package servererr

import "strings"

// Conn is the model of one client connection: whether it is inside
// MULTI, what it queued, and whether a queued command was refused.
// Answer each command the connection sends, in order, refused or not,
// so that it follows the transaction. A Conn is used by one goroutine.
type Conn struct {
	srv *Server

	multi  bool      // between MULTI and EXEC, DISCARD or RESET
	dirty  bool      // a command was refused since MULTI: EXEC aborts
	queued []Command // the commands the server queued
	qFlags Flag      // the flags of the queued commands, or'ed
	qInv   Flag      // their complements, or'ed: a flag one of them lacks
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
	// Elements, for an EXEC that runs, gives for each queued command the
	// error reply its place in EXEC's reply gets ("" for one that
	// runs as usual): an EVALSHA whose script is gone, a script refused
	// at its first write. Nil when every queued command runs.
	Elements []string
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
		a := Answer{}
		if c.dirty {
			a = Answer{Reply: ReplyExecAbort, Discard: true}
		} else {
			for i, q := range c.queued {
				qf, qsc, _ := s.flags(q)
				if r := c.inCommand(q, qf, qsc); r != "" {
					if a.Elements == nil {
						a.Elements = make([]string, len(c.queued))
					}
					a.Elements[i] = r
				}
			}
		}
		c.reset()
		return a
	case c.multi && !cmd.is("watch", "quit"):
		// queueMultiCommand, multi.c: the server answers QUEUED.
		c.queued = append(c.queued, cmd)
		if known {
			c.qFlags |= f
			c.qInv |= ^f
		}
		return Answer{}
	}
	if !known {
		return Answer{}
	}
	return Answer{Reply: c.inCommand(cmd, f, sc)}
}

// reset leaves the transaction, as discardTransaction does.
func (c *Conn) reset() {
	c.multi, c.dirty, c.queued, c.qFlags, c.qInv = false, false, nil, 0, 0
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

// inCommand is the error a command the checks let through meets as it
// runs, from the states on: an EVALSHA whose script is gone (NOSCRIPT);
// a script without shebang, on a stale replica before it starts
// (scriptPrepareForRun, script.c), or past maxmemory at its first
// write when that write may grow memory (scriptVerifyOOM, script.c).
func (c *Conn) inCommand(cmd Command, f Flag, sc *script) string {
	on := c.srv.on
	if !cmd.is("eval", "evalsha", "eval_ro", "evalsha_ro") {
		return ""
	}
	sha := ""
	if sc != nil {
		sha = sc.sha
	}
	if cmd.is("evalsha", "evalsha_ro") && on[ScriptsFlushed] && len(cmd) > 1 {
		if !c.srv.reloaded[strings.ToLower(cmd[1])] {
			return ReplyNoScript
		}
	}
	if sc == nil || !sc.compat {
		return ""
	}
	if on[MasterDown] {
		return ReplyMasterDown
	}
	if on[OOM] && !on[Busy] && !on[BusyFunction] && sc.oomLine > 0 {
		return scriptOOM(sha, sc.oomLine)
	}
	return ""
}
