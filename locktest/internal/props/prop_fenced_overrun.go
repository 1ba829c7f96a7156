package props

import (
	"fmt"
	"sync"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// FencedOverrun: the holder is paused past its TTL, another client
// acquires and writes to a protected resource; the first one's late
// write, when it wakes up, must be refused. The resource refuses a write whose fencing token is below
// the highest it has seen; a lock without tokens cannot be protected.

func init() {
	register(Property{
		id: "fenced-overrun", order: 140, Scenario: fencedOverrun,
		breaks: "the protected resource accepted a late holder's write after the next holder's; every TTL lock without fencing tokens (strategy.Fenced) breaks it",
	}, func(tm sim.Timing) floors {
		// A, paused, holds with the Short TTL; B acquires only once it
		// has run out.
		return floors{Holds: tm.Short}
	})
}

// The fixes for the holder that overruns its lease: fencing tokens, checked
// by the resource, and renewal, which tells the holder when its lease is
// lost. Each is a property of its own, run on every strategy like the rest.

// resource stands for the storage a lock protects. It remembers the highest
// fencing token it has accepted and refuses writes with a lower one.
type resource struct {
	r       *harness.Run
	mu      sync.Mutex
	highest int64
	writes  []string
}

// write accepts or refuses a write from who; fenced says whether who's lock
// has a token at all.
func (res *resource) write(who string, lock strategy.Lock) bool {
	res.mu.Lock()
	defer res.mu.Unlock()
	token, fenced := strategy.FencingToken(lock)
	if !fenced {
		res.writes = append(res.writes, who)
		res.r.Note(mResNoToken.New(who))
		return true
	}
	if token < res.highest {
		res.r.Note(mResRefuses.New(who, token, res.highest))
		return false
	}
	res.highest = token
	res.writes = append(res.writes, who)
	res.r.Note(mResAccepts.New(who, token))
	return true
}

// fencedOverrun: A is paused past its TTL, B acquires and writes, then A
// wakes up and writes: Kleppmann's example for fencing tokens. A lock
// whose tokens pass is asked again where a token can still come out of
// order: with A paused between the commands of its acquire, and with A's
// clock ahead of B's, then behind it.
func fencedOverrun(newRun func(string) *harness.Run) harness.Outcome {
	r := newRun("")
	a, b := r.NewClient("A", 0), r.NewClient("B", 0)
	res := &resource{r: r}
	la, lb, _, why := harness.OverrunTakeover(r, a, b, false, true)
	if lb == nil {
		return r.NotApplicable(mFencedNA.New(why))
	}
	res.write("B", lb)
	// Observed: a fenced write the resource took from a stale holder is
	// the resource's to see, not an event of the lock's history.
	if res.write("A", la) {
		return r.Breaks(mFencedBreaks.New())
	}
	r.Shutdown()
	if broke := fenceInsideAcquire(newRun); broke != nil {
		return *broke
	}
	for _, skew := range []time.Duration{2 * r.Tm.Short, -2 * r.Tm.Short} {
		if broke := fenceUnderSkew(newRun, skew); broke != nil {
			return *broke
		}
	}
	return r.Holds(mFencedHolds.New(2 * r.Tm.Short))
}

// fenceInsideAcquire pauses A at each boundary between the commands of its
// acquire until its TTL has run out; B acquires and writes; then A
// finishes its acquire and writes. A token drawn in a command of its own,
// after the one that took the lock, comes out larger than B's.
func fenceInsideAcquire(newRun func(string) *harness.Run) *harness.Outcome {
	n := harness.CountOps(newRun).Acquire
	for k := 1; k < n; k++ {
		r := newRun(fmt.Sprintf("/acquire-boundary-%d", k))
		a, b := r.NewClient("A", 0), r.NewClient("B", 0)
		res := &resource{r: r}
		var la strategy.Lock
		// An acquire paused past its TTL may fail when it resumes (one
		// that gives up when its validity ran out): A then lost it.
		p := a.PauseInside(k, n, "acquire", func() { la, _ = a.TryAcquireErr(r.Tm.Short) })
		if !p.Reached {
			r.Shutdown()
			continue
		}
		r.Note(harness.MsgLatePaused.New(r.Tm.Short, r.Tm.Short+r.Tm.Slack))
		lb := b.Acquire(r.Tm.Long, r.Tm.Short+r.Tm.Slack)
		if lb != nil {
			res.write("B", lb)
		}
		a.Resume()
		r.Note(harness.MsgLateResumes.New())
		p.Wait()
		if lb == nil || la == nil {
			r.Shutdown()
			continue // A's half-done acquire kept the lock (crash-mid-acquire's business), or A lost it
		}
		if res.write("A", la) {
			broke := r.Breaks(mFencedInside.New(harness.Boundary(k, n, "acquire")))
			return &broke
		}
		r.Shutdown()
	}
	return nil
}

// fenceUnderSkew is the overrun with A's clock skew ahead of B's (behind it
// when skew is negative): a token drawn from a clock follows the clock,
// not the order in which the lock was held.
func fenceUnderSkew(newRun func(string) *harness.Run, skew time.Duration) *harness.Outcome {
	name := "/clock-ahead"
	if skew < 0 {
		name = "/clock-behind"
	}
	r := newRun(name)
	a, b := r.NewClient("A", skew), r.NewClient("B", 0)
	res := &resource{r: r}
	la, lb, _, _ := harness.OverrunTakeover(r, a, b, false, true)
	if lb == nil {
		r.Shutdown()
		return nil
	}
	res.write("B", lb)
	if res.write("A", la) {
		ta, _ := strategy.FencingToken(la)
		tb, _ := strategy.FencingToken(lb)
		broke := r.Breaks(mFencedSkew.New(skew, ta, tb))
		return &broke
	}
	r.Shutdown()
	return nil
}

// fenced-overrun's messages.
var (
	mResNoToken = msg.Define("fenced-overrun.resource-no-token", msg.K(msg.Client),
		"resource accepts {0}'s write: its lock has no fencing token to check")
	mResRefuses = msg.Define("fenced-overrun.resource-refuses", msg.K(msg.Client, msg.Count, msg.Count),
		"resource refuses {0}'s write: fencing token {1} < {2}")
	mResAccepts = msg.Define("fenced-overrun.resource-accepts", msg.K(msg.Client, msg.Count),
		"resource accepts {0}'s write with fencing token {1}")
	mFencedNA = msg.Define("fenced-overrun.n/a", msg.K(msg.Sub),
		"nobody else acquired the lock while A was paused past its TTL: {0}")
	mFencedBreaks = msg.Define("fenced-overrun.breaks", nil,
		"A's lease had passed to B, yet the resource accepted A's late write after B's")
	mFencedHolds = msg.Define("fenced-overrun.holds", msg.K(msg.Duration),
		"the resource refused A's late write: its fencing token was older than B's, whether A was paused after its acquire, inside it, or ran with its clock {0} ahead or behind")
	mFencedInside = msg.Define("fenced-overrun.breaks-inside", msg.K(msg.Sub),
		"A was paused {0} until its TTL ran out, and B acquired and wrote; A then finished its acquire, and the resource accepted A's late write after B's: A's fencing token was drawn after B's, outside the step that took the lock")
	mFencedSkew = msg.Define("fenced-overrun.breaks-skew", msg.K(msg.Duration, msg.Count, msg.Count),
		"with A's clock {0} off B's, A's lease passed to B, yet the resource accepted A's late write after B's: A's fencing token ({1}), drawn first, was larger than B's ({2}), as a token drawn from a clock is")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("fenced-overrun.scenario", nil,
		"the holder is paused past its TTL, another client acquires and writes to the protected resource, then the first one wakes and writes. A lock whose tokens pass is tried again: with the holder paused at each boundary between the commands of its acquire, and with its clock 2×TTL ahead of the other client's, then behind it")
	_ = msg.Define("fenced-overrun.must", nil,
		"the resource refuses the late write every time: the late holder's token is the older one")
)
