package judge

import (
	"slices"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// Free judges a history that holds no claim: it finds the first
// violation the events show of the rules every lock keeps, whoever
// wrote the workload. A history is read as Jepsen reads one: a lock
// call that returned is a grant, a refusal or a release that the events
// take at its word; one whose reply was lost or late (an error), or
// whose client crashed inside it, has an unknown outcome, and the rules
// consider both outcomes, each where it cannot make a false finding.

// Options is what Free knows of the lock beside its history.
type Options struct {
	// Permits is a semaphore's number of permits (1 when 0).
	Permits int
	// Fenced and Leased: the lock promises a fencing token
	// (strategy.Fenced) or a lease signal (strategy.Leased). A holder
	// that works past its TTL is the flaw of every lock without them,
	// and no finding; with either, it is one.
	Fenced, Leased bool
	// Slack is how long after the last hold in its way ended a refused
	// attempt proves the lock stuck; 500ms when 0.
	Slack time.Duration
	// Quick is how long a refused attempt may take and still count as a
	// fair one (a slow machine's attempt proves nothing); 30ms when 0.
	Quick time.Duration
	// Attempts is how many fair refusals in a row, with nothing in their
	// way, make a finding; 3 when 0.
	Attempts int
	// WriterIntent is how long a write attempt may keep new readers out
	// of a lock that lets waiting writers in first (strategy.WriterFirst).
	WriterIntent time.Duration
	// Late is how long after a lock call returned the suite may record
	// one of its commands whose reply it held past the call's deadline
	// (a late reply): a command that met trouble may belong to a call
	// that returned up to Late before it.
	Late time.Duration
}

// The defaults of Options.
const (
	DefaultSlack    = 500 * time.Millisecond
	DefaultQuick    = 30 * time.Millisecond
	DefaultAttempts = 3
)

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.Slack <= 0 {
		o.Slack = DefaultSlack
	}
	if o.Quick <= 0 {
		o.Quick = DefaultQuick
	}
	if o.Attempts <= 0 {
		o.Attempts = DefaultAttempts
	}
	o.Permits = max(o.Permits, 1)
	return o
}

// Free finds, from tl alone, the first violation of these rules, in the
// history's order, and says so with a Decision of Breaks whose Rule names
// the rule and Event the event that shows it; false when there is none
// (the claims of tl, history.Check, are not read):
//
//   - history.OneHolder: no grant returns while the valid holds forbid
//     it, by mode and permits (see history.OneHolder; an acquire of
//     unknown outcome is nobody's hold here), and no refresh returns
//     success while they forbid the hold it refreshes (lateRefresh);
//   - history.OneInside: no client enters the critical section while
//     others are inside whose holds conflict with its own, counted among
//     the clients whose hold is valid, or among all of them when the
//     lock promises a fence or a lease (Options);
//   - history.Unfreed and history.FreeRefused: no client is refused
//     Options.Attempts times in a row, each attempt quick, while no hold
//     that may stand (an acquire of unknown outcome, a hold whose release
//     failed, until their TTL) was in its way since Options.Slack before
//     the attempt began: Unfreed when a hold in its way had ended,
//     FreeRefused when there was none;
//   - history.FreeRefused also when two clients, alone at the lock, are
//     refused at once, each attempt quick, untroubled, and with no hold
//     in its way (rivals);
//   - history.Untouched, history.GrantOwned and history.FullLease, on
//     what the suite read of the lock's keys (history.EvRead): no call
//     of another client removes, overwrites or extends a valid hold, a
//     grant finds no other client's value in place of its own, and a
//     hold's key does not expire before the hold's end;
//   - history.FullLease also when a release or refresh of a hold
//     returns, within its TTL, that the lock holds nothing of its caller's
//     (cutShort);
//   - history.FenceOrder, on the writes of holders to the resource the
//     lock protects (history.EvWrite): the fencing tokens let no late
//     holder's write in after a later hold's, and shut no valid holder
//     out for an earlier hold's token (fenceOrder).
func Free(tl []history.Event, opts Options) (Decision, bool) {
	opts = opts.withDefaults()
	tl = semaphore(tl)
	live := liveness{expired: opts.Slack, released: opts.Slack, quick: opts.Quick, attempts: opts.Attempts, permits: opts.Permits, intent: opts.WriterIntent}
	var best *finding
	for _, f := range []func() (finding, bool){
		func() (finding, bool) { return twoHoldersAt(tl, opts.Permits) },
		func() (finding, bool) { return lateRefresh(tl, opts.Permits) },
		func() (finding, bool) { return cutShort(tl, opts.Late) },
		func() (finding, bool) { return twoValidInside(tl, opts) },
		func() (finding, bool) {
			return stuck(tl, "", live)
		},
		func() (finding, bool) { return rivals(tl, live, opts.Late) },
		func() (finding, bool) { return untouched(tl) },
		func() (finding, bool) { return grantOwned(tl) },
		func() (finding, bool) { return fullLease(tl) },
		func() (finding, bool) { return fenceOrder(tl) },
	} {
		if got, ok := f(); ok && (best == nil || got.event < best.event) {
			best = &got
		}
	}
	if best == nil {
		return Decision{}, false
	}
	return Decision{Verdict: Breaks, Reason: best.reason, Rule: best.rule, Event: best.event}, true
}

