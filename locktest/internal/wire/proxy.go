package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/redcon"
)

// Hooks are what the proxy calls as commands and replies cross it. Any of
// them may be nil. See the package documentation for the contract.
type Hooks struct {
	// Before is called before a command is forwarded to Redis. It may
	// block, and must return once ctx is done (the connection closed). A
	// non-nil error fails the command: it is not sent, and the client is
	// answered with an error reply carrying the error's text.
	Before func(ctx context.Context, cmd *Command) error
	// After is called once for every command that went through Before,
	// with its reply, just before the reply is written to the client:
	// whatever After records comes before anything the client does on
	// getting the reply. err is non-nil when there is no reply to give:
	// the connection closed first (cmd.Sent says whether Redis was sent
	// the command; reply is then Redis's reply if one came). A Proxy.Crash
	// from After lets this reply reach the client, then cuts every
	// connection: the client's next command is never forwarded.
	After func(cmd *Command, reply Value, err error)
	// Push is called for a reply that answers no command (a pub/sub
	// message, a RESP3 push), just before it is written to the client.
	Push func(c *Conn, push Value)
}

// Command is one command a client sent.
type Command struct {
	Conn *Conn    // the connection it came on
	Seq  int      // its place among the connection's commands, from 1
	Args [][]byte // the command's name and arguments, as the client sent them
	// InMulti says Redis only queues the command: it came between MULTI
	// and EXEC or DISCARD, and runs (if ever) at EXEC.
	InMulti bool
	// Sent says the command was forwarded to Redis; false when Before
	// failed it or the connection closed first.
	Sent bool
	// SentIn, set by Before, is what After records of the caller's
	// work under way when the command came (the hooks' own: the start of
	// a lock call); the proxy does not read it.
	SentIn time.Duration
	// Rewritten, set by Before, says that it replaced Args: the new ones
	// are sent to Redis instead of what the client wrote.
	Rewritten bool
}

// Name returns the command's name in upper case.
func (c *Command) Name() string {
	if len(c.Args) == 0 {
		return ""
	}
	return strings.ToUpper(string(c.Args[0]))
}

// String renders the command on one line: its arguments separated by spaces.
func (c *Command) String() string { return string(bytes.Join(c.Args, []byte(" "))) }

// ErrClosed is returned to After for a command whose reply did not reach
// the client because the connection closed first.
var ErrClosed = errors.New("wire: the connection closed before the reply reached the client")

// Config says where a proxy forwards to and what it calls.
type Config struct {
	// Addr is the address of the Redis server (host:port).
	Addr string
	// Dial, when set, opens a connection to Redis instead of dialing Addr
	// over TCP.
	Dial  func(ctx context.Context) (net.Conn, error)
	Hooks Hooks
	// Lost, when set, is called when Redis closes a connection (or it
	// fails) that neither the client nor the proxy had closed: the server
	// cut it (CLIENT KILL, a timeout, a restart), not the test.
	Lost func(err error)
	// Crashed, when set, is called once a Crash has cut every connection,
	// the one whose reply After was handing over included (after that
	// reply was written). It may be called from a hook's goroutine.
	Crashed func()
	// Secret, when set, is the password a connection must give the proxy
	// (AUTH, or HELLO's AUTH) before anything it sends is relayed: the
	// proxy answers NOAUTH to anyone else, as Redis does, so that a local
	// process that finds the port does not reach a server the proxy has
	// logged in to. The proxy answers the AUTH itself; Redis never sees it
	// and the hooks are not called for it. RESET, which would log the
	// proxy's connection out of Redis and back to database 0, is refused.
	Secret string
	// NoAuth, when set, is called each time the proxy answers NOAUTH
	// while none of its connections has ever given the Secret: the
	// client sends its commands without logging in at all.
	NoAuth func()
}

// Proxy listens on a loopback port and relays each connection it accepts
// to Redis through a connection of its own.
type Proxy struct {
	cfg    Config
	ln     net.Listener
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	conns   map[*Conn]struct{}
	nextID  int
	crashed bool
	closed  bool
	refuse  bool // Refuse(true): new connections are closed at once
	authed  bool // a connection gave the Secret

	pendingCrash int // connections a Crash waits for, and the Crash itself
}

