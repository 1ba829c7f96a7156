package locktest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/stretchr/testify/assert"
)

// TestFormatTimelineFolds: a waiter's failed attempts, a hundred of them,
// are written once under a loop line, as the diagrams draw them, and not
// one line per attempt.
func TestFormatTimelineFolds(t *testing.T) {
	at := func(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
	text := func(s string) locktest.Arg { return locktest.Arg{Kind: locktest.ArgText, Text: s} }
	set := func(tok, client string) []locktest.Arg {
		return []locktest.Arg{text("SET"), {Kind: locktest.ArgKey, Text: "lock:x"}, {Kind: locktest.ArgToken, Text: tok, Client: client},
			text("NX"), text("PX"), {Kind: locktest.ArgNumber, Text: "60"}}
	}
	// The messages the recorder gives lock calls.
	acquired, notAcquired := locktest.Message{ID: "event.acquired"}, locktest.Message{ID: "event.not-acquired"}
	tl := []locktest.Event{
		{At: at(0.5), Client: "A", Kind: locktest.EvCommand, Command: set("a", "A"), Reply: []locktest.Arg{text("OK")}},
		{At: at(0.6), Client: "A", Kind: locktest.EvAcquired, Msg: &acquired},
	}
	for i := range 100 {
		tok := fmt.Sprintf("b%d", i)
		tl = append(tl,
			locktest.Event{At: at(1 + float64(i)), Client: "B", Kind: locktest.EvCommand, Command: set(tok, "B"), Reply: []locktest.Arg{text("(nil)")}},
			locktest.Event{At: at(1.1 + float64(i)), Client: "B", Kind: locktest.EvNotAcquired, Msg: &notAcquired})
	}
	tl = append(tl, locktest.Event{At: at(101), Client: "B", Kind: locktest.EvCommand, Command: set("b100", "B"), Reply: []locktest.Arg{text("OK")}})

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