// twoHoldersAt is twoHolders as a finding: the grant's event.
func twoHoldersAt(tl []history.Event, capacity int) (finding, bool) {
	hs := holds(tl)
	for j, b := range hs {
		if b.from >= b.to {
			// Granted once its TTL had run out (a reply that came late):
			// its holder learns that it holds nothing.
			continue
		}
		var during []hold
		for _, a := range hs[:j] {
			if a.from <= b.from && b.from < a.to-serverTick {
				during = append(during, a)
			}
		}
		if m, ok := conflict(b, during, capacity); ok {
			return finding{history.OneHolder, b.event, m}, true
		}
	}
	return finding{}, false
}

// twoValidInside finds the first client that entered the critical
// section while others were inside whose holds its own conflicts with.
// Without a fence or a lease (Options), only the clients whose hold is
// valid count: one that works on past its TTL is every such lock's flaw.
func twoValidInside(tl []history.Event, opts Options) (finding, bool) {
	hs := holds(tl)
	validAt := func(c string, t time.Duration) (hold, bool) {
		for i := len(hs) - 1; i >= 0; i-- {
			if h := hs[i]; h.client == c && h.from <= t && t < h.to-serverTick {
				return h, true
			}
		}
		return hold{}, false
	}
	// With a fence or a lease, a client inside holds until it leaves,
	// whatever its TTL: its latest grant.
	heldAt := func(c string, t time.Duration) (hold, bool) {
		for i := len(hs) - 1; i >= 0; i-- {
			if h := hs[i]; h.client == c && h.from <= t {
				return h, true
			}
		}
		return hold{}, false
	}
	promised := opts.Fenced || opts.Leased
	var inside []string
	for i, e := range tl {
		switch e.Kind {
		case history.EvEnter:
			if promised && len(inside) > 0 {
				if names, ok := promisedConflict(e.Client, e.At, inside, heldAt, opts.Permits); ok {
					return finding{history.OneInside, i, Overlap(e.Client, names)}, true
				}
				inside = append(inside, e.Client)
				continue
			}
			b, ok := validAt(e.Client, e.At)
			var during []hold
			for _, c := range inside {
				if a, valid := validAt(c, e.At); valid && c != e.Client {
					during = append(during, a)
				}
			}
			if ok && len(during) > 0 {
				if _, conflicts := conflict(b, during, opts.Permits); conflicts {
					var names []string
					for _, a := range during {
						names = append(names, a.client)
					}
					return finding{history.OneInside, i, Overlap(e.Client, names)}, true
				}
			}
			inside = append(inside, e.Client)
		case history.EvLeave:
			if k := slices.Index(inside, e.Client); k >= 0 {
				inside = slices.Delete(inside, k, k+1)
			}
		}
	}
	return finding{}, false
}

