package props

import (
	"fmt"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// WriterProgress: a waiting writer gets in within the bound its lock's
// policy promises. The policy is found, not declared: while R1 reads and
// W waits to write, R2 comes to read. A lock that refuses R2 puts
// writers first, and owes W the lock as soon as R1, the one reader
// before it, has gone. A lock that lets R2 in puts readers first: a
// stream of overlapping readers keeps W out for as long as it flows, by
// design; the suite reports it and calls it no break, since no lock can
// tell the suite yet that it promises otherwise. Either way W must get
// in once no reader is left: a lock that keeps a waiting writer out of a
// free lock (its own intent in the way) breaks the property. W's intent
// must not outlive its write either: a reader gets in after it. Nor may
// the intent of a writer that gave up outlive the writer intent its lock
// declares (strategy.WriterFirst; up to 10 s when a lock found to put
// writers first declares none).

func init() {
	register(Property{
		id: "writer-progress", order: 1040, Scenario: writerProgress, Kind: strategy.ReadWrite,
		breaks: "a waiting writer was kept out once the readers its lock's policy lets ahead of it had gone",
	}, func(tm sim.Timing) floors {
		// Every TTL is Long, and the readers release: nothing to wait for.
		return floors{}
	})
}

// streamLength is how many readers follow R1 on a readers-first lock,
// each coming while the one before still reads.
const streamLength = 3

// writerProgress: R1 reads; W tries to write; R2 tries to read while W
// waits. Readers first: readers keep coming, each before the one ahead
// leaves, while W tries between them; then the stream ends. Writers
// first: R1 leaves. Then W must write within the slack, and once it has
// released, a reader must read.
func writerProgress(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	r1 := r.NewClient("R1", 0)
	if !r1.ReadWrite() {
		return r.NotApplicable(sim.MsgNotReadWrite.New())
	}
	w := r.NewClient("W", 0)
	r.Promise(history.OneHolder, mProgressBreaks.Lacking())
	h1, ok := r1.TryMode(history.Shared, 0, r.Tm.Long)
	if !ok {
		r.Fail(harness.MsgFailNotFree.New("R1"))
	}
	if _, ok := w.TryMode(history.Exclusive, 0, r.Tm.Long); ok {
		return r.BreaksRule(history.OneHolder, mProgressWriterIn.New("W"))
	}
	type reader struct {
		c *harness.Client
		h sim.Held
	}
	readers := []reader{{r1, h1}}
	next := r.NewClient("R2", 0)
	h, readersFirst := next.TryMode(history.Shared, 0, r.Tm.Long)
	policy := mProgressWritersFirst.New()
	refused := 1
	if readersFirst {
		policy = mProgressReadersFirst.New()
		readers = append(readers, reader{next, h})
		for i := 3; i < 3+streamLength; i++ {
			c := r.NewClient(fmt.Sprintf("R%d", i), 0)
			if h, ok := c.TryMode(history.Shared, 0, r.Tm.Long); ok {
				readers = append(readers, reader{c, h})
			}
			readers[0].c.ReleaseHeld(readers[0].h)
			readers = readers[1:]
			if _, ok := w.TryMode(history.Exclusive, 0, r.Tm.Long); ok {
				return r.BreaksRule(history.OneHolder, mProgressWriterIn.New("W"))
			}
			refused++
		}
	}
	for _, rd := range readers {
		rd.c.ReleaseHeld(rd.h)
	}
	since := r.Rec.Now()
	hw := w.WaitFree(r.Tm.Long, r.Tm.Slack, 0)
	if hw == nil {
		return r.BreaksUnfreed("W", since, r.Tm.Slack-r.Tm.Poll, mProgressStarved.New(policy, r.Tm.Slack))
	}
	w.Release(hw)
	last := r.NewClient("R9", 0)
	h9, ok := last.TryMode(history.Shared, 0, r.Tm.Long)
	if !ok {
		return r.BreaksFreeRefused("R9", mProgressReaderOut.New(policy))
	}
	if res, broke := writerGivesUp(r, last, h9, policy, !readersFirst); broke {
		return res
	}
	if readersFirst {
		return r.Holds(mProgressHoldsReaders.New(policy, refused))
	}
	return r.Holds(mProgressHoldsWriters.New(policy))
}

// writerGivesUp: while R9 reads, W2 tries once to write, with the
// Short TTL, is refused, and gives up; R9 leaves. W2's intent, if its
// lock keeps one, must not keep readers out past the writer intent the
// lock declares (strategy.WriterFirst): R10 must read within it and the
// slack. A lock found to put writers first (writersFirst) that declares
// no intent has one all the same, of a length the suite does not know:
// R10 waits for up to MaxWriterIntent. One found to put readers first
// and declaring none keeps no intent. A refusal counts only when its
// attempt began once that intent was over and was turned down quickly;
// else the run is disturbed. A lock that declares an intent longer than
// MaxWriterIntent is not asked: the round would outlast a check's
// timeout. It says whether that broke, with the outcome.
func writerGivesUp(r *harness.Run, r9 *harness.Client, h9 sim.Held, policy msg.Msg, writersFirst bool) (harness.Outcome, bool) {
	var intent time.Duration
	stays := mProgressIntentStays
	if wf, ok := r9.S.(strategy.WriterFirst); ok {
		intent = wf.WriterIntent()
	} else if writersFirst {
		intent, stays = MaxWriterIntent, mProgressUndeclaredStays
		r.Note(mProgressUndeclared.New(MaxWriterIntent))
	}
	if intent > MaxWriterIntent {
		r.Note(mProgressIntentLong.New(intent, MaxWriterIntent))
		return harness.Outcome{}, false
	}
	w2 := r.NewClient("W2", 0)
	if _, ok := w2.TryMode(history.Exclusive, 0, r.Tm.Short); ok {
		return r.BreaksRule(history.OneHolder, mProgressWriterIn.New("W2")), true
	}
	r.Note(mProgressGivesUp.New("W2"))
	r9.ReleaseHeld(h9)
	r10 := r.NewClient("R10", 0)
	since := r.Rec.Now()
	h, ok := harness.WaitMode(r10, history.Shared, 0, r.Tm.Long, intent+r.Tm.Slack, intent)
	if !ok {
		return r.BreaksUnfreed("R10", since, intent+r.Tm.Slack-r.Tm.Poll, stays.New(policy, intent, r.Tm.Slack)), true
	}
	r10.ReleaseHeld(h)
	return harness.Outcome{}, false
}

// MaxWriterIntent is the longest writer intent the suite waits out: one
// a lock declares, or the one it takes for a lock found to put writers
// first that declares none.
const MaxWriterIntent = 10 * time.Second

// writer-progress's messages.
var (
	mProgressBreaks = msg.Define("writer-progress.breaks", msg.K(msg.Sub),
		"a writer held the lock with others: {0}")
	mProgressWriterIn = msg.Define("writer-progress.writer-in", msg.K(msg.Client),
		"{0} took the lock to write while readers held it")
	mProgressWritersFirst = msg.Define("writer-progress.writers-first", nil,
		"writers first: R2, which came to read while W waited, was refused")
	mProgressReadersFirst = msg.Define("writer-progress.readers-first", nil,
		"readers first: R2, which came to read while W waited, was let in")
	mProgressStarved = msg.Define("writer-progress.starved", msg.K(msg.Sub, msg.Duration),
		"{0}; yet once every reader had released, W still could not write {1} later")
	mProgressReaderOut = msg.Define("writer-progress.reader-out", msg.K(msg.Sub),
		"{0}; once W had written and released, R9 still could not read")
	mProgressGivesUp = msg.Define("writer-progress.gives-up", msg.K(msg.Client),
		"{0} tried once to write while R9 read, was refused, and gave up")
	mProgressIntentLong = msg.Define("writer-progress.intent-long", msg.K(msg.Duration, msg.Duration),
		"the lock's writer intent of {0} is longer than {1}: no writer gave up to see whether its intent outlives it")
	mProgressIntentStays = msg.Define("writer-progress.intent-stays", msg.K(msg.Sub, msg.Duration, msg.Duration),
		"{0}; after W2 gave up its write and R9 released, R10 still could not read, past the lock's writer intent of {1} and the slack of {2}")
	mProgressUndeclared = msg.Define("writer-progress.undeclared", msg.K(msg.Duration),
		"the lock puts writers first but declares no writer intent (strategy.WriterFirst): R10 waits for up to {0}")
	mProgressUndeclaredStays = msg.Define("writer-progress.undeclared-stays", msg.K(msg.Sub, msg.Duration, msg.Duration),
		"{0}; after W2 gave up its write and R9 released, R10 still could not read, past {1}, the longest writer intent the suite waits out for a lock that declares none, and the slack of {2}")
	mProgressHoldsReaders = msg.Define("writer-progress.holds-readers", msg.K(msg.Sub, msg.Count),
		"{0}: a stream of overlapping readers kept W out for all its {1} attempts, the policy and no break; W wrote as soon as the stream ended, a reader read after it, and a writer that gave up kept no reader out")
	mProgressHoldsWriters = msg.Define("writer-progress.holds-writers", msg.K(msg.Sub),
		"{0}; W wrote as soon as R1, the reader ahead of it, released, a reader read after it, and a writer that gave up kept readers out no longer than the lock's writer intent")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("writer-progress.scenario", nil,
		"a writer waits while readers hold the lock and more readers come")
	_ = msg.Define("writer-progress.must", nil,
		"the policy is reported; the writer gets in once the readers it lets ahead have gone; a writer that gives up keeps readers out no longer than the lock's writer intent")
)
