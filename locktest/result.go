package locktest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
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
	Property Property `json:"property"`
	Verdict  Verdict  `json:"verdict"`
	Reason   string   `json:"reason"` // why the verdict is what it is: Message in English
	Message  Message  `json:"message,omitzero"`
	// Timeline is a break's counterexample: each client's commands and
	// replies, clock readings, and who was in the critical section.
	Timeline []Event             `json:"timeline,omitempty"`
	Key      string              `json:"key,omitempty"`    // the timeline's key, K
	Start    time.Time           `json:"start,omitzero"`   // t0, when that run began
	Tokens   map[string][]string `json:"tokens,omitempty"` // each client's values at K
	Err      error               `json:"-"`                // why there is NoVerdict
	Elapsed  time.Duration       `json:"-"`                // in JSON, in ns
}

// resultJSON is Result as JSON: Err as its text, Elapsed in nanoseconds.
type resultJSON struct {
	plainResult
	Err     string `json:"error,omitempty"`
	Elapsed int64  `json:"elapsed_ns"`
}

type plainResult Result

// MarshalJSON writes r with Err as text and Elapsed in ns.
func (r Result) MarshalJSON() ([]byte, error) {
	j := resultJSON{plainResult: plainResult(r), Elapsed: int64(r.Elapsed)}
	if r.Err != nil {
		j.Err = r.Err.Error()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Result) UnmarshalJSON(b []byte) error {
	var j resultJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Result(j.plainResult)
	r.Elapsed = time.Duration(j.Elapsed)
	if j.Err != "" {
		r.Err = errors.New(j.Err)
	}
	return nil
}

// EventKind says what an Event records.
type EventKind string

// The kinds of events.
const (
	EvCommand   EventKind = "command"   // a command sent, with its reply or error
	EvClock     EventKind = "clock"     // the strategy read a client's clock
	EvAcquired  EventKind = "acquired"  // an attempt to acquire returned
	EvReleased  EventKind = "released"  // Release returned
	EvRefreshed EventKind = "refreshed" // Refresh returned
	EvEnter     EventKind = "enter"     // a client entered the critical section
	EvLeave     EventKind = "leave"     // a client left it
	EvOverlap   EventKind = "overlap"   // the detector saw two clients inside
	EvCrash     EventKind = "crash"     // a client died
	EvPause     EventKind = "pause"     // a client stopped between two commands
	EvNote      EventKind = "note"      // the scenario says what it does next
)

// Event is one entry of a timeline.
type Event struct {
	At      time.Duration `json:"at_ns"` // since the run began
	Client  string        `json:"client,omitempty"`
	Kind    EventKind     `json:"kind"`
	Node    string        `json:"node,omitempty"` // the master, over several
	Command []string      `json:"command,omitempty"`
	Reply   string        `json:"reply,omitempty"` // or a lock call's result
	Err     string        `json:"error,omitempty"`
	Text    string        `json:"text,omitempty"` // a clock reading, note, overlap
	Msg     *Message      `json:"msg,omitempty"`  // the note, pause or crash Text says

	// Args, ReplyArgs and TextArgs are Command, Reply and Text typed:
	// the Strings of their pieces, joined, make the text.
	Args      []Arg `json:"args,omitempty"`
	ReplyArgs []Arg `json:"reply_args,omitempty"`
	TextArgs  []Arg `json:"text_args,omitempty"`
}

// ArgKind says what a value of a timeline is.
type ArgKind string

// The kinds of values. A token is a value one client alone wrote at K.
const (
	ArgText   ArgKind = "text"   // anything else, as it was
	ArgNumber ArgKind = "number" // an integer that is not a time
	ArgKey    ArgKind = "key"    // the run's lock key, written K
	ArgTime   ArgKind = "time"   // a Unix time in ms near t0 (Arg.Ms after it)
	ArgToken  ArgKind = "token"  // a value one client alone wrote
	ArgDigest ArgKind = "digest" // a script's SHA-1 digest
	ArgClient ArgKind = "client" // a simulated client's name
)

// Arg is one value of an event, typed.
type Arg struct {
	Kind   ArgKind `json:"kind"`
	Text   string  `json:"text"`             // the value as it was
	Client string  `json:"client,omitempty"` // a token's writer
	Ms     int64   `json:"ms,omitempty"`     // a time's distance from t0
}

// String writes a as an event's text does: the key as K, a time as t0±Δms.
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

// String formats the event on one line.
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
		b.WriteString(strings.Join(e.Command, " "))
		if e.Err != "" {
			fmt.Fprintf(&b, " -> error: %s", e.Err)
		} else {
			fmt.Fprintf(&b, " -> %s", e.Reply)
		}
	default:
		b.WriteString(string(e.Kind))
		if e.Reply != "" {
			b.WriteString(" " + e.Reply)
		}
		if e.Err != "" {
			b.WriteString(" error: " + e.Err)
		}
		if e.Text != "" {
			b.WriteString(": " + e.Text)
		}
	}
	return b.String()
}

// formatEvents formats a timeline one event a line, its repetitions
// (see Fold) once: a line "loop ×N, until <time of its last event>:",
// then the events of one repetition, indented.
func formatEvents(tl []Event) string {
	var b strings.Builder
	for _, r := range Fold(tl) {
		indent := ""
		if len(r.Events) > 1 {
			end := r.Events[len(r.Events)-1]
			fmt.Fprintf(&b, "%8.1fms loop ×%d, until %.1fms:\n", ms(r.Events[0][0].At), len(r.Events), ms(end[len(end)-1].At))
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
	return fmt.Sprintf("t0 = %d (Unix ms); K = %s\n", r.Start.UnixMilli(), r.Key) + formatEvents(r.Timeline)
}
