// Package wire is a loopback proxy for the Redis protocol, through which
// locktest can watch and steer one simulated client whatever its library
// or language: it sees every command the client sends and every reply it
// gets, on the wire.
//
// # What it does
//
// [Listen] starts a proxy on 127.0.0.1 on a free port. For each connection
// it accepts, it dials Redis ([Config.Addr], or [Config.Dial]) and relays
// both directions: commands from the client to Redis, replies from Redis
// to the client, the bytes unchanged and in order. Each connection has
// three goroutines: one reads the client's commands, one runs them through
// [Hooks.Before] and forwards them, one relays Redis's replies and runs
// [Hooks.After] and [Hooks.Push]. The reader never waits for the hooks,
// so a client writing a long pipeline before it reads is never stalled by
// the proxy.
//
// Commands are read with the reader of github.com/tidwall/redcon, which
// takes RESP arrays and inline commands alike. Replies are read by this
// package's own reader (reply.go): redcon's reply parser (ReadNextRESP)
// knows only RESP2's five types and gives up on a RESP3 map, null, double,
// push or attribute, and redigo's reader has the same limit; the Go
// clients that read RESP3 (go-redis, rueidis) keep their readers internal.
// The reader frames and decodes every RESP2 and RESP3 type except
// streamed strings and aggregates, which Redis does not send.
//
// # What passes through
//
//   - Pipelines: the client may send many commands before reading a reply;
//     each is forwarded once Before returns, in order, and each reply is
//     paired with its command in order.
//   - MULTI/EXEC: commands between MULTI and EXEC or DISCARD are marked
//     [Command.InMulti] (Redis answers QUEUED and runs them at EXEC).
//   - Scripts: EVAL, EVALSHA and its NOSCRIPT error are commands like any.
//   - Pub/sub: the replies of SUBSCRIBE and its family (one per channel, or
//     per subscription an UNSUBSCRIBE without arguments ends) are paired
//     with their command; published messages, which answer no command, go
//     to [Hooks.Push]. In RESP2 a message is told from a reply by its
//     first element ("message", "pmessage", "smessage") while the
//     connection has subscriptions.
//   - Handshakes and RESP3: HELLO, AUTH, CLIENT SETNAME... pass as they
//     are; after HELLO 3, maps, sets, nulls, doubles, booleans, big
//     numbers, verbatim strings and attributes are relayed and decoded,
//     and RESP3 pushes (messages, client-side caching invalidations) go to
//     Push.
//
// Not handled: MONITOR and CLIENT REPLY OFF/SKIP, after which Redis's
// replies no longer match the commands one for one (the pairing would
// drift); the proxy relays their bytes but the hooks would pair wrongly.
// A malformed command (or an empty one, "*0") closes the connection.
//
// # The hook contract
//
// Per connection, hooks are called in the order things happen, and never
// two at once, except Before, which may block while replies to earlier
// commands are relayed and their After run:
//
//   - Before(ctx, cmd) is called for each command, in order, before it is
//     forwarded. It may block (a pause; the explorer's turn) and must
//     return once ctx is done, which is when the connection closes. If it
//     returns an error, the command is not sent and the client is answered,
//     in its turn among the replies, with an error reply: the error's text,
//     after "ERR " unless it starts with a code of its own (a first word in
//     capitals).
//   - After(cmd, reply, err) is called once for every command that went
//     through Before, with the reply as Redis sent it ([Value.Raw] has its
//     bytes), just before the reply is written to the client: what After
//     records comes before anything the client does because of the reply.
//     For a subscribe-family command answered by several replies, reply is
//     an array of them. err is [ErrClosed] when there is no reply to give
//     because the connection closed first; [Command.Sent] says whether
//     Redis got the command at all. A command the client sends after it
//     got a reply passes Before only once that reply's After has returned.
//     [Proxy.Crash] called from After lets that reply reach the client and
//     then cuts every connection, so the client's next command, on any
//     connection, is never sent: a process that dies right after a reply.
//   - Push(conn, v) is called for a reply that answers no command, just
//     before it is written to the client.
//
// Conn.Close and Proxy.Crash close both sides of the connections (the
// client's and Redis's) and may be called from a hook; Crash also refuses
// every later connection, as a dead process makes none. Proxy.Refuse
// refuses new connections for a while, leaving those open alone: a
// server out of reach after a dropped connection. Conn.Close from After
// loses the reply (Redis ran the command; the client never reads its
// reply), and from Before, with an error, drops the command before it
// leaves; an error alone from Before is an error reply in Redis's place;
// After that blocks delays the reply (past a caller's deadline). [Proxy.Close]
// closes everything and waits for every goroutine; it must not be called
// from a hook.
//
// # In locktest
//
// locktest runs one proxy per simulated client and hands the client's
// factory its address (with a redigo pool dialing it). Its client.before
// is Before: a crashed client sends nothing, a paused one waits there, the
// scheduler's turn is taken there, and an injected failure is an error
// from it. Its client.after is After: the timeline is recorded there,
// before the client reads its reply, so that the timeline has a command
// before whatever the client does because of it; commands are counted per
// client across its connections, and a crash is Proxy.Crash from After.
// Every command is steered, pipelined or not. The proxy adds about 45µs
// to a round trip on loopback (BenchmarkProxyRoundTrip), far below the
// scenarios' timings; the redigo connection wrapper it replaced could
// steer only redigo's Do.
package wire
