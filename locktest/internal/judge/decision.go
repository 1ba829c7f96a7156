package judge

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// Verdict is a decision's outcome, with the values of locktest.Verdict.
type Verdict string

// The verdicts a judge gives.
const (
	Holds         Verdict = "holds"
	Breaks        Verdict = "breaks"
	NotApplicable Verdict = "n/a"
)

// Decision is a verdict and its reason.
type Decision struct {
	Verdict Verdict
	Reason  history.Message
	// Rule and Event are Free's: the rule broken, and the index in the
	// history of the event that shows it.
	Rule  history.Rule
	Event int
}

// Overlap says that who entered the critical section while inside were
// there.
func Overlap(who string, inside []string) history.Message { return mOverlap.New(who, inside) }

var (
	mOverlap = msg.Define("overlap", msg.K(msg.Client, msg.Clients),
		"{0} entered while {1} {1|was|were} inside")
	mTwoHolders = msg.Define("judge.two-holders", msg.K(msg.Client, msg.Clients),
		"{0} was granted the lock while {1} still held it within its TTL")
	mReadDuringWrite = msg.Define("judge.read-during-write", msg.K(msg.Client, msg.Clients),
		"{0} was granted a read lock while {1} still held the write lock within its TTL")
	mWriteDuringRead = msg.Define("judge.write-during-read", msg.K(msg.Client, msg.Clients),
		"{0} was granted the write lock while {1} still held the lock within its TTL")
	mTooMany = msg.Define("judge.too-many", msg.K(msg.Client, msg.Count, msg.Clients, msg.Count),
		"{0} was granted {1} {1|permit|permits} while {2} held the others within their TTL: more than the {3} the semaphore allows")
)
