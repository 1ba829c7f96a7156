package sim

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest/internal/wire"
)

// errInjected is the error of a command the suite made fail: it was never
// sent, as when a connection drops before a request leaves.
var errInjected = errors.New("locktest: injected failure: the command was not sent")

// hooks are what the client's proxy to its node-th master (0 on one
// Redis) calls for each of its commands.
func (c *Client) hooks(node int) wire.Hooks {
	return wire.Hooks{
		Before: func(ctx context.Context, cmd *wire.Command) error {
			// The call that sent it, which may have given up by the
			// time it runs (history.Event.SentIn).
			cmd.SentIn = c.r.Rec.InCall(c.Name)
			if err := c.unreachable(node); err != nil {
				return err
			}
			if err := c.before(ctx, cmd.Name()); err != nil {
				return err
			}
			c.shiftTimes(cmd)
			if err := c.injectBefore(cmd); err != nil {
				return err
			}
			c.sendsOnLock(cmd)
			return nil
		},
		After: func(cmd *wire.Command, reply wire.Value, err error) {
			c.after(node, cmd, reply, err)
		},
		// An invalidation of client-side caching or a pub/sub message: in
		// the timeline, where the client gets it.
		Push: func(_ *wire.Conn, push wire.Value) {
			c.r.Rec.Add(history.Event{Client: c.Name, Kind: history.EvPush, Node: c.nodes[node], Reply: valueArgs(c.r, push, nil)})
		},
	}
}

