package harness

import (
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/judge"
)

// Outcome is what a scenario found: the judge's verdict on the history
// of its last run, and that history where it shows a break. Check makes
// it a Result.
type Outcome struct {
	Verdict  judge.Verdict
	Message  msg.Msg
	Timeline []history.Event
	Key      string
	Start    time.Time
	Tokens   map[string][]string
	Err      error
	Notes    []msg.Msg
}
