package sim

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/trace"
)

// Env is what a simulated client shares with its run, and all it knows
// of it: the run's context, key and time scale, the recorder of its
// history, and what the suite counts on the wire.
type Env struct {
	Ctx        context.Context
	Key        string
	Tm         Timing
	T0         int64 // Unix ms at the start, for reading timestamps
	Rec        *trace.Recorder
	ClockReads atomic.Int64
	holdIDs    atomic.Int64 // the last hold a kind's grant opened (kinds.go)
	Perms      *Permissions // the NOPERMs met, the clients' and the suite's own

	mu sync.Mutex
	// stateKeys are the keys the lock keeps its state under when they are
	// not K (strategy.Keyed), from the first client's strategy; nil: K.
	stateKeys []string
}

// declareStateKeys sets the keys the lock keeps its state under, once.
func (r *Env) declareStateKeys(keys []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stateKeys == nil {
		r.stateKeys = slices.Clone(keys)
	}
}

// StateKeyList returns the keys the lock keeps its state under, or nil.
func (r *Env) StateKeyList() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stateKeys
}

// Abort stops a scenario that cannot reach a verdict.
type Abort struct{ Err error }

// Fail aborts the run without a verdict, saying why with m.
func (r *Env) Fail(m msg.Msg) {
	panic(Abort{Failure(m)})
}

func (r *Env) Note(m msg.Msg) {
	r.Rec.Add(history.Event{Kind: history.EvNote, Msg: &m})
}

// stamp types a Unix millisecond time: its distance from the run's start.
func (r *Env) stamp(ms int64) history.Arg {
	return history.Arg{Kind: history.ArgTime, Text: strconv.FormatInt(ms, 10), Ms: ms - r.T0}
}

// Arg types a command argument or a value of a reply: the key, a number
// that reads as a time near the run's start (Unix milliseconds, or
// seconds with a fraction), another integer, or text. Which texts are tokens is known only once the
// timeline is taken (recorder.timeline).
func (r *Env) Arg(s string) history.Arg {
	if s == r.Key {
		return history.Arg{Kind: history.ArgKey, Text: s}
	}
	if r.isStateKey(s) {
		return history.Arg{Kind: history.ArgLockKey, Text: strings.ReplaceAll(s, r.Key, "K")}
	}
	if !printable(s) {
		// A random binary value (rueidislock's): its bytes in hex, the
		// same text for the same value, so that it is still a token.
		return history.Arg{Kind: history.ArgText, Text: "0x" + hex.EncodeToString([]byte(s))}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n-r.T0 < 24*3600*1000 && r.T0-n < 24*3600*1000 {
			return r.stamp(n)
		}
		return history.Arg{Kind: history.ArgNumber, Text: s}
	}
	// Unix seconds with a fraction, as PHP's microtime(true) gives them
	// (Symfony's RedisStore sends one with every script).
	if i := strings.IndexByte(s, '.'); i == 10 && len(s) > 11 && strings.Trim(s, "0123456789.") == "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			if n := int64(math.Round(f * 1000)); n-r.T0 < 24*3600*1000 && r.T0-n < 24*3600*1000 {
				return history.Arg{Kind: history.ArgTime, Text: s, Ms: n - r.T0}
			}
		}
	}
	return history.Arg{Kind: history.ArgText, Text: s}
}

// printable says whether s is text a timeline can show as it is: valid
// UTF-8 without control characters but white space.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if unicode.IsControl(c) && !unicode.IsSpace(c) {
			return false
		}
	}
	return true
}

// ErrText renders an error for the timeline, with the key as K, quoted or
// not.
func (r *Env) ErrText(err error) string {
	s := strings.ReplaceAll(err.Error(), strconv.Quote(r.Key), "K")
	return strings.ReplaceAll(s, r.Key, "K")
}

// isStateKey says whether s is one of the keys the lock keeps its state
// under, other than K.
func (r *Env) isStateKey(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.stateKeys, s)
}

// Guard runs a call into the strategy, turning a panic into an abort.
func (r *Env) Guard(who, what string, f func()) {
	defer func() {
		if v := recover(); v != nil {
			if a, ok := v.(Abort); ok {
				panic(a)
			}
			panic(Abort{&Failed{M: mFailPanicked.New(who, what, fmt.Sprint(v)), detail: "\n" + string(debug.Stack())}})
		}
	}()
	f()
}
