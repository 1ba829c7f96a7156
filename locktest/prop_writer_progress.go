package locktest

import (
	"fmt"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
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
// must not outlive its write either: a reader gets in after it.

func init() {
	register(property{
		id: "writer-progress", order: 1040, scenario: writerProgress, kind: strategy.ReadWrite,
		breaks: "a waiting writer was kept out once the readers its lock's policy lets ahead of it had gone",
	}, func(tm timing) floors {
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
func writerProgress(newRun func(string) *run) outcome {
	r := newRun("")
	r1 := r.newClient("R1", 0)
	if !r1.readWrite() {
		return r.notApplicable(mNotReadWrite.New())
	}
	w := r.newClient("W", 0)
	r.promise(history.OneHolder, mProgressBreaks.Lacking())
	h1, ok := r1.tryMode(history.Shared, 0, r.tm.Long)
	if !ok {
		r.fail(mFailNotFree.New("R1"))
	}
	if _, ok := w.tryMode(history.Exclusive, 0, r.tm.Long); ok {
		return r.breaksRule(history.OneHolder, mProgressWriterIn.New("W"))
	}
	type reader struct {
		c *client
		h held
	}
	readers := []reader{{r1, h1}}
	next := r.newClient("R2", 0)
	h, readersFirst := next.tryMode(history.Shared, 0, r.tm.Long)
	policy := mProgressWritersFirst.New()
	refused := 1
	if readersFirst {
		policy = mProgressReadersFirst.New()
		readers = append(readers, reader{next, h})
		for i := 3; i < 3+streamLength; i++ {
			c := r.newClient(fmt.Sprintf("R%d", i), 0)
			if h, ok := c.tryMode(history.Shared, 0, r.tm.Long); ok {
				readers = append(readers, reader{c, h})
			}
			readers[0].c.releaseHeld(readers[0].h)
			readers = readers[1:]
			if _, ok := w.tryMode(history.Exclusive, 0, r.tm.Long); ok {
				return r.breaksRule(history.OneHolder, mProgressWriterIn.New("W"))
			}
			refused++
		}
	}
	for _, rd := range readers {
		rd.c.releaseHeld(rd.h)
	}
	since := r.rec.now()
	hw := w.waitFree(r.tm.Long, r.tm.Slack, 0)
	if hw == nil {
		return r.breaksUnfreed("W", since, r.tm.Slack-r.tm.Poll, mProgressStarved.New(policy, r.tm.Slack))
	}
	w.release(hw)
	last := r.newClient("R9", 0)
	if _, ok := last.tryMode(history.Shared, 0, r.tm.Long); !ok {
		return r.breaksFreeRefused("R9", mProgressReaderOut.New(policy))
	}
	if readersFirst {
		return r.holds(mProgressHoldsReaders.New(policy, refused))
	}
	return r.holds(mProgressHoldsWriters.New(policy))
}

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
	mProgressHoldsReaders = msg.Define("writer-progress.holds-readers", msg.K(msg.Sub, msg.Count),
		"{0}: a stream of overlapping readers kept W out for all its {1} attempts, the policy and no break; W wrote as soon as the stream ended, and a reader read after it")
	mProgressHoldsWriters = msg.Define("writer-progress.holds-writers", msg.K(msg.Sub),
		"{0}; W wrote as soon as R1, the reader ahead of it, released, and a reader read after it")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("writer-progress.scenario", nil,
		"a writer waits while readers hold the lock and more readers come")
	_ = msg.Define("writer-progress.must", nil,
		"the policy is reported; the writer gets in once the readers it lets ahead have gone")
)
