package sim

import (
	"errors"
	"slices"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/servererr"
	"github.com/locklab/locklab/locktest/internal/wire"
)

// Faults on the wire, inside one operation of a client: the suite answers
// a command with an error reply in Redis's place, lets it run and drops
// the connection before the reply, drops the connection before it
// reaches Redis, or holds its reply until past the caller's deadline.
// After a drop, the client cannot open a new connection until its
// operation returns (refuse). A
// fault is armed for the at-th command a client sends from then on, on
// any of its connections, and fires once.

// errDropped is what the proxy is told for a command whose connection the
// suite dropped before it left.
var errDropped = errors.New("locktest: the connection dropped before the command reached Redis")

// replyErr is an injected error reply: its text goes to the client as it
// is, code first.
type replyErr string

func (e replyErr) Error() string { return string(e) }

// ArmFault arms f for the client's f.at-th command from now on.
func (c *Client) ArmFault(f Fault) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fault, c.faultSeen, c.faultCmd, c.faultHit = f, 0, nil, FaultNone
	c.state = nil
	if f.Kind == FaultState {
		srv := &servererr.Server{}
		srv.Begin(f.State)
		c.state = srv.NewConn()
	}
}

// DisarmFault drops a fault that has not fired; faultFired still says
// what one that did fire was.
func (c *Client) DisarmFault() {
	c.mu.Lock()
	c.fault = Fault{}
	c.mu.Unlock()
	c.refuse(false)
}

// refuse makes the client's proxies refuse new connections, or accept
// them again. A dropped connection leaves Redis out of the client's reach
// until its operation returns: a client that reconnects at once would
// otherwise, with some libraries (phpredis), wait on the new connection
// for the reply to a command it sent on the old one, until its own
// timeout; the outcome would depend on who saw the drop first.
func (c *Client) refuse(on bool) {
	for _, p := range c.proxies {
		p.Refuse(on)
	}
}

// WatchCommands starts listing the commands the client sends; the list
// is returned by watched.
func (c *Client) WatchCommands() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watching, c.seen = true, nil
}

// Watched stops listing the client's commands and returns them.
func (c *Client) Watched() []SentCommand {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watching = false
	return c.seen
}

// WatchLockCommands starts listing anew the commands on the lock's keys
// that the client sends.
func (c *Client) WatchLockCommands() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lockCmds = &[]lockCommand{}
}

// LockCommandsSent is how many commands are listed so far.
func (c *Client) LockCommandsSent() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lockCmds == nil {
		return 0
	}
	return len(*c.lockCmds)
}

// LockCommands stops listing and returns the commands listed.
func (c *Client) LockCommands() []lockCommand {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []lockCommand
	if c.lockCmds != nil {
		out = *c.lockCmds
	}
	c.lockCmds = nil
	return out
}

// sendsOnLock lists cmd, on its way to Redis, while the client's commands
// on the lock's keys are listed and it names one of them.
func (c *Client) sendsOnLock(cmd *wire.Command) {
	c.mu.Lock()
	listing := c.lockCmds != nil
	c.mu.Unlock()
	if !listing || !c.r.onLock(cmd.Args) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lockCmds != nil {
		*c.lockCmds = append(*c.lockCmds, lockCommand{Name: cmd.Name()})
	}
}

// onLock says whether a command's arguments name K or another of the
// lock's keys.
func (r *Env) onLock(args [][]byte) bool {
	for _, a := range args[min(1, len(args)):] {
		if s := string(a); s == r.Key || r.isStateKey(s) {
			return true
		}
	}
	return false
}

// FaultFired says which fault hit one of the client's commands since it
// was armed, if any.
func (c *Client) FaultFired() FaultKind {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.faultHit
}

