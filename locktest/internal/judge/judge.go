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

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

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
			// A change of a holder's lock by another client stands on
			// the reads of the keys around it, where the history has
			// them; any other observation on the scenario's word.
			if author, holder, ok := changedClaim(reason()); ok && !showsChange(tl[:i], author, holder) {
				return Decision{}, fmt.Errorf("judge: the scenario claims that %s changed %s's lock, but its history does not show it", author, holder)
			}
			return Decision{Verdict: Breaks, Reason: reason()}, nil
		case history.Unfreed:
			if _, ok := stuck(tl[:i], c.Client, claimed(capacity(c.Permits, tl[:i]))); !ok {
				return Decision{}, fmt.Errorf("judge: the scenario claims that %s could not get a lock that had to be free, but its history does not show it", c.Client)
			}
			return Decision{Verdict: Breaks, Reason: reason()}, nil
		case history.FreeRefused:
			if !freeRefused(c.Client, c.Permits, tl[:i]) {
				return Decision{}, fmt.Errorf("judge: the scenario claims that %s was refused a free lock, but its history does not show it", c.Client)
			}
			return Decision{Verdict: Breaks, Reason: reason()}, nil
		case history.OneHolder, history.OneInside:
			if !c.Broken {
				// A promise: checked on the whole history, below.
				continue
			}
			_, ok := find(c.Rule, c.Permits, tl[:i])
			if !ok && c.Rule == history.OneHolder {
				// A break Free finds that no promise checks (a run of
				// the explorer's).
				_, ok = lateRefresh(semaphore(tl[:i]), c.Permits)
			}
			if !ok {
				return Decision{}, fmt.Errorf("judge: the scenario claims that %s was broken, but its history does not show it", c.Rule)
			}
			return Decision{Verdict: Breaks, Reason: reason()}, nil
		case history.Untouched, history.GrantOwned, history.FullLease:
			_, ok := onReads[c.Rule](tl[:i])
			if !ok && c.Rule == history.FullLease {
				_, ok = cutShort(tl[:i], 0) // a lease cut short, as a call's reply shows it
			}
			if !ok {
				return Decision{}, fmt.Errorf("judge: the scenario claims that %s was broken, but its history does not show it", c.Rule)
			}
			return Decision{Verdict: Breaks, Reason: reason()}, nil
		case history.FenceOrder:
			if _, ok := fenceOrder(tl[:i]); !ok {
				return Decision{}, fmt.Errorf("judge: the scenario claims that %s was broken, but its history does not show it", c.Rule)
			}
			return Decision{Verdict: Breaks, Reason: reason()}, nil
		case history.Kept:
			last = &Decision{Verdict: Holds, Reason: reason()}
		case history.Unstageable:
			last = &Decision{Verdict: NotApplicable, Reason: reason()}
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
				return Decision{Verdict: Breaks, Reason: promiseBroken(e.Check, found)}, nil
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
		f, ok := twoHoldersAt(tl, capacity)
		return f.reason, ok
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

// capacity is a semaphore's number of permits as a history shows it:
// the most that its claims give (permits, and each Check.Permits) or that
// its valid holds took at once, the lock having granted them.
func capacity(permits int, tl []history.Event) int {
	for _, e := range tl {
		if e.Kind == history.EvCheck && e.Check != nil {
			permits = max(permits, e.Check.Permits)
		}
	}
	hs := holds(tl)
	for _, b := range hs {
		taken := 0
		for _, a := range hs {
			if a.mode == history.Permit && a.from <= b.from && b.from < a.to {
				taken += a.permits
			}
		}
		permits = max(permits, taken)
	}
	return permits
}

// claimed is how an Unfreed claim is shown: by one refusal of its
// client that began once every hold that may stand in its way had ended,
// by its release or its TTL (its grant's return plus its TTL, the latest
// the key it wrote expires), however long the attempt took: the
// scenario gave it its fair chance.
func claimed(permits int) liveness {
	return liveness{attempts: 1, permits: max(permits, 1)}
}

// freeRefused says whether client's last attempt in tl was refused while
// nothing stood in its way: no valid hold when it began (holds), nor an
// acquire of unknown outcome (a lost reply, a crash inside it) that may
// have taken the lock until its TTL (lives) while it ran; none at all for
// an exclusive attempt, no other client's exclusive one for a shared
// one, and room among capacity permits for a semaphore's.
func freeRefused(client string, capacity int, tl []history.Event) bool {
	tl = semaphore(tl)
	last := -1
	for i, e := range tl {
		if e.Client == client && (e.Kind == history.EvNotAcquired || e.Kind == history.EvAcquired) {
			last = i
		}
	}
	if last < 0 || tl[last].Kind != history.EvNotAcquired {
		return false
	}
	all := attempts(tl[:last+1])
	a := all[len(all)-1]
	call := tl[last].Call
	taken := max(a.permits, 1)
	inTheWay := func(mode history.Mode, owner string, permits int) bool {
		switch {
		case a.mode == history.Shared && (mode == history.Shared || owner == client):
		case a.mode == history.Permit && mode == history.Permit && permits > 0:
			taken += permits
		default:
			return true
		}
		return false
	}
	for _, h := range holds(tl[:last]) {
		if h.from <= call && call < h.to && inTheWay(h.mode, h.client, h.permits) {
			return false
		}
	}
	for _, h := range lives(tl[:last]) {
		if h.unknown && h.from <= a.end && a.start < h.to && inTheWay(h.mode, h.client, h.permits) {
			return false
		}
	}
	return taken <= max(capacity, 1)
}
