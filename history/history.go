// Package history is the record of one run of a check: each simulated
// client's commands and replies, its lock calls with their outcomes, who
// was in the critical section, what the suite read and the faults it
// injected, and the claims a judge decides on. A scenario writes it, a
// judge decides from it alone, and the reports draw it; a result saved
// as JSON can be judged again.
package history

import (
	"fmt"
	"strings"
	"time"

	"github.com/locklab/locklab/internal/msg"
)

// Message is what an event says, as data: an identifier and typed
// arguments that a catalog renders in any language.
type Message = msg.Msg

// EventKind says what an Event records.
type EventKind string

// The kinds of events.
const (
	EvCommand     EventKind = "command"      // a command sent, with its reply or error
	EvClock       EventKind = "clock"        // the strategy read a client's clock
	EvPush        EventKind = "push"         // a message from Redis that answers no command (Reply)
	EvAcquired    EventKind = "acquired"     // an attempt to acquire returned the lock, or Err
	EvNotAcquired EventKind = "not-acquired" // an attempt to acquire returned without it
	EvReleased    EventKind = "released"     // Release returned
	EvRefreshed   EventKind = "refreshed"    // Refresh returned
	EvEnter       EventKind = "enter"        // a client entered the critical section
	EvLeave       EventKind = "leave"        // a client left it
	EvOverlap     EventKind = "overlap"      // the detector saw two clients inside
	EvCrash       EventKind = "crash"        // a client died
	EvPause       EventKind = "pause"        // a client stopped between two commands
	EvNote        EventKind = "note"         // the scenario says what it does next
	EvCheck       EventKind = "check"        // what the scenario claims the judge will find (Check)
	EvRead        EventKind = "read"         // what the suite read of the lock's keys (Read), for the judge
)

// Event is one entry of a timeline. Everything in it is typed: a
// renderer writes it in any language, and nothing reads its text back.
type Event struct {
	At      time.Duration `json:"at_ns"` // since the run began
	Client  string        `json:"client,omitempty"`
	Kind    EventKind     `json:"kind"`
	Node    string        `json:"node,omitempty"`    // the master, over several
	Command []Arg         `json:"command,omitempty"` // its name, then its arguments
	Reply   []Arg         `json:"reply,omitempty"`
	Err     string        `json:"error,omitempty"` // Redis's, or the lock call's
	Msg     *Message      `json:"msg,omitempty"`   // what it says, or why a command had no reply
	// Call is when the lock call that an EvAcquired, EvReleased or
	// EvRefreshed returns from began, and TTL what it asked for: a grant
	// is valid from its return until the earliest of its holder's next
	// release call and its call plus its TTL. An EvCrash inside a lock
	// call gives the call's (TTL 0 for a release): its outcome is
	// unknown.
	Call time.Duration `json:"call_ns,omitempty"`
	TTL  time.Duration `json:"ttl_ns,omitempty"`
	// SentIn is, for an EvCommand, the Call of the lock call under way on
	// its client when the command was sent; 0 when none was, or when the
	// history does not say. A command is recorded when its reply comes:
	// one whose call gave up (its deadline passed while the command was
	// held on the way) may run, and be recorded, after the client's next
	// call, and SentIn still names the call it belongs to.
	SentIn time.Duration `json:"sent_in_ns,omitempty"`
	// Mode is how a grant holds the lock, and Permits how many permits a
	// semaphore's grant took (1 when 0). Hold tells a client's holds
	// apart: a grant opens it, and the release or refresh of the same
	// Hold ends or extends it; 0 for a client that holds one at a time,
	// whose release ends its last grant.
	Mode    Mode   `json:"mode,omitempty"`
	Permits int    `json:"permits,omitempty"`
	Hold    int    `json:"hold,omitempty"`
	Check   *Check `json:"check,omitempty"` // an EvCheck's claim
	Read    *Read  `json:"read,omitempty"`  // an EvRead's
	// Fence is a grant's fencing token (an EvAcquired without Err), for
	// a lock that gives one (strategy.Fenced); nil for any other.
	Fence *int64 `json:"fence,omitempty"`
}

// Read is what the suite read of the lock's keys on its own connection:
// each key's value, and K's remaining time. A value one client alone
// wrote is its token (Arg.Client): that client's hold. Any other value
// at a lock key (a queue entry, a waiting mark, a counter, a hash) is the
// lock's bookkeeping, nobody's hold.
type Read struct {
	Keys []KeyValue `json:"keys,omitempty"`
	// PTTL is K's remaining time in milliseconds (of the lock's first
	// key, for a lock kept elsewhere): -1 without expiry, -2 when gone.
	PTTL int64 `json:"pttl_ms"`
}

// KeyValue is one lock key as the suite read it.
type KeyValue struct {
	Key   Arg  `json:"key"`             // K, or another key of the lock's state
	Value *Arg `json:"value,omitempty"` // nil when the key is gone
	// Entries are a hash's fields, a set's or a sorted set's members,
	// in order: a reader's entry, a permit's holder, a queue's waiter.
	// An entry one client alone wrote is its token: that client's hold.
	Entries []Arg `json:"entries,omitempty"`
}

// Owner is the client whose token the key holds, or "" when it holds
// none (gone, or bookkeeping).
func (k KeyValue) Owner() string {
	if k.Value == nil || k.Value.Kind != ArgToken {
		return ""
	}
	return k.Value.Client
}