// promisedConflict says which of the clients inside conflict with c
// entering at t, for a lock whose holders are told when to leave (a fence
// or a lease): each holds by its latest grant, in its mode, until it
// leaves. Readers share, and permits add up to the semaphore's number; a
// client whose grant the history does not show conflicts with any.
func promisedConflict(c string, t time.Duration, inside []string, heldAt func(string, time.Duration) (hold, bool), capacity int) ([]string, bool) {
	b, ok := heldAt(c, t)
	var during []hold
	var unknown []string
	for _, o := range inside {
		if o == c {
			continue
		}
		if a, held := heldAt(o, t); held {
			during = append(during, a)
		} else {
			unknown = append(unknown, o)
		}
	}
	if !ok || len(unknown) > 0 {
		others := slices.DeleteFunc(slices.Clone(inside), func(o string) bool { return o == c })
		return others, len(others) > 0
	}
	if _, conflicts := conflict(b, during, capacity); !conflicts {
		return nil, false
	}
	var names []string
	for _, a := range during {
		if !slices.Contains(names, a.client) {
			names = append(names, a.client)
		}
	}
	return names, true
}

// conflict says whether b, granted while the holds during were valid,
// breaks history.OneHolder, and how; capacity is a semaphore's number
// of permits. A hold a late refresh revived says so.
func conflict(b hold, during []hold, capacity int) (history.Message, bool) {
	var others []string
	taken := b.permits
	for _, a := range during {
		switch {
		case b.mode == history.Permit && a.mode == history.Permit:
			taken += a.permits
		case a.client == b.client:
			continue
		case b.mode == history.Shared && a.mode == history.Shared:
			continue
		}
		if !slices.Contains(others, a.client) {
			others = append(others, a.client)
		}
	}
	var m history.Message
	switch {
	case b.mode == history.Permit && taken > max(capacity, 1):
		m = mTooMany.New(b.client, b.permits, others, max(capacity, 1))
	case b.mode == history.Permit || len(others) == 0:
		return history.Message{}, false
	case b.mode == history.Shared:
		m = mReadDuringWrite.New(b.client, others)
	case slices.ContainsFunc(during, func(a hold) bool { return a.mode == history.Shared && slices.Contains(others, a.client) }):
		m = mWriteDuringRead.New(b.client, others)
	default:
		m = mTwoHolders.New(b.client, others)
	}
	if b.revived {
		m = mRefreshedLapsed.New(b.client, others)
	}
	return m, true
}

// liveness is how stuck judges refusals: how long after a hold in the
// way ended by its TTL (expired) or by its release (released) an attempt
// proves the lock stuck, how long a fair attempt takes at most (0: any),
// how many fair refusals in a row it takes, and a semaphore's permits.
type liveness struct {
	expired, released time.Duration
	quick             time.Duration
	attempts          int
	permits           int
	intent            time.Duration // Options.WriterIntent
}

// grace is how long after h ended an attempt proves the lock stuck.
func (l liveness) grace(h *live) time.Duration {
	if !h.expired {
		return l.released
	}
	return l.expired
}

