package props

import (
	"fmt"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderSafeRelease: safe-release for a reader. A reader is paused past
// its TTL, before its release and then at each boundary between its
// commands in turn, and a writer takes the lock; the reader's late
// release, taken on one command at a time, must let nobody in beside the
// writer: a reader R and a writer X try after each command, and the judge
// finds a grant beside W's valid hold (OneHolder). The shape of a count
// of readers that a late release takes below zero, which lets the next
// reader hold without the lock.

func init() {
	register(Property{
		id: "reader-safe-release", order: 1032, Scenario: readerSafeRelease, Kind: strategy.ReadWrite,
		breaks: "a reader's release sent after its TTL ran out let a reader or a writer in beside the writer that held the lock, or, paused inside, kept the writer out past its TTL",
	}, func(tm sim.Timing) floors {
		// A, paused, reads with the Short TTL; W writes only once it has
		// run out (at least once: the other boundaries are not counted).
		return floors{Holds: tm.Short}
	})
}

// readerSafeRelease: at each boundary of its release in turn, A, a
// reader, is paused until its TTL has passed and W has taken the lock to
// write; then A's release goes on one command at a time, and after each
// R must be refused a read and X the write lock while W holds it.
func readerSafeRelease(newRun func(string) *harness.Run) harness.Outcome {
	m, res := modeOf(newRun, strategy.ReadWrite)
	if res != nil {
		return *res
	}
	_, n := m.CountOps(newRun, false)
	var last *harness.Run
	for k := range max(n, 1) {
		r := newRun(fmt.Sprintf("/boundary-%d", k))
		last = r
		a, w := r.NewClient("A", 0), r.NewClient("W", 0)
		ha, ok := m.Take(a, r.Tm.Short)
		if !ok {
			r.Fail(harness.MsgFailNotFree.New("A"))
		}
		p := a.PauseInside(k, n, "release", func() { a.ReleaseHeld(ha) })
		if !p.Reached {
			r.Shutdown()
			continue
		}
		r.Note(mReaderLatePaused.New(r.Tm.Short, r.Tm.Short+r.Tm.Slack))
		since := r.Rec.Now() + r.Tm.Short
		if _, ok := harness.WaitMode(w, history.Exclusive, 0, r.Tm.Long, r.Tm.Short+r.Tm.Slack, r.Tm.Short+r.Tm.StaleAfter()); !ok {
			// A paused holds no lock past its TTL: what it sent of its
			// release left one that outlives it.
			why := r.LifeLeft(r.Tm.Short, r.Tm.Short+r.Tm.Slack)
			p.Resume()
			return r.BreaksUnfreed("W", since, r.Tm.Slack-r.Tm.Poll, mReaderLateKept.New(harness.Boundary(k, n, "release"), r.Tm.Short+r.Tm.Slack, why))
		}
		at := harness.Boundary(k, n, "release")
		rd, x := r.NewClient("R", 0), r.NewClient("X", 0)
		r.Note(mReaderLateSteps.New())
		if res := harness.StepLate(p, func() *harness.Outcome {
			if res := harness.Refused(rd, history.Shared, 0, mReaderLateRead.New(at)); res != nil {
				return res
			}
			return harness.Refused(x, history.Exclusive, 0, mReaderLateWrite.New(at))
		}); res != nil {
			return *res
		}
		r.Shutdown()
	}
	return last.Holds(mReaderLateHolds.New(max(n, 1)))
}

// reader-safe-release's messages.
var (
	mReaderLatePaused = msg.Define("reader-safe-release.paused", msg.K(msg.Duration, msg.Duration),
		"A stays paused past the TTL of its read lock ({0}); W waits up to {1} to write")
	mReaderLateSteps = msg.Define("reader-safe-release.steps", nil,
		"A resumes, one command at a time; after each, R tries to read and X to write")
	mReaderLateKept = msg.Define("reader-safe-release.kept", msg.K(msg.Sub, msg.Duration, msg.Sub),
		"A, a reader, was paused {0} past its TTL, and W still could not write {1} later: {2}")
	mReaderLateRead = msg.Define("reader-safe-release.read-in", msg.K(msg.Sub),
		"A was paused {0} until the TTL of its read lock ran out and W took the lock to write; when A resumed, R got a read lock while W held the write lock")
	mReaderLateWrite = msg.Define("reader-safe-release.write-in", msg.K(msg.Sub),
		"A was paused {0} until the TTL of its read lock ran out and W took the lock to write; when A resumed, X took the write lock while W held it")
	mReaderLateHolds = msg.Define("reader-safe-release.holds", msg.K(msg.Count),
		"A's late release of its read lock, paused at each of its {0} {0|boundary|boundaries} in turn until W wrote, let neither a reader nor a writer in beside W")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-safe-release.scenario", nil,
		"a reader is paused past its TTL (before its release, then at each boundary between the release's commands in turn), and a writer takes the lock; then the reader's release goes on one command at a time, and a reader and a writer try after each")
	_ = msg.Define("reader-safe-release.must", nil,
		"the writer gets in once the reader's TTL has passed, and then neither gets in beside it")
)
