package locktest

import (
	"testing"

	"github.com/locklab/locklab/internal/msg"
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
