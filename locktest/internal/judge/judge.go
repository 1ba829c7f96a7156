// Package judge decides a property's verdict from a run's history alone,
// as a linearizability checker decides from a recorded history: the
// scenario drives the clients and records their calls, the critical
// section and its claims (history.Check); the judge checks each claim on
// the events and gives the verdict. A saved history is judged again the
// same way, without Redis.
package judge

import (
	"errors"
	"fmt"
	"slices"
	"time"

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
}

// ErrNoClaim: the history holds no claim to decide on; the run ended
// before its scenario said anything of the verdict.
var ErrNoClaim = errors.New("judge: the history holds no claim")

// Mutex decides a history of a mutex: at most one valid hold at a time,
// and at most one client in the critical section, wherever the scenario
// claimed or promised it, and its other claims as recorded. The first
// break in the history's order is the verdict; else its last holds or
// n/a. A claimed break that the events do not show is an error, never a
// verdict.
func Mutex(tl []history.Event) (Decision, error) {
	var last *Decision
	for i, e := range tl {
		if e.Kind != history.EvCheck || e.Check == nil {
			continue
		}
		c := e.Check
		reason := func() history.Message {
			if c.Reason == nil {
				return history.Message{}
			}
			return *c.Reason
		}
		switch c.Rule {
		case history.Observed:
			return Decision{Breaks, reason()}, nil
		case history.Unfreed:
			if !unfreed(c, tl[:i]) {
				return Decision{}, fmt.Errorf("judge: the scenario claims that nobody got the lock for %v from %v while %s tried, but its history does not show it", c.Within, c.Since, c.Client)
			}
			return Decision{Breaks, reason()}, nil
		case history.FreeRefused:
			if !freeRefused(c.Client, c.Permits, tl[:i]) {
				return Decision{}, fmt.Errorf("judge: the scenario claims that %s was refused a free lock, but its history does not show it", c.Client)
			}
			return Decision{Breaks, reason()}, nil
		case history.OneHolder, history.OneInside:
			if !c.Broken {
				// A promise: checked on the whole history, below.
				continue
			}
			if _, ok := find(c.Rule, c.Permits, tl[:i]); !ok {
				return Decision{}, fmt.Errorf("judge: the scenario claims that %s was broken, but its history does not show it", c.Rule)
			}
			return Decision{Breaks, reason()}, nil
		case history.Kept:
			last = &Decision{Holds, reason()}
		case history.Unstageable:
			last = &Decision{NotApplicable, reason()}
		default:
			return Decision{}, fmt.Errorf("judge: unknown rule %q", c.Rule)
		}
	}
	for _, e := range tl {
		if e.Kind != history.EvCheck || e.Check == nil || e.Check.Broken {
			continue
		}
		if r := e.Check.Rule; r == history.OneHolder || r == history.OneInside {
			if found, ok := find(r, e.Check.Permits, tl); ok {
				return Decision{Breaks, promiseBroken(e.Check, found)}, nil
			}
		}
	}
	if last == nil {
		return Decision{}, ErrNoClaim
	}
	return *last, nil
}

// promiseBroken is the reason of a broken promise: the promise's own
// reason with what the judge found as its last argument, or what it
// found alone.
func promiseBroken(c *history.Check, found history.Message) history.Message {
	if c.Reason == nil || c.Reason.ID == "" {
		return found
	}
	out := *c.Reason
	out.Args = append(slices.Clone(out.Args), msg.Arg{Kind: msg.Sub, Msg: &found})
	return out
}

// find looks for the first break of rule in tl and says what it is;
// capacity is a semaphore's number of permits.
func find(rule history.Rule, capacity int, tl []history.Event) (history.Message, bool) {
	switch rule {
	case history.OneInside:
		return twoInside(tl)
	case history.OneHolder:
		return twoHolders(tl, capacity)
	}
	return history.Message{}, false
}

// twoInside finds the first client that entered the critical section
// while others were inside.
func twoInside(tl []history.Event) (history.Message, bool) {
	var inside []string
	for _, e := range tl {
		switch e.Kind {
		case history.EvEnter:
			if len(inside) > 0 {
				return Overlap(e.Client, slices.Clone(inside)), true
			}
			inside = append(inside, e.Client)
		case history.EvLeave:
			if i := slices.Index(inside, e.Client); i >= 0 {
				inside = slices.Delete(inside, i, i+1)
			}
		}
	}
	return history.Message{}, false
}

