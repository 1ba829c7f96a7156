package locktest

import (
	"fmt"
	"strings"
	"time"
)

// Property names one scenario the suite runs against a strategy.
type Property string

// The properties, in the order the suite runs them.
const (
	// Exclusion: many clients contend for one key and work well inside the
	// TTL, with no faults; never two inside at once.
	Exclusion Property = "exclusion"
	// CrashRecovery: the holder crashes after acquiring and never releases;
	// a waiter must get the lock within the TTL plus some slack.
	CrashRecovery Property = "crash-recovery"
	// CrashMidAcquire: a client dies between the commands of its acquire,
	// after each command in turn; a waiter must still get the lock.
	CrashMidAcquire Property = "crash-mid-acquire"
	// StaleTakeoverRace: two waiters find the same expired lock at the same
	// moment; every interleaving of their attempts is tried, and at most one
	// may win.
	StaleTakeoverRace Property = "stale-takeover-race"
	// ClockSkew: while the lock is held, a client whose clock runs ahead by
	// more than the TTL tries to acquire it, and must fail.
	ClockSkew Property = "clock-skew"
	// SafeRelease: the holder overruns its TTL, another client acquires, and
	// the first one's late release must not free the second one's lock.
	SafeRelease Property = "safe-release"
	// DoubleRelease: a client releases twice; a lock acquired in between by
	// someone else must survive.
	DoubleRelease Property = "double-release"
	// HolderOverrun: the holder's work outlasts its TTL while others wait;
	// they must not enter while it is still inside.
	HolderOverrun Property = "holder-overrun"
)

// Properties returns every property in the order the suite runs them.
func Properties() []Property {
	return []Property{Exclusion, CrashRecovery, CrashMidAcquire, StaleTakeoverRace,
		ClockSkew, SafeRelease, DoubleRelease, HolderOverrun, FencedOverrun, RenewedOverrun}
}

// ParseProperty returns the property named s.
func ParseProperty(s string) (Property, error) {
	for _, p := range Properties() {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("locktest: unknown property %q", s)
}

// Verdict is the outcome of a property for a strategy.
type Verdict string

// The verdicts.
const (
	Holds         Verdict = "holds"
	Breaks        Verdict = "breaks"
	NotApplicable Verdict = "n/a"
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
	// Err is set when the suite could not reach a verdict: the factory
	// failed, the strategy panicked, hung or returned an unexpected error.
	Err error `json:"-"`
	// Elapsed is how long the property took.
	Elapsed time.Duration `json:"-"`
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
	// EvEnter and EvLeave are a client entering and leaving the critical
	// section; EvOverlap is the detector seeing two clients inside.
	EvEnter   EventKind = "enter"
	EvLeave   EventKind = "leave"
	EvOverlap EventKind = "overlap"
	// EvCrash is a client dying: it never sends another command.
	EvCrash EventKind = "crash"
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
	// Command holds the command and its arguments, for EvCommand.
	Command []string `json:"command,omitempty"`
	// Reply is the reply of a command, or the result of a lock call.
	Reply string `json:"reply,omitempty"`
	// Err is the error of a command or lock call.
	Err string `json:"error,omitempty"`
	// Text is a free description: the clock reading, the note, who overlapped whom.
	Text string `json:"text,omitempty"`
}

// String formats the event on one line.
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%8.1fms ", float64(e.At.Microseconds())/1000)
	if e.Client != "" {
		fmt.Fprintf(&b, "%s ", e.Client)
	} else {
		b.WriteString("- ")
	}
	switch e.Kind {
	case EvCommand:
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

// FormatTimeline formats a timeline one event a line.
func FormatTimeline(tl []Event) string {
	var b strings.Builder
	for _, e := range tl {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}