// Listen starts a proxy on 127.0.0.1 on a free port.
func Listen(cfg Config) (*Proxy, error) {
	if cfg.Dial == nil {
		addr := cfg.Addr
		cfg.Dial = func(ctx context.Context) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", addr)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{cfg: cfg, ln: ln, ctx: ctx, cancel: cancel, conns: map[*Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// Addr returns the address clients dial: 127.0.0.1 and the proxy's port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Crash closes every connection of the proxy, both sides, and refuses
// those that come later (they are accepted and closed at once): the
// client is dead, and so is whatever it had under way. Crash may be
// called from a hook.
func (p *Proxy) Crash() {
	p.mu.Lock()
	if p.crashed {
		p.mu.Unlock()
		return
	}
	p.crashed = true
	conns := p.connList()
	p.pendingCrash = 1 // this call's own share
	p.mu.Unlock()
	for _, c := range conns {
		if c.crashClose() {
			p.mu.Lock()
			p.pendingCrash++
			p.mu.Unlock()
		}
	}
	p.crashClosed()
}

// Refuse, with on, closes every connection the proxy accepts from now on
// at once, until Refuse(false): the server is out of reach for new
// connections, while those open stay open. A client that reconnects after
// a dropped connection finds no server, instead of a fresh connection on
// which it may wait for the reply to a command it sent on the old one.
func (p *Proxy) Refuse(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse = on
}

// crashClosed counts one share of a Crash done; the last calls Crashed.
func (p *Proxy) crashClosed() {
	p.mu.Lock()
	p.pendingCrash--
	last := p.pendingCrash == 0
	p.mu.Unlock()
	if last && p.cfg.Crashed != nil {
		p.cfg.Crashed()
	}
}

// crashClose closes c, unless it is handing a reply to the client (Crash
// was called from that reply's After): then it closes once the reply is
// written, and crashClose reports that it deferred.
func (c *Conn) crashClose() (deferred bool) {
	c.mu.Lock()
	if c.delivering {
		c.closeAfter = true
		c.mu.Unlock()
		return true
	}
	c.mu.Unlock()
	c.Close()
	return false
}

// Close stops listening, closes every connection and waits until all the
// proxy's goroutines have returned. It must not be called from a hook.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	conns := p.connList()
	p.mu.Unlock()
	err := p.ln.Close()
	p.cancel()
	for _, c := range conns {
		c.Close()
	}
	p.wg.Wait()
	return err
}

func (p *Proxy) isCrashed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.crashed
}

func (p *Proxy) connList() []*Conn {
	list := make([]*Conn, 0, len(p.conns))
	for c := range p.conns {
		list = append(list, c)
	}
	return list
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		nc, err := p.ln.Accept()
		if err != nil {
			return // the listener is closed
		}
		p.mu.Lock()
		if p.closed || p.crashed || p.refuse {
			p.mu.Unlock()
			nc.Close()
			continue
		}
		p.nextID++
		c := newConn(p, p.nextID, nc)
		p.conns[c] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go c.run()
	}
}

// Conn is one client connection through the proxy, with its own
// connection to Redis.
type Conn struct {
	ID int // its number among the proxy's connections, from 1

	p      *Proxy
	client net.Conn
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once

	// Commands read from the client, waiting to go through Before. They
	// are read on a goroutine of their own so that a client writing a long
	// pipeline is never stopped while its replies are being relayed.
	in *inbox

	// out serialises what is written to the client with the hooks that
	// follow it, so that hooks run in the order things happen.
	out sync.Mutex

	mu      sync.Mutex
	server  net.Conn
	closing bool     // Close was called
	closed  bool     // replies are over; pending commands had their After
	queue   []*entry // commands sent or failed, waiting for their reply

	clientDone bool // the client closed its side: Redis closing its own is expected
	delivering bool // a reply's After has run and the reply is being written
	closeAfter bool // a Crash came while delivering: close once it is written

	// The processor's own state.
	seq     int
	inMulti bool
	authed  bool // the client gave the proxy's Secret (or there is none)

	// The relay's own state: the subscriptions, to count the replies of an
	// UNSUBSCRIBE without arguments and to tell messages from replies.
	subs map[string]map[string]bool // "subscribe", "psubscribe", "ssubscribe" -> names
}

