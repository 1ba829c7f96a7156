package props

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/judge"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// Exclusion, the fault-free baseline: two clients race for a free key
// in every interleaving of their attempts' commands; two goroutines of
// one client, sharing its strategy instance as a service shares one lock
// client, contend for it; then many clients contend for it and work well
// inside the TTL; never two inside at once.

func init() {
	register(Property{
		id: "exclusion", order: 10, Scenario: exclusion,
		breaks: "two clients, or two goroutines of one client, were inside the critical section at once, without any fault",
	}, func(tm sim.Timing) floors {
		// Acquires and releases with the Long TTL, which never runs out:
		// nothing to wait for.
		return floors{}
	})
}

const (
	contenders = 6 // clients in the exclusion scenario
	rounds     = 8 // critical sections each
)

// exclusion: first two clients race for a free key, in every interleaving
// of their attempts' commands; then a holder releases and tries again
// while another client makes one attempt, in every interleaving; then two
// goroutines of one client contend through its strategy instance; then
// contenders clients take turns rounds times each, with work far inside a
// long TTL. No faults in any of them.
func exclusion(newRun func(string) *harness.Run) harness.Outcome {
	// A replayed interleaving must send the same commands as the run it
	// replays: a script loaded by the first run, and not by the next, would
	// make them diverge.
	harness.WarmUp(newRun)
	if res := harness.Race(newRun, nil, mBothFree.New(), mOnFreeKey.New()); res.Verdict != judge.Holds {
		return res
	}
	broken, handovers := handover(newRun)
	if broken != nil {
		return *broken
	}
	if broken := goroutines(newRun); broken != nil {
		return *broken
	}
	r := newRun("/contend")
	clients := make([]*harness.Client, contenders)
	for i := range clients {
		clients[i] = r.NewClient(harness.Names[i], 0)
	}
	var wg sync.WaitGroup
	aborts := make(chan any, len(clients))
	starved := make(chan string, len(clients))
	// A client gives up only when nobody at all has got the lock for half
	// the TTL: a slow machine slows the turns down, and a client that
	// waits long while the others take turn after turn is not starved by
	// the lock. Half the TTL, so that a lock whose release frees nothing
	// is never handed on by its expiry in the meantime. The time counts
	// from the last acquire or the return of the last release, and not
	// while a release is under way: a holder whose release a loaded
	// machine holds up for seconds is slow, not a lock that frees nothing.
	// While K is free, the waiters are slow, not the lock: they get the
	// whole TTL.
	var progress atomic.Int64
	var releasing atomic.Int32
	progress.Store(time.Now().UnixNano())
	stalled := func() bool {
		since := time.Since(time.Unix(0, progress.Load()))
		return releasing.Load() == 0 && since > r.Tm.Long/2 && (since > r.Tm.Long || r.KeyExists())
	}
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					aborts <- v
				}
			}()
			for range rounds {
				var l strategy.Lock
				for l == nil {
					if l = c.Acquire(r.Tm.Long, r.Tm.Long/20); l == nil && stalled() {
						starved <- c.Name
						return
					}
				}
				progress.Store(time.Now().UnixNano())
				r.Det.Enter(c.Name)
				time.Sleep(200 * time.Microsecond)
				r.Det.Leave(c.Name)
				releasing.Add(1)
				c.Release(l)
				progress.Store(time.Now().UnixNano())
				releasing.Add(-1)
			}
		}()
	}
	wg.Wait()
	close(aborts)
	if v, ok := <-aborts; ok {
		panic(v)
	}
	// Never two inside, and never two valid holds: the judge checks both
	// on the whole run, whatever the verdict below.
	r.Promise(history.OneInside, mExclusionBreaks.Lacking())
	r.Promise(history.OneHolder, mExclusionBreaks.Lacking())
	close(starved)
	// Which clients starve first depends on the scheduler; the first by
	// name keeps the reason the same from run to run.
	var who []string
	for name := range starved {
		who = append(who, name)
	}
	if len(who) > 0 {
		slices.Sort(who)
		return aroundOverlap(r.NotApplicable(mExclusionNA.New(r.Tm.Long/2, who[0])))
	}
	return aroundOverlap(r.Holds(mExclusionHolds.New(handovers, contenders, rounds)))
}

// handover: A holds the lock, releases it and at once tries to acquire it
// again, while B makes one attempt; every interleaving of their commands
// is tried, and at most one of them may end up holding the lock. The TTL
// is long: nothing expires, the question is only how a release meets an
// attempt under way. It returns the break, or nil and the number of
// interleavings tried.
func handover(newRun func(string) *harness.Run) (*harness.Outcome, int) {
	return harness.Interleavings(newRun, "handover", func(r *harness.Run, n int, prefix []int) ([]harness.Choice, *harness.Outcome) {
		a, b := r.NewClient("A", 0), r.NewClient("B", 0)
		la := a.MustAcquire(r.Tm.Long)
		a.Settle() // what A's acquire does after it returns is not scheduled
		// A leaves the critical section before the schedule starts, so
		// that its note never races with B's first clock read.
		r.Det.Enter("A")
		r.Det.Leave("A")
		clients := []*harness.Client{a, b}
		won := []bool{false, false}
		trace := harness.Schedule(r, clients, func(i int) {
			c := clients[i]
			if c == a {
				c.ReleaseErr(la)
			}
			if l := c.TryAcquire(r.Tm.Long); l != nil {
				won[i] = true
				r.Det.Enter(c.Name)
			}
		}, prefix)

		if won[0] && won[1] {
			res := r.BreaksRule(history.OneHolder, harness.MsgInterleaving.New(mHandover.New(), n, harness.MustOverlap(r)))
			return trace, &res
		}
		return trace, nil
	})
}

