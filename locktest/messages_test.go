package locktest

import (
	"fmt"
	"testing"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/internal/msg/msgtest"
	"github.com/locklab/locklab/locktest/internal/props"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// TestCatalogs fails when a message lacks a template in a language, or a
// template's placeholders do not fit the message's arguments.
func TestCatalogs(t *testing.T) {
	if len(msg.Defs()) == 0 {
		t.Fatal("no messages declared")
	}
	for _, d := range msg.Defs() {
		for _, err := range d.Check() {
			t.Error(err)
		}
	}
}

// TestPseudoLanguage: what Run logs of a lock's capabilities, the comment
// of each break in the Expect literal it suggests, and why a check got no
// verdict come from the catalogs: rendered in the pseudo-language, no
// English word is left but the data (interfaces, the factory's error).
// cmd/lockdocs's TestPseudoLanguage does the same for the reports.
func TestPseudoLanguage(t *testing.T) {
	if err := msgtest.AddPseudo(); err != nil {
		t.Fatal(err)
	}
	say := func(what, got string, data ...string) {
		t.Helper()
		if w := msgtest.English(got, data...); len(w) > 0 {
			t.Errorf("%s renders %q in the pseudo-language: %q not from its catalog", what, got, w)
		}
	}
	ifaces := "strategy Refresher Leased Fenced Notifier Granular ms"
	for _, c := range []Capabilities{{}, {Refresh: true, Fencing: true, Granularity: 10 * time.Millisecond},
		{Refresh: true, Lease: true, Fencing: true, Notify: true}} {
		say(fmt.Sprintf("the capabilities %+v", c), c.explain(msgtest.Pseudo), ifaces)
	}
	for _, p := range AllProperties() {
		m := props.Describe(string(p))
		if m.IsZero() {
			t.Errorf("%s: no message says what it means that a lock breaks it", p)
		}
		say(string(p)+"'s break", msg.Render(msgtest.Pseudo, m))
	}
	err := sim.Failure(sim.MsgFailFactory.New("A", "※"))
	say("a run's failure", msg.Render(msgtest.Pseudo, sim.MessageOf(err)), "A")
}