// entry is a command waiting for its reply.
type entry struct {
	cmd    *Command // nil for an answer of the proxy's own, which no hook sees
	local  *Value   // the reply the proxy makes itself (a failed command)
	need   int      // how many replies Redis sends for it; -1 until known
	frames []Value  // those received so far
}

func newConn(p *Proxy, id int, nc net.Conn) *Conn {
	ctx, cancel := context.WithCancel(p.ctx)
	c := &Conn{ID: id, p: p, client: nc, ctx: ctx, cancel: cancel, subs: map[string]map[string]bool{},
		authed: p.cfg.Secret == ""}
	c.in = newInbox()
	return c
}

// Close closes both sides of the connection: the client's and the one to
// Redis. Commands waiting in Before see their context done. Close may be
// called from a hook.
func (c *Conn) Close() {
	c.once.Do(func() {
		c.cancel()
		c.mu.Lock()
		c.closing = true
		srv := c.server
		c.mu.Unlock()
		c.client.Close()
		if srv != nil {
			srv.Close()
		}
		c.in.wake()
		c.p.mu.Lock()
		delete(c.p.conns, c)
		c.p.mu.Unlock()
	})
}

func (c *Conn) run() {
	defer c.p.wg.Done()
	defer c.Close()
	srv, err := c.p.cfg.Dial(c.ctx)
	if err != nil {
		return
	}
	c.mu.Lock()
	c.server = srv
	closing := c.closing
	c.mu.Unlock()
	if closing {
		srv.Close()
		return
	}
	c.p.wg.Add(2)
	go c.read()
	go c.relay(srv)
	c.process(srv)
}

// read reads the client's commands with redcon's reader.
func (c *Conn) read() {
	defer c.p.wg.Done()
	rd := redcon.NewReader(c.client)
	var err error
	for {
		var cmd redcon.Command
		if cmd, err = rd.ReadCommand(); err != nil {
			break
		}
		c.in.put(cmd)
	}
	c.in.end()
	if !errors.Is(err, net.ErrClosed) && !isEOF(err) {
		c.Close() // a protocol error: Redis would close the connection too
	}
}

// process takes the client's commands in order, runs Before on each and
// forwards it or answers it with an error.
func (c *Conn) process(srv net.Conn) {
	for {
		rc, ok := c.nextCommand(srv)
		if !ok {
			return
		}

		// Wait for the After of a reply being relayed: the client may have
		// sent this command because it got that reply.
		c.out.Lock()
		//lint:ignore SA2001 an empty critical section: waiting for it is the point
		c.out.Unlock()

		args := rc.Args
		if c.p.cfg.Secret != "" && (!c.authed || isAuth(args)) {
			var answer []byte
			if args, answer = c.login(args); answer != nil {
				c.answer(answer)
				continue
			}
		}
		if c.p.cfg.Secret != "" && len(args) > 0 && strings.EqualFold(string(args[0]), "RESET") {
			c.answer(replyReset)
			continue
		}

		c.seq++
		cmd := &Command{Conn: c, Seq: c.seq, Args: args}
		name := cmd.Name()
		switch name {
		case "MULTI", "EXEC", "DISCARD", "WATCH", "RESET", "QUIT":
		default:
			cmd.InMulti = c.inMulti
		}
		var err error
		if h := c.p.cfg.Hooks.Before; h != nil {
			err = h(c.ctx, cmd)
		}
		if c.p.isCrashed() {
			// The client crashed while this command was on its way (on
			// another connection, or during Before): it is never sent.
			c.Close()
			c.afterClosed(cmd)
			return
		}
		if err == nil && c.ctx.Err() != nil {
			err = c.ctx.Err()
		}
		if err != nil {
			c.fail(cmd, err)
			continue
		}
		switch name {
		case "MULTI":
			c.inMulti = true
		case "EXEC", "DISCARD", "RESET":
			c.inMulti = false
		}
		raw := rc.Raw
		switch {
		case cmd.Rewritten:
			raw = encodeCommand(cmd.Args)
		case len(args) != len(rc.Args):
			raw = encodeCommand(args) // HELLO without its AUTH
		}
		if !c.forward(srv, cmd, name, raw) {
			return
		}
	}
}

