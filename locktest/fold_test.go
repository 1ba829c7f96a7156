package locktest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest"
	"github.com/stretchr/testify/assert"
)

// TestFormatTimelineFolds: a waiter's failed attempts, a hundred of them,
// are written once under a loop line, as the diagrams draw them, and not
// one line per attempt.
func TestFormatTimelineFolds(t *testing.T) {
	at := func(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
	text := func(s string) history.Arg { return history.Arg{Kind: history.ArgText, Text: s} }
	set := func(tok, client string) []history.Arg {
		return []history.Arg{text("SET"), {Kind: history.ArgKey, Text: "lock:x"}, {Kind: history.ArgToken, Text: tok, Client: client},
			text("NX"), text("PX"), {Kind: history.ArgNumber, Text: "60"}}
	}
	// The messages the recorder gives lock calls.
	acquired, notAcquired := locktest.Message{ID: "event.acquired"}, locktest.Message{ID: "event.not-acquired"}
	tl := []history.Event{
		{At: at(0.5), Client: "A", Kind: history.EvCommand, Command: set("a", "A"), Reply: []history.Arg{text("OK")}},
		{At: at(0.6), Client: "A", Kind: history.EvAcquired, Msg: &acquired},
	}
	for i := range 100 {
		tok := fmt.Sprintf("b%d", i)
		tl = append(tl,
			history.Event{At: at(1 + float64(i)), Client: "B", Kind: history.EvCommand, Command: set(tok, "B"), Reply: []history.Arg{text("(nil)")}},
			history.Event{At: at(1.1 + float64(i)), Client: "B", Kind: history.EvNotAcquired, Msg: &notAcquired})
	}
	tl = append(tl, history.Event{At: at(101), Client: "B", Kind: history.EvCommand, Command: set("b100", "B"), Reply: []history.Arg{text("OK")}})

	got := locktest.FormatTimeline(tl)
	assert.Equal(t, `     0.5ms A SET K a NX PX 60 -> OK
     0.6ms A lock acquired
     1.0ms loop ×100, until 100.1ms:
         1.0ms B SET K b0 NX PX 60 -> (nil)
         1.1ms B not acquired
   101.0ms B SET K b100 NX PX 60 -> OK
`, got)
	assert.Equal(t, 6, strings.Count(got, "\n"))
}
