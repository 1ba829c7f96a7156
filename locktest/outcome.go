package locktest

import (
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest/internal/judge"
)

// outcome is what a scenario found: the judge's verdict on the history
// of its last run, and that history where it shows a break. Check makes
// it a Result.
type outcome struct {
	Verdict  judge.Verdict
	Message  Message
	Timeline []history.Event
	Key      string
	Start    time.Time
	Tokens   map[string][]string
	Err      error
	Notes    []Message
}
