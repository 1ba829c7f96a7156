package props

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// RWExclusion: a writer excludes readers and writers, in every
// interleaving of two attempts' commands on a free key: a writer's and a
// reader's, then two writers'.

func init() {
	register(Property{
		id: "rw-exclusion", order: 1010, Scenario: rwExclusion, Kind: strategy.ReadWrite,
		breaks: "a writer and another client held the lock at once, without any fault",
	}, func(tm sim.Timing) floors {
		// The Long TTL, which never runs out: nothing to wait for.
		return floors{}
	})
}

// rwExclusion: A and B race for the free lock, A to write and B to read,
// then both to write, in every interleaving of their commands.
func rwExclusion(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("/kind")
	if !r.NewClient("P", 0).ReadWrite() {
		return r.NotApplicable(sim.MsgNotReadWrite.New())
	}
	// Both modes once, so that a replay sends the scripts the first run
	// loaded.
	p := r.Clients[0]
	for _, m := range []history.Mode{history.Exclusive, history.Shared} {
		if h, ok := p.TryMode(m, 0, r.Tm.Short); ok {
			p.ReleaseHeld(h)
		}
	}
	r.Shutdown()
	var last *harness.Run
	total := 0
	for _, modes := range [][2]history.Mode{{history.Exclusive, history.Shared}, {history.Exclusive, history.Exclusive}} {
		res, n := harness.Interleavings(newRun, "schedule", func(r *harness.Run, n int, prefix []int) ([]harness.Choice, *harness.Outcome) {
			last = r
			clients := []*harness.Client{r.NewClient("A", 0), r.NewClient("B", 0)}
			won := []bool{false, false}
			trace := harness.Schedule(r, clients, func(i int) {
				_, won[i] = clients[i].TryMode(modes[i], 0, r.Tm.Long)
			}, prefix)
			if won[0] && won[1] {
				what := mRWWriterReader.New()
				if modes[1] == history.Exclusive {
					what = mRWWriters.New()
				}
				res := r.BreaksRule(history.OneHolder, mRWBreaks.New(what, n))
				return trace, &res
			}
			return trace, nil
		})
		if res != nil {
			return *res
		}
		total += n
	}
	return last.Holds(mRWHolds.New(total))
}

// rw-exclusion's messages.
var (
	mRWWriterReader = msg.Define("rw-exclusion.writer-reader", nil,
		"A took the free lock to write and B to read")
	mRWWriters = msg.Define("rw-exclusion.writers", nil,
		"A and B both took the free lock to write")
	mRWBreaks = msg.Define("rw-exclusion.breaks", msg.K(msg.Sub, msg.Count),
		"{0}, both at once (interleaving {1} of their commands)")
	mRWHolds = msg.Define("rw-exclusion.holds", msg.K(msg.Count),
		"in each of the {0} interleavings of a writer's attempt with a reader's, and with another writer's, on a free lock, one at most got it")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("rw-exclusion.scenario", nil,
		"a writer and a reader, then two writers, race for the free lock in every interleaving of their commands")
	_ = msg.Define("rw-exclusion.must", nil,
		"one of them at most gets it")
)