// unfreed says whether tl shows c's claim: nobody granted the lock from
// c.Since to c.Since+c.Within, and c.Client refused at the end of it.
func unfreed(c *history.Check, tl []history.Event) bool {
	end := c.Since + c.Within
	refused := false
	for _, e := range tl {
		if e.At < c.Since {
			continue
		}
		switch {
		case e.Kind == history.EvAcquired && e.Err == "" && e.At <= end:
			return false
		case e.Kind == history.EvNotAcquired && e.Client == c.Client && e.At >= end:
			refused = true
		}
	}
	return refused
}

// freeRefused says whether client's last attempt in tl was refused while
// no valid hold at its start stood in its way: none at all for an
// exclusive attempt, no other client's exclusive one for a shared one,
// and room among capacity permits for a semaphore's.
func freeRefused(client string, capacity int, tl []history.Event) bool {
	last := -1
	for i, e := range tl {
		if e.Client == client && (e.Kind == history.EvNotAcquired || e.Kind == history.EvAcquired) {
			last = i
		}
	}
	if last < 0 || tl[last].Kind != history.EvNotAcquired {
		return false
	}
	refusal := tl[last]
	taken := max(refusal.Permits, 1)
	for _, h := range holds(tl[:last]) {
		if !(h.from <= refusal.Call && refusal.Call < h.to) {
			continue
		}
		switch {
		case refusal.Mode == history.Permit:
			taken += h.permits
		case refusal.Mode == history.Shared && (h.mode == history.Shared || h.client == refusal.Client):
		default:
			return false
		}
	}
	return refusal.Mode != history.Permit || taken <= max(capacity, 1)
}

// hold is a grant's validity: from its return to its end.
type hold struct {
	client   string
	id       int // Event.Hold
	mode     history.Mode
	permits  int
	from, to time.Duration
}

// forever is the end of a hold that nothing ends.
const forever = time.Duration(1<<63 - 1)

// holds reads the valid holds of tl: each grant from its return until the
// earliest of its holder's release call and its call plus its TTL, which
// a refresh that succeeded pushes on to its own call plus its TTL. A
// release or refresh ends or extends the hold of its Event.Hold, or,
// without one, the client's last. A grant recorded without a TTL is
// valid until its release.
func holds(tl []history.Event) []hold {
	type ref struct {
		client string
		id     int
	}
	var out []hold
	open := map[ref]int{} // a hold still valid at the last event: its index in out
	last := map[string]int{}
	for _, e := range tl {
		r := ref{e.Client, e.Hold}
		i, held := open[r]
		if e.Hold == 0 {
			i, held = last[e.Client]
			held = held && i >= 0
		}
		switch {
		case e.Kind == history.EvAcquired && e.Err == "":
			end := forever
			if e.TTL > 0 {
				end = e.Call + e.TTL
			}
			out = append(out, hold{client: e.Client, id: e.Hold, mode: e.Mode, permits: max(e.Permits, 1), from: e.At, to: end})
			open[r], last[e.Client] = len(out)-1, len(out)-1
		case e.Kind == history.EvRefreshed && e.Err == "" && held && e.TTL > 0:
			out[i].to = max(out[i].to, e.Call+e.TTL)
		case e.Kind == history.EvReleased && held:
			out[i].to = min(out[i].to, e.Call)
			delete(open, ref{out[i].client, out[i].id})
			last[e.Client] = -1
		}
	}
	return out
}

// twoHolders finds the first grant that returned while holds valid at
// that moment forbade it (see history.OneHolder); capacity is a
// semaphore's number of permits.
func twoHolders(tl []history.Event, capacity int) (history.Message, bool) {
	hs := holds(tl)
	for j, b := range hs {
		if b.from >= b.to {
			// Granted once its TTL had run out (a reply that came late):
			// its holder learns that it holds nothing.
			continue
		}
		var during []string
		taken := b.permits
		for _, a := range hs[:j] {
			if !(a.from <= b.from && b.from < a.to) {
				continue
			}
			switch {
			case b.mode == history.Permit && a.mode == history.Permit:
				taken += a.permits
			case a.client == b.client:
				continue
			case b.mode == history.Shared && a.mode == history.Shared:
				continue
			}
			if !slices.Contains(during, a.client) {
				during = append(during, a.client)
			}
		}
		switch {
		case b.mode == history.Permit && taken > max(capacity, 1):
			return mTooMany.New(b.client, b.permits, during, max(capacity, 1)), true
		case b.mode == history.Permit || len(during) == 0:
		case b.mode == history.Shared:
			return mReadDuringWrite.New(b.client, during), true
		case slices.ContainsFunc(hs[:j], func(a hold) bool { return a.mode == history.Shared && slices.Contains(during, a.client) }):
			return mWriteDuringRead.New(b.client, during), true
		default:
			return mTwoHolders.New(b.client, during), true
		}
	}
	return history.Message{}, false
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