// nextCommand waits for the client's next command. It returns false
// when the connection is closing, or when the client is done sending:
// then Redis is left to answer what it has and close its side, which
// ends the relay.
func (c *Conn) nextCommand(srv net.Conn) (redcon.Command, bool) {
	rc, ok := c.in.next(c.ctx)
	if c.ctx.Err() != nil {
		return redcon.Command{}, false
	}
	if !ok {
		c.mu.Lock()
		c.clientDone = true
		c.mu.Unlock()
		if tc, ok := srv.(interface{ CloseWrite() error }); ok {
			tc.CloseWrite()
		}
		<-c.ctx.Done()
		return redcon.Command{}, false
	}
	return rc, true
}

// inbox holds the commands read from a client until the relay takes them.
type inbox struct {
	mu    sync.Mutex
	cond  *sync.Cond
	cmds  []redcon.Command
	ended bool // the client has sent all it will send
}

func newInbox() *inbox {
	b := &inbox{}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// put adds a command read from the client.
func (b *inbox) put(cmd redcon.Command) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cmds = append(b.cmds, cmd)
	b.cond.Signal()
}

// end says that the client will send nothing more.
func (b *inbox) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ended = true
	b.cond.Broadcast()
}

// wake wakes a next waiting for a context that has ended.
func (b *inbox) wake() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cond.Broadcast()
}

// next waits for the next command; false once the client has sent all
// it will and every command was taken, or once ctx has ended.
func (b *inbox) next(ctx context.Context) (redcon.Command, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.cmds) == 0 && !b.ended && ctx.Err() == nil {
		b.cond.Wait()
	}
	if ctx.Err() != nil || len(b.cmds) == 0 {
		return redcon.Command{}, false
	}
	cmd := b.cmds[0]
	b.cmds[0] = redcon.Command{}
	b.cmds = b.cmds[1:]
	return cmd, true
}

// forward queues cmd, named name, for its reply and sends raw, its
// bytes, to Redis. It returns false when the connection is closed, or
// closing.
func (c *Conn) forward(srv net.Conn, cmd *Command, name string, raw []byte) bool {
	c.mu.Lock()
	if name == "QUIT" {
		c.clientDone = true // Redis answers and closes: the client's doing
	}
	if c.closed || c.closing {
		c.mu.Unlock()
		c.afterClosed(cmd)
		return false
	}
	cmd.Sent = true
	c.queue = append(c.queue, &entry{cmd: cmd, need: -1})
	c.mu.Unlock()
	if _, err := srv.Write(raw); err != nil {
		c.Close()
		return false
	}
	return true
}