// goroutines: A1 and A2, two goroutines of client A, share its strategy
// instance, as a service shares one lock client among its goroutines (and
// as double-release has them do): A1 acquires and is inside while A2
// makes one attempt through the same instance, which must fail. A lock
// that keeps one token per instance, and grants the key again to the
// token it holds, lets A2 in beside A1. As in double-release, the
// goroutines call the instance in turn, never both at once, so a lock
// whose instance is not made for concurrent use is not blamed for that.
// It returns the break, or nil.
func goroutines(newRun func(string) *harness.Run) *harness.Outcome {
	r := newRun("/goroutines")
	a := r.NewClient("A", 0)
	r.Note(mGoroutinesA1Acquires.New())
	l1 := a.MustAcquire(r.Tm.Long)
	a.Settle() // what A1's acquire does after it returns is done before A2 tries
	r.Det.Enter("A1")
	r.Note(mA2TriesInside.New())
	if a.TryAcquire(r.Tm.Long) != nil {
		r.Det.Enter("A2")
		res := r.BreaksRule(history.OneInside, mExclusionGoroutines.New(harness.MustOverlap(r)))
		return &res
	}
	r.Det.Leave("A1")
	a.Release(l1)
	r.Shutdown()
	return nil
}

// aroundOverlap cuts a break's long timeline down to the events that led
// to the first overlap and a few after it, keeping the opening note. The
// cut falls where nobody held the lock, so that the judge finds in what
// is left every hold and critical section it found in the whole, and
// the claims at the end are kept.
func aroundOverlap(res harness.Outcome) harness.Outcome {
	const before, after = 60, 10
	tl := res.Timeline
	if res.Verdict != judge.Breaks {
		return res
	}
	for i, e := range tl {
		if e.Kind != history.EvOverlap {
			continue
		}
		from, to := quietBefore(tl, i-before), min(len(tl), i+after)
		if from == 0 && to == len(tl) {
			return res
		}
		n := harness.NoteEvent(mLeftOut.New(from))
		n.At = tl[from].At
		out := append([]history.Event{n}, tl[from:to]...)
		for _, e := range tl[to:] {
			if e.Kind == history.EvCheck {
				out = append(out, e)
			}
		}
		res.Timeline = out
		return res
	}
	return res
}

// quietBefore returns the last index of tl at or before i where no
// client held the lock or was inside the critical section, or 0.
func quietBefore(tl []history.Event, i int) int {
	quiet := 0
	busy := map[string]bool{}
	for j, e := range tl[:max(i+1, 0)] {
		if len(busy) == 0 {
			quiet = j
		}
		switch {
		case e.Kind == history.EvAcquired && e.Err == "", e.Kind == history.EvEnter:
			busy[e.Client] = true
		case e.Kind == history.EvReleased:
			delete(busy, e.Client)
		}
	}
	return quiet
}

// exclusion's messages.
var (
	mBothFree = msg.Define("exclusion.both-free", nil,
		"both clients acquired the same free lock")
	mOnFreeKey = msg.Define("exclusion.on-free-key", nil, "on a free key")
	mHandover  = msg.Define("exclusion.handover", nil,
		"A released its lock and at once acquired it again while B made one attempt, and both got it")
	mExclusionBreaks = msg.Define("exclusion.breaks", msg.K(msg.Sub),
		"two clients in the critical section without any fault: {0}")
	mA2TriesInside = msg.Define("exclusion.a2-tries", nil,
		"A1 is inside; A2 tries to acquire")
	mExclusionGoroutines = msg.Define("exclusion.breaks-goroutines", msg.K(msg.Sub),
		"A1 and A2, two goroutines of client A sharing its strategy instance, in the critical section at once without any fault: {0}")
	mExclusionNA = msg.Define("exclusion.n/a", msg.K(msg.Duration, msg.Client),
		"the clients could not take turns: after a release, nobody got the lock for {0}, and {1} gave up waiting (release-frees shows why)")
	mExclusionHolds = msg.Define("exclusion.holds", msg.K(msg.Count, msg.Count, msg.Count),
		"no faults, the baseline the other properties build on: every interleaving of two attempts on a free key let one client in; in each of the {0} interleavings of a holder's release and new attempt with another client's attempt, at most one got the lock; and {1} clients, {2} critical sections each, were never two inside")
	mLeftOut = msg.Define("exclusion.left-out", msg.K(msg.Count),
		"({0} earlier events left out)")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("exclusion.scenario", nil,
		"with no faults, the baseline the other rows build on: two clients race for a free key in every interleaving of their commands; a holder releases and at once tries again while another client makes one attempt, in every interleaving; A2 tries while A1 is inside, two goroutines sharing client A's strategy instance; six clients take turns, eight times each")
	_ = msg.Define("exclusion.must", nil,
		"never two inside the critical section at once")
)
