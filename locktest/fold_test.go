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
	tl := []locktest.Event{
		{At: at(0.5), Client: "A", Kind: locktest.EvCommand, Command: []string{"SET", "K", "a", "NX", "PX", "60"}, Reply: "OK"},
		{At: at(0.6), Client: "A", Kind: locktest.EvAcquired, Reply: "lock acquired"},
	}
	for i := range 100 {
		tok := fmt.Sprintf("b%d", i)
		tl = append(tl,
			locktest.Event{At: at(1 + float64(i)), Client: "B", Kind: locktest.EvCommand, Command: []string{"SET", "K", tok, "NX", "PX", "60"}, Reply: "(nil)",
				Args: []locktest.Arg{{Kind: locktest.ArgText, Text: "SET"}, {Kind: locktest.ArgKey, Text: "K"}, {Kind: locktest.ArgToken, Text: tok, Client: "B"}}},
			locktest.Event{At: at(1.1 + float64(i)), Client: "B", Kind: locktest.EvAcquired, Reply: "not acquired"})
	}
	tl = append(tl, locktest.Event{At: at(101), Client: "B", Kind: locktest.EvCommand, Command: []string{"SET", "K", "b100", "NX", "PX", "60"}, Reply: "OK"})

	got := locktest.FormatTimeline(tl)
	assert.Equal(t, `     0.5ms A SET K a NX PX 60 -> OK
     0.6ms A acquired lock acquired
     1.0ms loop ×100, until 100.1ms:
         1.0ms B SET K b0 NX PX 60 -> (nil)
         1.1ms B acquired not acquired
   101.0ms B SET K b100 NX PX 60 -> OK
`, got)
	assert.Equal(t, 6, strings.Count(got, "\n"))
}