// injectBefore runs ahead of each command, after the pauses and turns of
// before: it lists the command, and fires the armed fault when its turn
// has come. A non-nil error fails the command without sending it.
func (c *Client) injectBefore(cmd *wire.Command) error {
	c.mu.Lock()
	if c.watching {
		c.seen = append(c.seen, SentCommand{Name: cmd.Name(), Args: slices.Clone(cmd.Args), InMulti: cmd.InMulti})
	}
	f := c.fault
	if f.Kind == FaultNone {
		c.mu.Unlock()
		return nil
	}
	c.faultSeen++
	if f.Kind == FaultState {
		return c.inState(f, cmd)
	}
	if c.faultSeen != f.At {
		c.mu.Unlock()
		return nil
	}
	c.fault, c.faultCmd, c.faultHit, c.faultUntil = Fault{}, cmd, f.Kind, f.Until
	c.mu.Unlock()
	if f.Kind == FaultLost || f.Kind == FaultDropped {
		c.refuse(true)
	}
	switch f.Kind {
	case FaultReply:
		return replyErr(f.Reply)
	case FaultDropped:
		cmd.Conn.Close()
		return errDropped
	}
	return nil
}

// inState answers cmd with the error reply of the server's state f.State
// when it applies to cmd, from f.At on until f.Until; the state stays on
// for the client's later commands. It runs with c.mu held, and unlocks
// it.
func (c *Client) inState(f Fault, cmd *wire.Command) error {
	defer c.mu.Unlock()
	switch {
	case c.faultSeen < f.At:
		return nil
	case !time.Now().Before(f.Until):
		c.fault, c.state = Fault{}, nil
		return nil
	}
	// Every command goes through the model, which follows MULTI and the
	// scripts the server has seen; its answer is taken outside a
	// transaction only.
	a := c.state.Answer(servererr.FromArgs(cmd.Args))
	switch {
	case cmd.InMulti || cmd.Name() == "EXEC":
		return nil
	case a.Reply != "":
		c.faultCmd, c.faultHit = cmd, FaultReply
		return replyErr(a.Reply)
	case a.Instead != nil:
		// A script the state fails only where it writes: the same script
		// behind the model's shim, which fails its calls as the server
		// would.
		args := make([][]byte, len(a.Instead))
		for i, s := range a.Instead {
			args[i] = []byte(s)
		}
		cmd.Args, cmd.Rewritten = args, true
	}
	return nil
}

// faultAfter is what after does for the command a fault hit: it says in
// the timeline what the suite did, then drops the connection (a lost
// reply) or holds the reply back (a late one). It reports whether cmd is
// that command; it records e, the command's event, when it is.
func (c *Client) faultAfter(cmd *wire.Command, e *history.Event) (hit FaultKind) {
	c.mu.Lock()
	if cmd != c.faultCmd || cmd == nil {
		c.mu.Unlock()
		return FaultNone
	}
	hit = c.faultHit
	c.faultCmd = nil
	c.mu.Unlock()
	var m msg.Msg
	switch hit {
	case FaultReply:
		m = mFaultReply.New()
	case FaultDropped:
		m = mFaultDropped.New()
	case FaultLost:
		m = mFaultLost.New()
	case FaultLate:
		m = mFaultLate.New()
	}
	c.r.Rec.Add(*e)
	c.r.Rec.Add(history.Event{Client: c.Name, Kind: history.EvNote, Msg: &m})
	return hit
}

// faultHitting says whether cmd is the command a fault of kind k hit.
func (c *Client) faultHitting(cmd *wire.Command, k FaultKind) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return cmd == c.faultCmd && c.faultHit == k
}

// holdOrDrop ends what a fault does to a command that ran: a lost reply
// never reaches the client, a late one reaches it after until.
func (c *Client) holdOrDrop(hit FaultKind, cmd *wire.Command) {
	switch hit {
	case FaultNone:
	case FaultLost:
		cmd.Conn.Close()
	case FaultLate:
		c.mu.Lock()
		until := c.faultUntil
		c.mu.Unlock()
		t := time.NewTimer(time.Until(until))
		defer t.Stop()
		select {
		case <-t.C:
		case <-c.r.Ctx.Done():
		}
	}
}

// What the timeline says of a fault.
var (
	mFaultReply = msg.Define("fault.reply", nil,
		"the suite gave this error reply in Redis's place: Redis never saw the command")
	mFaultDropped = msg.Define("fault.dropped", nil,
		"the suite dropped the connection before the command reached Redis; new connections are refused until the operation returns")
	mFaultLost = msg.Define("fault.lost", nil,
		"Redis ran the command; the suite dropped the connection before the reply reached the client; new connections are refused until the operation returns")
	mFaultLate = msg.Define("fault.late", nil,
		"Redis ran the command; the suite held its reply back until the caller's deadline had passed")
)