// before runs ahead of every command: a crashed client sends nothing, a
// paused one waits, and a scheduled one waits for its turn.
func (c *Client) before(ctx context.Context, cmd string) error {
	c.mu.Lock()
	crashed, paused, gate := c.crashed, c.paused, c.gate
	arrive, why := c.arrive, mPaused.New(c.pauseAtOp)
	if c.inMultiAtPause {
		why = mPausedInMulti.New(c.pauseAtOp)
	}
	if paused != nil && !crashed {
		c.arrive = nil
	}
	c.mu.Unlock()
	if crashed {
		return errCrashed
	}
	if paused != nil {
		// A pause at a boundary begins here, at the next command, once
		// whatever the client does between two commands (a clock read, a
		// compare) is done: the timeline is the same on every run.
		if arrive != nil {
			c.r.Rec.Add(history.Event{Client: c.Name, Kind: history.EvPause, Msg: &why})
			close(arrive)
		}
		select {
		case <-paused:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.r.Ctx.Done():
			return c.r.Ctx.Err()
		}
	}
	if gate != nil && !setup(cmd) {
		if err := gate(ctx, cmd); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.crashed {
		return errCrashed
	}
	if c.failing {
		return errInjected
	}
	return nil
}

// unreachable returns the error of a command to a master the client is
// cut off from: it is never sent, and the client gets an error reply.
func (c *Client) unreachable(node int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if node < len(c.cut) && c.cut[node] {
		return fmt.Errorf("locktest: %s cannot reach %s: the network between them is cut", c.Name, c.nodes[node])
	}
	return nil
}

// Partition cuts the client off from the given masters, or restores its
// links to them.
func (c *Client) Partition(cut bool, nodes ...int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range nodes {
		c.cut[n] = cut
	}
}

// after records a command and its reply, counts it, and crashes or pauses
// the client when its count is reached. The proxy calls it just before
// the reply is handed to the client, so the timeline has the command
// before anything the client does on reading its reply, and a crash comes
// before the client can send anything more.
func (c *Client) after(node int, cmd *wire.Command, reply wire.Value, err error) {
	sentIn := cmd.SentIn
	if !cmd.Sent && (c.faultHitting(cmd, FaultReply) || c.faultHitting(cmd, FaultDropped)) {
		e := history.Event{Client: c.Name, Kind: history.EvCommand, Command: c.commandArgs(cmd.Args), SentIn: sentIn}
		if reply.IsError() {
			e.Err = string(reply.Text)
		} else {
			m := mNoReply.New()
			e.Msg = &m
		}
		c.faultAfter(cmd, &e)
		// It returned to the client, an error: a pause may fall after it.
		c.count(cmd.Name(), false)
		return
	}
	if !cmd.Sent {
		if cut := c.unreachable(node); cut != nil {
			// Refused by a partition: the timeline shows the attempt.
			m := mUnreachable.New()
			c.r.Rec.Add(history.Event{Client: c.Name, Kind: history.EvCommand, Node: c.nodes[node], Command: c.commandArgs(cmd.Args), Msg: &m, SentIn: sentIn})
		}
		return // failed before it left (a crash, an injected failure): Redis never saw it
	}
	if err != nil && c.isCrashed() {
		return // in flight when the suite cut the client: it never learned the outcome
	}
	name := cmd.Name()
	c.r.Perms.Script(cmd.Args)
	e := history.Event{Client: c.Name, Kind: history.EvCommand, Command: c.commandArgs(cmd.Args), SentIn: sentIn}
	if len(c.nodes) > 1 {
		e.Node = c.nodes[node]
	}
	switch {
	case err != nil:
		m := mNoReply.New()
		e.Msg = &m
	case reply.IsError():
		e.Err = c.r.ErrText(errors.New(string(reply.Text)))
		words := make([]string, len(e.Command))
		for i, a := range e.Command {
			words[i] = a.String()
		}
		c.r.Perms.Saw(words, string(reply.Text))
	default:
		e.Reply = replyArgs(c.r, name, reply)
		if name == "SCRIPT" && len(cmd.Args) > 1 && strings.EqualFold(string(cmd.Args[1]), "LOAD") && len(e.Reply) == 1 {
			c.r.Rec.Digest(e.Reply[0].Text)
			e.Reply[0].Kind = history.ArgDigest
		}
	}
	hit := c.faultAfter(cmd, &e)
	if hit == FaultNone {
		c.r.Rec.Add(e)
	}
	defer c.holdOrDrop(hit, cmd)
	c.count(name, err == nil && !reply.IsError())
}

// count counts a command that returned to the client, ok when it
// succeeded, and crashes or pauses the client when its count is reached.
func (c *Client) count(name string, ok bool) {
	c.mu.Lock()
	c.sent++
	switch name {
	case "MULTI":
		c.inMulti = ok
	case "EXEC", "DISCARD":
		c.inMulti = false
	}
	crash := c.crashAfter > 0 && c.sent >= c.crashAfter
	sent := c.sent
	if !crash && c.pauseAt > 0 && c.sent == c.pauseAt {
		c.pauseAt = 0
		if c.paused == nil {
			c.paused = make(chan struct{})
		}
		if c.inMulti {
			c.inMultiAtPause = true
		}
		c.arrive, c.reached = c.reached, nil
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	if crash {
		c.Crash(mDiesAfter.New(sent, name))
	}
}

// commandArgs types a command's arguments: the name as text, then each
// argument through run.arg. A script's digest is named as such, and a
// value the client writes at the key is noted as its (see history.ArgToken).
func (c *Client) commandArgs(args [][]byte) []history.Arg {
	r := c.r
	out := make([]history.Arg, len(args))
	for i, a := range args {
		if i == 0 {
			out[i] = history.Arg{Kind: history.ArgText, Text: string(a)} // the command's name, as the client wrote it
			continue
		}
		out[i] = r.Arg(string(a))
	}
	if len(args) == 0 {
		return out
	}
	name := strings.ToUpper(string(args[0]))
	if (name == "EVALSHA" || name == "EVALSHA_RO") && len(out) > 1 {
		out[1].Kind = history.ArgDigest
		r.Rec.Digest(out[1].Text)
	}
	if (name == "EVAL" || name == "EVAL_RO") && len(args) > 1 {
		// A script sent whole goes by its digest, as EVALSHA would name
		// it: its body run into one line would fill the timeline.
		d := sha1.Sum(args[1])
		out[1] = history.Arg{Kind: history.ArgDigest, Text: hex.EncodeToString(d[:])}
		r.Rec.Digest(out[1].Text)
	}
	for _, i := range written(name, out) {
		if out[i].Kind == history.ArgText && out[i].Text != "" {
			r.Rec.Wrote(c.Name, out[i].Text)
		}
	}
	return out
}

// written returns the positions of the values a command writes at the key
// (args[0] is its name, upper-cased in name): the value of SET, SETNX,
// GETSET, SETEX, PSETEX and MSET, the fields and values of HSET, HMSET and
// HSETNX, HINCRBY's field, and every argument of a script or function
// called with the key among its keys.
func written(name string, args []history.Arg) []int {
	isKey := func(i int) bool {
		return i < len(args) && (args[i].Kind == history.ArgKey || args[i].Kind == history.ArgLockKey)
	}
	switch name {
	case "SET", "SETNX", "GETSET":
		if isKey(1) && len(args) > 2 {
			return []int{2}
		}
	case "SETEX", "PSETEX":
		if isKey(1) && len(args) > 3 {
			return []int{3}
		}
	case "MSET", "MSETNX":
		for i := 1; i+1 < len(args); i += 2 {
			if isKey(i) {
				return []int{i + 1}
			}
		}
	case "HSET", "HMSET", "HSETNX", "HINCRBY", "HINCRBYFLOAT":
		if !isKey(1) {
			return nil
		}
		var out []int
		for i := 2; i < len(args); i++ {
			if strings.HasPrefix(name, "HINCRBY") && i > 2 {
				break
			}
			out = append(out, i)
		}
		return out
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO":
		if len(args) < 3 {
			return nil
		}
		n, err := strconv.Atoi(args[2].Text)
		if err != nil || n < 0 || 3+n > len(args) {
			return nil
		}
		if !slices.ContainsFunc(args[3:3+n], func(a history.Arg) bool { return a.Kind == history.ArgKey || a.Kind == history.ArgLockKey }) {
			return nil
		}
		var out []int
		for i := 3 + n; i < len(args); i++ {
			out = append(out, i)
		}
		return out
	}
	return nil
}

// replyArgs types the reply to command name (upper-cased, as
// wire.Command.Name gives it) for the timeline: a status (OK) as text,
// strings and integers through run.arg (the key as K, times from t0), a
// null as (nil), an error inside an array as "error: ...", an array as
// "[", its elements with ", " between them, and "]". The time a key has
// left (TTL, PTTL) is history.ArgLeft, HELLO's reply history.ArgServer.
func replyArgs(r *Env, name string, v wire.Value) []history.Arg {
	switch {
	case v.Kind == wire.SimpleString:
		return []history.Arg{{Kind: history.ArgText, Text: string(v.Text)}}
	case name == "HELLO":
		return []history.Arg{{Kind: history.ArgServer, Text: v.String()}}
	case (name == "TTL" || name == "PTTL") && v.Kind == wire.Integer && !strings.HasPrefix(string(v.Text), "-"):
		return []history.Arg{{Kind: history.ArgLeft, Text: string(v.Text)}}
	}
	return valueArgs(r, v, nil)
}

func valueArgs(r *Env, v wire.Value, out []history.Arg) []history.Arg {
	text := func(s string) []history.Arg { return append(out, history.Arg{Kind: history.ArgText, Text: s}) }
	switch {
	case v.Nil:
		return text("(nil)")
	case v.IsError():
		return text("error: " + string(v.Text))
	}
	switch v.Kind {
	case wire.SimpleString, wire.BulkString, wire.Integer, wire.Verbatim, wire.Double, wire.BigNumber:
		s := string(v.Text)
		if v.Kind == wire.Verbatim && len(s) >= 4 {
			s = s[4:]
		}
		return append(out, r.Arg(s))
	case wire.Array, wire.Set, wire.Push:
		out = text("[")
		for i, x := range v.Elems {
			if i > 0 {
				out = append(out, history.Arg{Kind: history.ArgText, Text: ", "})
			}
			out = valueArgs(r, x, out)
		}
		return append(out, history.Arg{Kind: history.ArgText, Text: "]"})
	}
	return text(v.String())
}

// shiftTimes moves the absolute times of a command by the client's skew,
// for a strategy that reads a clock of its own (strategy.OwnClock), which
// Client.Clock cannot skew: a Unix time in ms anywhere in its arguments
// (PXAT, PEXPIREAT, a deadline in a script's arguments), and the seconds
// after EXAT and of EXPIREAT. Each shift counts as a reading of the
// client's clock; the first one is noted in the timeline.
func (c *Client) shiftTimes(cmd *wire.Command) {
	if c.skew == 0 || !c.ownClock.Load() {
		return
	}
	now := time.Now()
	near := func(n, unit int64) bool {
		d := n - now.UnixNano()/unit
		return d > -24*3600*1e9/unit && d < 24*3600*1e9/unit
	}
	name := cmd.Name()
	args := slices.Clone(cmd.Args)
	shifted := false
	for i := 1; i < len(args); i++ {
		n, err := strconv.ParseInt(string(args[i]), 10, 64)
		if err != nil {
			continue
		}
		prev := ""
		if i > 1 {
			prev = strings.ToUpper(string(args[i-1]))
		}
		switch {
		case near(n, int64(time.Millisecond)):
			n += c.skew.Milliseconds()
		case (prev == "EXAT" || (name == "EXPIREAT" && i == 2)) && near(n, int64(time.Second)):
			n += int64(c.skew.Round(time.Second) / time.Second)
		default:
			continue
		}
		args[i] = []byte(strconv.FormatInt(n, 10))
		shifted = true
	}
	if !shifted {
		return
	}
	cmd.Args, cmd.Rewritten = args, true
	c.r.ClockReads.Add(1)
	if !c.shiftNoted.Swap(true) {
		c.r.Note(mShiftedTimes.New(c.Name, c.skew))
	}
}

// setup says whether cmd is one a client library sends to set up a fresh
// connection (log in, choose the protocol, name itself, turn client-side
// caching on). A library's pool makes connections when it likes (go-zero
// keeps eight idle ones, dialled in the background): the scheduler of
// interleavings lets those through rather than count them among the
// commands of an attempt.
func setup(cmd string) bool {
	switch cmd {
	case "HELLO", "AUTH", "SELECT", "CLIENT", "READONLY":
		return true
	}
	return false
}