// Mode is how a grant holds a lock.
type Mode string

// The modes.
const (
	Exclusive Mode = ""       // a mutex's holder
	Write     Mode = "write"  // a read-write lock's writer, as exclusive
	Shared    Mode = "shared" // a read-write lock's reader
	Permit    Mode = "permit" // a semaphore's holder, of Event.Permits permits
)

// ArgKind says what a value of a timeline is.
type ArgKind string

// The kinds of values. A token is a value one client alone wrote at K.
const (
	ArgText    ArgKind = "text"     // anything else, as it was
	ArgNumber  ArgKind = "number"   // an integer that is not a time
	ArgKey     ArgKind = "key"      // the run's lock key, written K
	ArgLockKey ArgKind = "lock-key" // another key of the lock's state (strategy.Keyed)
	ArgTime    ArgKind = "time"     // a Unix time in ms near t0 (Arg.Ms after it)
	ArgToken   ArgKind = "token"    // a value one client alone wrote
	ArgDigest  ArgKind = "digest"   // a script's SHA-1 digest
	ArgClient  ArgKind = "client"   // a simulated client's name
	ArgLeft    ArgKind = "left"     // a key's time to live, counting down
	ArgServer  ArgKind = "server"   // what the server says of itself (HELLO)
)

// Arg is one value of an event, typed.
type Arg struct {
	Kind   ArgKind `json:"kind"`
	Text   string  `json:"text"`             // the value as it was
	Client string  `json:"client,omitempty"` // a token's writer
	Ms     int64   `json:"ms,omitempty"`     // a time's distance from t0
}

// String writes a as a go test counterexample does: the key as K, a
// time as t0±Δms.
func (a Arg) String() string {
	switch a.Kind {
	case ArgKey:
		return "K"
	case ArgTime:
		return fmt.Sprintf("t0%+dms", a.Ms)
	}
	return a.Text
}

// JoinArgs returns the Strings of args joined by sep.
func JoinArgs(args []Arg, sep string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.String()
	}
	return strings.Join(parts, sep)
}

// String formats the event on one line, in English.
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%8.1fms ", ms(e.At))
	if e.Client != "" {
		fmt.Fprintf(&b, "%s ", e.Client)
	} else {
		b.WriteString("- ")
	}
	switch e.Kind {
	case EvCommand:
		if e.Node != "" {
			fmt.Fprintf(&b, "@%s ", e.Node)
		}
		b.WriteString(JoinArgs(e.Command, " "))
		switch {
		case e.Err != "":
			b.WriteString(" -> " + mLineError.New(e.Err).String())
		case e.Msg != nil:
			b.WriteString(" -> " + mLineError.New(e.Msg.String()).String())
		default:
			fmt.Fprintf(&b, " -> %s", JoinArgs(e.Reply, ""))
		}
	case EvPush:
		b.WriteString("<- " + mLinePush.New(JoinArgs(e.Reply, "")).String())
	default:
		if m, ok := kindMsg[e.Kind]; ok && e.Msg != nil && e.Msg.ID == m.ID {
			b.WriteString(m.String()) // "lock acquired", "released"...
			break
		}
		b.WriteString(string(e.Kind))
		if e.Err != "" {
			b.WriteString(" " + mLineError.New(e.Err).String())
		}
		if e.Msg != nil {
			b.WriteString(": " + e.Msg.String())
		}
	}
	return b.String()
}

// Format formats a timeline one event a line, its repetitions
// (see groups) once: a line "loop ×N, until <time of its last event>:",
// then the events of one repetition, indented.
func Format(tl []Event) string {
	var b strings.Builder
	for _, r := range Fold(tl) {
		indent := ""
		if len(r.Events) > 1 {
			end := r.Events[len(r.Events)-1]
			fmt.Fprintf(&b, "%8.1fms %s\n", ms(r.Events[0][0].At), mLineLoop.New(len(r.Events), fmt.Sprintf("%.1fms", ms(end[len(end)-1].At))))
			indent = "    "
		}
		for _, e := range r.Events[r.First] {
			b.WriteString(indent + e.String() + "\n")
		}
	}
	return b.String()
}

// ms is d in milliseconds, to a microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// kindMsg is what an event of each kind says when nothing else does.
var kindMsg = map[EventKind]Message{
	EvAcquired:    msg.Define("event.acquired", nil, "lock acquired").New(),
	EvNotAcquired: msg.Define("event.not-acquired", nil, "not acquired").New(),
	EvReleased:    msg.Define("event.released", nil, "released").New(),
	EvRefreshed:   msg.Define("event.refreshed", nil, "refreshed").New(),
	EvEnter:       msg.Define("event.enter", nil, "enters the critical section").New(),
	EvLeave:       msg.Define("event.leave", nil, "leaves the critical section").New(),
}

// Said is what an event of kind says when nothing else does ("lock
// acquired", "released"), and whether it says anything of its own.
func Said(kind EventKind) (Message, bool) {
	m, ok := kindMsg[kind]
	return m, ok
}

// The words of a timeline as go test prints it (Event.String, Format).
var (
	mLineError = msg.Define("line.error", msg.K(msg.Text), "error: {0}")
	mLinePush  = msg.Define("line.push", msg.K(msg.Text), "push {0}")
	mLineLoop  = msg.Define("line.loop", msg.K(msg.Count, msg.Text), "loop ×{0}, until {1}:")
)
