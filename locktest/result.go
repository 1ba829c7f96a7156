package locktest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/locklab/locklab/internal/msg"
)

// Verdict is the outcome of a property for a strategy.
type Verdict string

// The verdicts.
const (
	Holds         Verdict = "holds"
	Breaks        Verdict = "breaks"
	NotApplicable Verdict = "n/a"
	NoVerdict     Verdict = "error" // Result.Err says why
)

// Result is what one property run found.
type Result struct {
	Property Property
	Verdict  Verdict
	Message  Message // why the verdict is what it is, as data: any language renders it
	// Timeline is a break's counterexample: each client's commands and
	// replies, clock readings, and who was in the critical section.
	Timeline    []Event
	Key         string              // the timeline's key, K
	Start       time.Time           // t0, when that run began
	Tokens      map[string][]string // each client's values at K
	Err         error               // why there is NoVerdict
	Elapsed     time.Duration
	Granularity time.Duration // the step of TTL the check ran at (Timing.Granularity), or 0
}

// Reason is why the verdict is what it is: Message in English.
func (r Result) Reason() string { return r.Message.String() }

// resultJSON is Result as JSON, with the names and units lockcheck's JSON
// gives the same fields: Err as its text, Elapsed in milliseconds, Start
// in Unix milliseconds.
type resultJSON struct {
	Property    Property            `json:"property"`
	Verdict     Verdict             `json:"verdict"`
	Reason      string              `json:"reason"`
	Message     Message             `json:"message,omitzero"`
	Err         string              `json:"error,omitempty"`
	ElapsedMS   float64             `json:"elapsed_ms"`
	Timeline    []Event             `json:"timeline,omitempty"`
	Key         string              `json:"key,omitempty"`
	StartUnixMS int64               `json:"start_unix_ms,omitempty"`
	Tokens      map[string][]string `json:"tokens,omitempty"`
	// GranularityMS is the step of TTL the check ran at.
	GranularityMS int64 `json:"granularity_ms,omitempty"`
}

// MarshalJSON writes r as one result of lockcheck's JSON.
func (r Result) MarshalJSON() ([]byte, error) {
	j := resultJSON{Property: r.Property, Verdict: r.Verdict, Reason: r.Reason(), Message: r.Message,
		ElapsedMS: ms(r.Elapsed), Timeline: r.Timeline, Key: r.Key, Tokens: r.Tokens}
	j.GranularityMS = r.Granularity.Milliseconds()
	if r.Err != nil {
		j.Err = r.Err.Error()
	}
	if !r.Start.IsZero() {
		j.StartUnixMS = r.Start.UnixMilli()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes; the reason is Message's.
func (r *Result) UnmarshalJSON(b []byte) error {
	var j resultJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Result{Property: j.Property, Verdict: j.Verdict, Message: j.Message,
		Timeline: j.Timeline, Key: j.Key, Tokens: j.Tokens,
		Elapsed:     time.Duration(math.Round(j.ElapsedMS * float64(time.Millisecond))),
		Granularity: time.Duration(j.GranularityMS) * time.Millisecond}
	if j.StartUnixMS != 0 {
		r.Start = time.UnixMilli(j.StartUnixMS)
	}
	if j.Err != "" {
		r.Err = errors.New(j.Err)
	}
	return nil
}

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
}

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

// joinArgs returns the Strings of args joined by sep.
func joinArgs(args []Arg, sep string) string {
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
		b.WriteString(joinArgs(e.Command, " "))
		switch {
		case e.Err != "":
			b.WriteString(" -> " + mLineError.New(e.Err).String())
		case e.Msg != nil:
			b.WriteString(" -> " + mLineError.New(e.Msg.String()).String())
		default:
			fmt.Fprintf(&b, " -> %s", joinArgs(e.Reply, ""))
		}
	case EvPush:
		b.WriteString("<- " + mLinePush.New(joinArgs(e.Reply, "")).String())
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

// formatEvents formats a timeline one event a line, its repetitions
// (see groups) once: a line "loop ×N, until <time of its last event>:",
// then the events of one repetition, indented.
func formatEvents(tl []Event) string {
	var b strings.Builder
	for _, r := range groups(tl) {
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

// formatTimeline formats the timeline of r, after a line that says what K
// and t0 stand for.
func (r Result) formatTimeline() string {
	if r.Key == "" {
		return formatEvents(r.Timeline)
	}
	return mLineHeader.New(strconv.FormatInt(r.Start.UnixMilli(), 10), r.Key).String() + "\n" + formatEvents(r.Timeline)
}

// The words of a timeline as go test prints it (Event.String).
var (
	mLineError  = msg.Define("line.error", msg.K(msg.Text), "error: {0}")
	mLinePush   = msg.Define("line.push", msg.K(msg.Text), "push {0}")
	mLineLoop   = msg.Define("line.loop", msg.K(msg.Count, msg.Text), "loop ×{0}, until {1}:")
	mLineHeader = msg.Define("line.header", msg.K(msg.Text, msg.Text), "t0 = {0} (Unix ms); K = {1}")
)
