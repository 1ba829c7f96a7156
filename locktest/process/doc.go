// Package process runs the conformance suite of package locktest on a lock
// written in any language: the lock is a program, started once per
// simulated client, which the suite drives with a small line protocol on
// its standard input and output.
//
//	locktest.Run(t, process.Factory([]string{"php", "mylock.php"}), expect)
//
// docs/exec.md in the repository describes the protocol with a complete
// example program; lockcheck -exec 'COMMAND' runs it from the command
// line.
//
// # The protocol
//
// The program is started with LOCKLAB_REDIS_ADDR, the host:port of the
// client's own proxy to Redis, which every one of its connections must
// dial, and LOCKLAB_CLIENT, the client's name (A, B, ...). It writes
//
//	ready              or    ready refresh
//
// It may add granularity=<ms>, the step in which its lock counts TTLs
// ("ready refresh granularity=1000" for one that sends EX): the suite then
// asks it only for TTLs that are whole multiples of it. It
// then answers each request, one line each way:
//
//	acquire <key> <ttl_ms>      ok <handle> | busy | error <message>
//	release <handle>            ok | not-held [message] | error <message>
//	refresh <handle> <ttl_ms>   ok | not-held [message] | error <message>
//
// A read-write lock adds the word shared to its ready line, and answers
// "acquire-shared <key> <ttl_ms>", a reader's attempt, as it answers
// acquire, a writer's; a semaphore adds permits=<n>, and weighted when it
// answers "acquire-n <key> <n> <ttl_ms>" (see kinds.go). A lock that
// does not live at the suite's key alone names its keys, K standing for
// that key: keys=<names> those of its state, which make the strategy a
// strategy.Keyed, and beside=<names> those it writes beside them, a
// strategy.SideKeyed (see keys.go). An acquire is
// one attempt; the suite does the waiting. A handle is one
// word the program chooses; the suite may release the same handle twice.
// refresh comes only to a program that announced it, and its locks then
// implement strategy.Refresher. busy becomes an error matching
// strategy.ErrNotAcquired, not-held one matching strategy.ErrNotHeld, and
// error an error with the message. Before its answer, a program that reads
// its clock may write "clock <unix_ms>" and wait for the line "go": the
// reading goes into the timeline, and clock-skew learns that the lock
// reads a clock. When its standard input ends, the program exits.
//
// # Faults
//
// A crash of the client kills the program with SIGKILL, with every process
// it started, right after the chosen reply has reached it. A pause holds
// its next command at its proxy, as for any client. A client whose clock
// is skewed runs the program under libfaketime (LD_PRELOAD, FAKETIME with
// the skew in seconds to the microsecond), which moves the time of day the
// C library gives it (PHP's microtime, Python's time.time), not its
// monotonic clocks.
//
// # Errors
//
// Every request has a timeout (WithTimeout, 10s by default) and respects
// its context. A program that does not start, exits, hangs, writes a line
// the protocol does not have, or whose clock notices show that the skew
// did not reach it, is killed, and the request fails with an *Error
// (matching ErrProtocol) that names the program, the client, the request,
// what came back and the end of the program's standard error; so does
// every later request on it. The suite turns that into an error for the
// property, never a hang. Requests on a crashed client fail with an error
// matching ErrCrashed.
package process