// stuck finds the first refusal of client (of any client when "") that
// ends a run of l.attempts fair refusals in a row of that client, each
// with no hold that may stand in its way since the grace after its end
// (see liveness).
func stuck(tl []history.Event, client string, l liveness) (finding, bool) {
	tl = semaphore(tl)
	ls := lives(tl)
	run := map[string]int{}
	all := attemptsRan(tl)
	for _, a := range all {
		if a.kind != history.EvNotAcquired || (client != "" && a.client != client) {
			continue
		}
		blocked, last := inTheWay(a, ls, l)
		blocked = blocked || writerWaiting(a, all, l.intent)
		if blocked {
			run[a.client] = 0
			continue
		}
		if l.quick > 0 && a.end-a.start > l.quick {
			continue // a slow attempt proves nothing, either way
		}
		run[a.client]++
		if run[a.client] < l.attempts {
			continue
		}
		if last == nil {
			return finding{history.FreeRefused, a.event, mRefusedFree.New(a.client, run[a.client], l.quick)}, true
		}
		return finding{history.Unfreed, a.event, mUnfreed.New(a.client, run[a.client], l.quick, last.client, (a.start - last.to).Round(time.Millisecond))}, true
	}
	return finding{}, false
}

// attemptsRan is attempts(tl), each with by when its commands had run
// (attempt.ran).
func attemptsRan(tl []history.Event) []attempt {
	all := attempts(tl)
	ranBy := lateRuns(tl)
	for i, a := range all {
		all[i].ran = a.end
		if a.unknown {
			all[i].ran = ranBy(tl[a.event], a.event)
		}
	}
	return all
}

// writerWaiting says whether a's refusal, a reader's, may be the lock's
// preference for writers (strategy.WriterFirst): a write attempt, by any
// client, a itself too, that was refused or whose outcome is unknown,
// began before a ended, and a began at most intent after its commands
// had run (attempt.ran: its end, or, for one of unknown outcome, its
// last command, which may run after it gave up) and before that
// writer's next grant returned (a writer that gets in leaves no intent
// behind).
func writerWaiting(a attempt, all []attempt, intent time.Duration) bool {
	if a.mode != history.Shared || intent <= 0 {
		return false
	}
	for k, w := range all {
		if w.mode == history.Shared || w.mode == history.Permit || w.start > a.end || a.start-w.ran > intent {
			continue
		}
		if w.kind != history.EvNotAcquired && (w.kind != history.EvAcquired || !w.unknown) {
			continue // a grant, a release or a refresh: no intent
		}
		got := slices.IndexFunc(all[k+1:], func(g attempt) bool {
			return g.client == w.client && g.kind == history.EvAcquired && !g.unknown && g.mode != history.Shared
		})
		if got < 0 || a.start <= all[k+1+got].end {
			return true
		}
	}
	return false
}

// inTheWay says whether a hold that may stand was in a's way, by mode
// and permits, counting each from its start to the grace after its end,
// and returns, when none was, the one that ended last.
func inTheWay(a attempt, ls []live, l liveness) (bool, *live) {
	var last *live
	taken := max(a.permits, 1)
	for i := range ls {
		h := &ls[i]
		if h.from > a.end || (a.mode == history.Shared && h.mode == history.Shared && h.client != a.client) {
			continue // began after the attempt returned, or shares with it
		}
		if h.to != forever && h.to+l.grace(h) <= a.start {
			if last == nil || h.to > last.to {
				last = h
			}
			continue
		}
		if a.mode != history.Permit || h.mode != history.Permit || h.permits == 0 {
			return true, nil
		}
		taken += h.permits
	}
	if taken > l.permits {
		return true, nil
	}
	return false, last
}

var (
	mRefreshedLapsed = msg.Define("judge.refreshed-lapsed", msg.K(msg.Client, msg.Clients),
		"{0}'s refresh returned with success once its hold had lapsed, and so said that {0} held the lock again while {1} held it within {1|its|their} TTL")
	mRefusedFree = msg.Define("judge.refused-free", msg.K(msg.Client, msg.Count, msg.Duration),
		"{0} was refused {1} times in a row, each attempt within {2}, with no hold in its way")
	mUnfreed = msg.Define("judge.unfreed", msg.K(msg.Client, msg.Count, msg.Duration, msg.Client, msg.Duration),
		"{0} was refused {1} times in a row, each attempt within {2}, although the last hold in its way, {3}'s, had ended {4} before")
)
