package locktest

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
)

// Result is what one property run found.
type Result struct {
	Property Property
	Verdict  Verdict
	Message  Message // why the verdict is what it is, as data: any language renders it
	// Timeline is a break's counterexample: each client's commands and
	// replies, clock readings, and who was in the critical section.
	Timeline    []history.Event
	Key         string              // the timeline's key, K
	Start       time.Time           // t0, when that run began
	Tokens      map[string][]string // each client's values at K
	Err         error               // why there is NoVerdict
	Elapsed     time.Duration
	Granularity time.Duration // the step of TTL the check ran at (Timing.Granularity), or 0
	Notes       []Message     // what the check noticed besides: keys the lock wrote outside its own
}

// resultOf is the Result of what a scenario found.
func resultOf(o harness.Outcome) Result {
	return Result{Verdict: Verdict(o.Verdict), Message: o.Message, Timeline: o.Timeline, Key: o.Key,
		Start: o.Start, Tokens: o.Tokens, Err: o.Err, Notes: o.Notes}
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
	Timeline    []history.Event     `json:"timeline,omitempty"`
	Key         string              `json:"key,omitempty"`
	StartUnixMS int64               `json:"start_unix_ms,omitempty"`
	Tokens      map[string][]string `json:"tokens,omitempty"`
	// GranularityMS is the step of TTL the check ran at.
	GranularityMS int64 `json:"granularity_ms,omitempty"`
	// Notes are Notes in English; NoteMessages the same as data.
	Notes        []string  `json:"notes,omitempty"`
	NoteMessages []Message `json:"note_messages,omitempty"`
}

// MarshalJSON writes r as one result of lockcheck's JSON.
func (r Result) MarshalJSON() ([]byte, error) {
	j := resultJSON{Property: r.Property, Verdict: r.Verdict, Reason: r.Reason(), Message: r.Message,
		ElapsedMS: ms(r.Elapsed), Timeline: r.Timeline, Key: r.Key, Tokens: r.Tokens}
	j.GranularityMS = r.Granularity.Milliseconds()
	for _, m := range r.Notes {
		j.Notes, j.NoteMessages = append(j.Notes, m.String()), append(j.NoteMessages, m)
	}
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
		Granularity: time.Duration(j.GranularityMS) * time.Millisecond, Notes: j.NoteMessages}
	if j.StartUnixMS != 0 {
		r.Start = time.UnixMilli(j.StartUnixMS)
	}
	if j.Err != "" {
		r.Err = errors.New(j.Err)
	}
	return nil
}

// formatTimeline formats the timeline of r, after a line that says what K
// and t0 stand for.
func (r Result) formatTimeline() string {
	if r.Key == "" {
		return history.Format(r.Timeline)
	}
	return mLineHeader.New(strconv.FormatInt(r.Start.UnixMilli(), 10), r.Key).String() + "\n" + history.Format(r.Timeline)
}

// The header of a timeline as go test prints it.
var mLineHeader = msg.Define("line.header", msg.K(msg.Text, msg.Text), "t0 = {0} (Unix ms); K = {1}")

// ms is d in milliseconds, to a microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// noted is r's notes for a test's log, a line each, or "".
func (r Result) noted() string {
	var b strings.Builder
	for _, m := range r.Notes {
		b.WriteString("\nnote: " + m.String())
	}
	return b.String()
}