// answer writes a reply the proxy makes itself to a command it does not
// relay (an AUTH to the proxy), in its turn among the replies of the
// commands before it; no hook sees either.
func (c *Conn) answer(raw []byte) {
	c.out.Lock()
	defer c.out.Unlock()
	c.mu.Lock()
	if c.closed || c.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
	if len(c.queue) > 0 {
		c.queue = append(c.queue, &entry{local: &Value{Raw: raw}})
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.write(raw, func() {})
}

// fail answers cmd with an error reply made from err, in its turn among
// the replies of the commands before it.
func (c *Conn) fail(cmd *Command, err error) {
	reply := errorReply(err)
	c.out.Lock()
	defer c.out.Unlock()
	c.mu.Lock()
	if c.closed || c.ctx.Err() != nil {
		c.mu.Unlock()
		c.after(cmd, Value{}, ErrClosed)
		return
	}
	if len(c.queue) > 0 {
		c.queue = append(c.queue, &entry{cmd: cmd, local: &reply})
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.deliver(cmd, reply)
}

func (c *Conn) afterClosed(cmd *Command) {
	c.out.Lock()
	defer c.out.Unlock()
	c.after(cmd, Value{}, ErrClosed)
}

// deliver calls After and writes the reply to the client; it is called
// with c.out held. It reports whether the client got the reply.
func (c *Conn) deliver(cmd *Command, reply Value) bool {
	return c.write(reply.Raw, func() { c.after(cmd, reply, nil) })
}

// write runs hook, then writes raw to the client; a Crash called by hook
// closes the connection only once raw is written. It is called with c.out
// held, and reports whether the write succeeded.
func (c *Conn) write(raw []byte, hook func()) bool {
	c.mu.Lock()
	c.delivering = true
	c.mu.Unlock()
	hook()
	_, err := c.client.Write(raw)
	c.mu.Lock()
	c.delivering = false
	closeAfter := c.closeAfter
	c.mu.Unlock()
	if closeAfter {
		c.Close()
		c.p.crashClosed()
	}
	return err == nil
}

func (c *Conn) after(cmd *Command, reply Value, err error) {
	if h := c.p.cfg.Hooks.After; h != nil {
		h(cmd, reply, err)
	}
}

// relay reads Redis's replies, relays each to the client as it came, and
// pairs it with its command or reports it as a push.
func (c *Conn) relay(srv net.Conn) {
	defer c.p.wg.Done()
	rr := newReplyReader(srv)
	for {
		v, err := rr.next()
		if err != nil {
			c.mu.Lock()
			lost := !c.closing && !c.clientDone
			c.mu.Unlock()
			if lost && c.p.cfg.Lost != nil {
				c.p.cfg.Lost(err)
			}
			break
		}
		if !c.relayOne(v) {
			break
		}
	}
	c.Close()
	c.out.Lock()
	defer c.out.Unlock()
	c.mu.Lock()
	c.closed = true
	pending := c.queue
	c.queue = nil
	c.mu.Unlock()
	for _, e := range pending {
		if e.cmd == nil {
			continue // the proxy's own answer
		}
		reply := Value{}
		if len(e.frames) > 0 {
			reply = joinFrames(e.frames)
		}
		c.after(e.cmd, reply, ErrClosed)
	}
}

// relayOne relays one reply and says whether the client is still there.
func (c *Conn) relayOne(v Value) bool {
	c.out.Lock()
	defer c.out.Unlock()
	c.mu.Lock()
	done, partial := c.pair(v)
	var locals []*entry
	if done != nil {
		for len(c.queue) > 0 && c.queue[0].local != nil {
			locals = append(locals, c.queue[0])
			c.queue = c.queue[1:]
		}
	}
	c.mu.Unlock()

	ok := true
	switch {
	case done != nil && len(done.frames) > 1:
		// The last of several replies to one command (SUBSCRIBE a b).
		ok = c.write(v.Raw, func() { c.after(done.cmd, joinFrames(done.frames), nil) })
	case done != nil:
		ok = c.deliver(done.cmd, v)
	default:
		ok = c.write(v.Raw, func() {
			if h := c.p.cfg.Hooks.Push; h != nil && !partial {
				h(c, v)
			}
		})
	}
	for _, e := range locals {
		switch {
		case e.cmd == nil: // the proxy's own answer: no hook
			if ok {
				ok = c.write(e.local.Raw, func() {})
			}
		case ok:
			ok = c.deliver(e.cmd, *e.local)
		default:
			c.after(e.cmd, Value{}, ErrClosed)
		}
	}
	return ok
}

// pair takes a reply from Redis: it returns the entry it completes,
// removed from the queue; or nil and partial when the reply is one of
// several answering a command not yet complete; or nil alone for a push.
// It is called with c.mu held.
func (c *Conn) pair(v Value) (done *entry, partial bool) {
	var head *entry
	if len(c.queue) > 0 {
		head = c.queue[0]
	}
	pop := func() *entry {
		c.queue[0] = nil
		c.queue = c.queue[1:]
		return head
	}
	if head != nil && !head.cmd.InMulti {
		if kind := subscribeKind(head.cmd.Name()); kind != "" {
			if isConfirmation(v, kind) {
				if head.need < 0 {
					head.need = c.expected(head.cmd, kind)
				}
				c.track(kind, v)
				head.frames = append(head.frames, v)
				if len(head.frames) >= head.need {
					return pop(), false
				}
				return nil, true
			}
			if !isMessage(v) && v.Kind != Push {
				head.frames = append(head.frames, v)
				return pop(), false // an error, or anything else: the one reply
			}
		}
	}
	if v.Kind == Push || (isMessage(v) && c.subscribed()) || head == nil {
		return nil, false
	}
	if head.cmd.Name() == "RESET" && !v.IsError() {
		c.subs = map[string]map[string]bool{}
	}
	head.frames = append(head.frames, v)
	return pop(), false
}

// subscribeKind returns the lower-case name Redis gives the replies of a
// command of the subscribe family, or "".
func subscribeKind(name string) string {
	switch name {
	case "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE":
		return strings.ToLower(name)
	}
	return ""
}

// isConfirmation says whether v is Redis's answer to one channel of a
// subscribe-family command: [kind, channel, count], an array (RESP2) or
// a push (RESP3).
func isConfirmation(v Value, kind string) bool {
	return (v.Kind == Array || v.Kind == Push) && len(v.Elems) == 3 &&
		strings.EqualFold(string(v.Elems[0].Text), kind)
}

// isMessage says whether v is a published message.
func isMessage(v Value) bool {
	if (v.Kind != Array && v.Kind != Push) || len(v.Elems) == 0 {
		return false
	}
	switch strings.ToLower(string(v.Elems[0].Text)) {
	case "message", "pmessage", "smessage":
		return true
	}
	return false
}

// expected returns how many replies Redis sends for a command of the
// subscribe family: one per argument, or, for an unsubscribe without
// arguments, one per subscription it ends (one when there is none).
func (c *Conn) expected(cmd *Command, kind string) int {
	if n := len(cmd.Args) - 1; n > 0 {
		return n
	}
	return max(1, len(c.subs[strings.TrimPrefix(kind, "un")]))
}

func (c *Conn) track(kind string, v Value) {
	if v.Elems[1].Nil {
		return
	}
	name := string(v.Elems[1].Text)
	if set, ok := strings.CutPrefix(kind, "un"); ok {
		delete(c.subs[set], name)
		return
	}
	if c.subs[kind] == nil {
		c.subs[kind] = map[string]bool{}
	}
	c.subs[kind][name] = true
}

func (c *Conn) subscribed() bool {
	for _, set := range c.subs {
		if len(set) > 0 {
			return true
		}
	}
	return false
}

// joinFrames makes one reply of several (an array, for After) whose Raw is
// all of theirs.
func joinFrames(frames []Value) Value {
	if len(frames) == 1 {
		return frames[0]
	}
	v := Value{Kind: Array, Elems: frames}
	for _, f := range frames {
		v.Raw = append(v.Raw, f.Raw...)
	}
	return v
}

// errorReply makes the error reply for a command a hook failed: the
// error's text on one line, after "ERR " unless it starts with an error
// code of its own (a first word in capitals, as Redis's do).
func errorReply(err error) Value {
	text := strings.NewReplacer("\r", " ", "\n", " ").Replace(err.Error())
	if !hasCode(text) {
		text = "ERR " + text
	}
	return Value{Kind: Error, Text: []byte(text), Raw: []byte("-" + text + "\r\n")}
}

func hasCode(text string) bool {
	word, _, _ := strings.Cut(text, " ")
	if word == "" {
		return false
	}
	for _, r := range word {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

func isEOF(err error) bool { return err == nil || errors.Is(err, io.EOF) }
