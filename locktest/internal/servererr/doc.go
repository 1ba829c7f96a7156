// Package servererr says which error replies a real Redis server can
// give a command, and when, so that a fault layer answers in a server's
// place only as a server would: never MULTI with an error, OOM only to a
// command that may grow memory, NOSCRIPT only to EVALSHA.
//
// A server refuses commands in states, which last: while it loads its
// dataset (LOADING), while a script or function runs past
// busy-reply-threshold (BUSY), as a replica cut from its master with
// replica-serve-stale-data no (MASTERDOWN, and READONLY for a write),
// past maxmemory with nothing to evict (OOM), once its script cache is
// emptied (NOSCRIPT), after a failed background save (MISCONF), and
// short of the replicas min-replicas-to-write asks (NOREPLICAS). Which
// commands a state refuses follows from their flags (write, denyoom,
// loading, stale, allow_busy), checked by processCommand in Redis's
// server.c in a fixed order; a script's or a function's declared flags
// replace the command's, and a script without shebang meets the checks
// as it runs.
//
// The flags are a static table, as COMMAND INFO reports them on Redis
// 7.0, with what 7.2 and 7.4 changed; the tests read COMMAND INFO on a real server and fail
// where it differs, and put a real server in each state to check that
// the model gives every error reply the server gives, and no other.
//
// # Use
//
// [Replies] lists the error replies a command can get, for a fault
// given once. For a state that lasts, make a [Server], one [Conn] per
// client connection, and pass every command the connection sends
// through [Conn.Answer], in order, whatever the state:
//
//	srv := &servererr.Server{Version: v} // v from INFO server's redis_version
//	conn := srv.NewConn()
//	srv.Begin(servererr.OOM)
//	a := conn.Answer(servererr.FromArgs(args))
//	switch {
//	case a.Reply != "":
//		// answer the client a.Reply; send the server nothing, or
//		// DISCARD if a.Discard
//	case a.Instead != nil:
//		// send the server a.Instead; its reply goes to the client
//	default:
//		// send the command on
//	}
//	srv.End(servererr.OOM)
//
// A script meets some states only as it runs, at its calls (a write
// while writes are stopped or past maxmemory, a read on a stale
// replica), and whether it gets there depends on the data: a release
// whose token does not match never writes. For such a script
// [Answer.Instead] is the command to send in its place: the same script
// behind a shim that refuses its calls as the server would, so that
// the server behind the fault layer runs its reads and fails it where,
// and only where, a server in the state would.
//
// Inside MULTI, a refused command flags the transaction, as Redis does,
// and EXEC then answers EXECABORT with [Answer.Discard] set: the server
// behind the fault layer queued the rest and must be sent DISCARD in
// EXEC's place. A command queued while a state is on is answered, or
// replaced, as it is queued.
//
// What the model does not know it does not claim: a command outside the
// table gets no reply; an EVALSHA whose script it never saw is taken as
// a script without shebang that runs as it is; a function it never saw
// registered as one without flags. Two things it cannot do: a script
// queued before a state began meets it as EXEC runs it, but the server
// behind has queued it as it was; and a function (FCALL) that declares
// allow-stale meets a stale replica at its calls, which no shim reaches.
// An error the shim raises names the shim's script and line 1 at its end
// where the server names the script's own and the call's line.
package servererr
