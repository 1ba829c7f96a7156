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
	// NoVerdict is the verdict of a check that could not reach one: its
	// Result's Err says why.
	NoVerdict Verdict = "error"
)

// Result is what one property run found.
type Result struct {
	Property Property `json:"property"`
	Verdict  Verdict  `json:"verdict"`
	// Reason says in a sentence why the verdict is what it is: what broke,
	// or why the scenario cannot arise.
	Reason string `json:"reason"`
	// Timeline is the counterexample of a break: every command each client
	// sent and what came back, the clock readings, and the critical section
	// as the detector saw it. Runs that hold keep no timeline.
	Timeline []Event `json:"timeline,omitempty"`
	// Key is the lock key of the run the timeline is from; the timeline
	// writes it K (an Arg of kind ArgKey).
	Key string `json:"key,omitempty"`
	// Start is when that run began, t0: the timeline's times (ArgTime)
	// count from it.
	Start time.Time `json:"start,omitzero"`
	// Tokens are the tokens each client wrote at the key, by client, in
	// the order it first wrote them (see ArgToken).
	Tokens map[string][]string `json:"tokens,omitempty"`
	// Err is set when the suite could not reach a verdict: the factory
	// failed, the strategy panicked, hung or returned an unexpected error.
	// The verdict is then NoVerdict. In JSON it is the error's text.
	Err error `json:"-"`
	// Elapsed is how long the property took; in JSON, in nanoseconds.
	Elapsed time.Duration `json:"-"`
}

// resultJSON is Result as JSON: Err as its text, Elapsed in nanoseconds.
type resultJSON struct {
	plainResult
	Err     string `json:"error,omitempty"`
	Elapsed int64  `json:"elapsed_ns"`
}

type plainResult Result

// MarshalJSON writes r with its error's text and its elapsed time.
func (r Result) MarshalJSON() ([]byte, error) {
	j := resultJSON{plainResult: plainResult(r), Elapsed: int64(r.Elapsed)}
	if r.Err != nil {
		j.Err = r.Err.Error()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes; the error comes back as its
// text only.
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
	// EvCommand is a command a client sent and the reply or error it got.
	EvCommand EventKind = "command"
	// EvClock is a reading of a client's clock by the strategy.
	EvClock EventKind = "clock"
	// EvAcquired and EvReleased are a client's lock calls returning.
	EvAcquired EventKind = "acquired"
	EvReleased EventKind = "released"
	// EvRefreshed is a client's Refresh returning.
	EvRefreshed EventKind = "refreshed"
	// EvEnter and EvLeave are a client entering and leaving the critical
	// section; EvOverlap is the detector seeing two clients inside.
	EvEnter   EventKind = "enter"
	EvLeave   EventKind = "leave"
	EvOverlap EventKind = "overlap"
	// EvCrash is a client dying: it never sends another command.
	EvCrash EventKind = "crash"
	// EvPause is a client stopped at a boundary between two commands of
	// an operation; it sends nothing until the scenario resumes it.
	EvPause EventKind = "pause"
	// EvNote is the scenario saying what it does next (waiting for the TTL,
	// pausing a client).
	EvNote EventKind = "note"
)

// Event is one entry of a timeline.
type Event struct {
	// At is the time since the scenario started; in JSON, in nanoseconds.
	At     time.Duration `json:"at_ns"`
	Client string        `json:"client,omitempty"`
	Kind   EventKind     `json:"kind"`
	// Node names the master a command went to, when the lock spans
	// several (Config.Masters): "master-0", "master-1"...
	Node string `json:"node,omitempty"`
	// Command holds the command and its arguments, for EvCommand.
	Command []string `json:"command,omitempty"`
	// Reply is the reply of a command, or the result of a lock call.
	Reply string `json:"reply,omitempty"`
	// Err is the error of a command or lock call.
	Err string `json:"error,omitempty"`
	// Text is a free description: the clock reading, the note, who overlapped whom.
	Text string `json:"text,omitempty"`

	// Args is Command typed, one Arg per argument, the command's name
	// first: what each one is (the key, a token, a time, a script's
	// digest) is named when it is recorded, so that no reader has to guess
	// it from the text.
	Args []Arg `json:"args,omitempty"`
	// ReplyArgs is Reply typed, in pieces whose Strings joined make Reply:
	// a value alone, or an array as "[", its elements with ", " between
	// them, and "]".
	ReplyArgs []Arg `json:"reply_args,omitempty"`
	// TextArgs is Text typed, in pieces whose Strings joined make Text,
	// when Text holds values: a clock reading's time, the clients of an
	// overlap, the token a stale lock holds.
	TextArgs []Arg `json:"text_args,omitempty"`
}

// ArgKind says what a value of a timeline is.
type ArgKind string

// The kinds of values.
const (
	// ArgText is anything else, as it was: a command's name, an option
	// (NX, PX), a status (OK), a value nobody or several clients wrote,
	// or the words of a sentence.
	ArgText ArgKind = "text"
	// ArgNumber is an integer that is not a time.
	ArgNumber ArgKind = "number"
	// ArgKey is the run's lock key (Result.Key), written K.
	ArgKey ArgKind = "key"
	// ArgTime is an integer that reads as a Unix time in milliseconds
	// within a day of the run's start; Ms is its distance from t0.
	ArgTime ArgKind = "time"
	// ArgToken is a token: a value that exactly one client wrote at the
	// key (the value of SET, SETNX, GETSET, SETEX, PSETEX or MSET, a
	// field or value of HSET, HSETNX or HINCRBY, an argument of a script
	// or function called on the key), wherever it shows after: in a
	// reply, in a release script's arguments. Client is that client. A
	// value that several clients wrote (a fixed password, "1") is text,
	// and numbers are never tokens.
	ArgToken ArgKind = "token"
	// ArgDigest is a script's SHA-1 digest: EVALSHA's first argument, the
	// reply of SCRIPT LOAD, and wherever else it shows.
	ArgDigest ArgKind = "digest"
	// ArgClient is the name of a simulated client in a sentence (who
	// overlapped whom).
	ArgClient ArgKind = "client"
)

// Arg is one value of an event, typed.
type Arg struct {
	Kind ArgKind `json:"kind"`
	// Text is the value as it was: the key, the token, the digest, the
	// number (a time's Unix milliseconds), the client's name, the text.
	Text string `json:"text"`
	// Client is, for a token, the client that wrote it.
	Client string `json:"client,omitempty"`
	// Ms is, for a time, how many milliseconds it is after t0 (negative
	// before).
	Ms int64 `json:"ms,omitempty"`
}

// String writes a as the text fields of an event do: the key as K, a time
// as t0±Δms, anything else as it is.
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
