package judge

import (
	"slices"
	"time"

	"github.com/locklab/locklab/history"
)

// What the events say of the holds, read two ways. For safety (one
// holder, one inside) a hold counts only where it surely stood: from its
// grant's return to the earliest end it may have had (holds). For
// liveness (a refusal with nothing in its way) every hold counts that may
// have stood, as long as it may have (lives). An operation of unknown
// outcome (an error, a crash inside it) is read each way as the outcome
// that makes no false finding.

// hold is a grant's validity: from its return to its end.
type hold struct {
	client   string
	id       int // Event.Hold
	mode     history.Mode
	permits  int
	from, to time.Duration
	event    int // its grant's index in the history
	// revived: the hold is a refresh's that returned with success once
	// its client's hold had lapsed, and event is that refresh's.
	revived bool
}

// forever is the end of a hold that nothing ends.
const forever = time.Duration(1<<63 - 1)

// ref names a client's hold.
type ref struct {
	client string
	id     int
}

// opens finds the hold of a client's lock call among open, its holds
// still open, by Event.Hold, or, for a client that holds one at a time,
// its last.
type opens struct {
	open map[ref]int // a hold still open: its index
	last map[string]int
}

func newOpens() opens { return opens{map[ref]int{}, map[string]int{}} }

// of returns the index of e's hold, and whether it is open.
func (o opens) of(e history.Event) (int, bool) {
	if e.Hold == 0 {
		i, ok := o.last[e.Client]
		return i, ok && i >= 0
	}
	i, ok := o.open[ref{e.Client, e.Hold}]
	return i, ok
}

func (o opens) add(e history.Event, i int) { o.open[ref{e.Client, e.Hold}], o.last[e.Client] = i, i }

// close ends e's hold i, and every hold of e's client when all.
func (o opens) close(e history.Event, i int, all bool) {
	for r := range o.open {
		if (all && r.client == e.Client) || o.open[r] == i && r.client == e.Client {
			delete(o.open, r)
		}
	}
	o.last[e.Client] = -1
}

// move has the refs of hold i name hold j instead: a refresh that
// revived a lapsed hold (holds, lives) carries it on as a new one, which
// the client's next release or refresh of it ends or extends.
func (o opens) move(client string, i, j int) {
	for r, k := range o.open {
		if k == i && r.client == client {
			o.open[r] = j
		}
	}
	if o.last[client] == i {
		o.last[client] = j
	}
}

// all returns the indices of the open holds of client.
func (o opens) all(client string) []int {
	var out []int
	for r, i := range o.open {
		if r.client == client {
			out = append(out, i)
		}
	}
	return out
}

// holds reads the valid holds of tl: each grant from its return until the
// earliest of its holder's release call and its call plus its TTL, which
// a refresh sets anew (renews, renewed) if it returned while the hold
// was valid. One that returned after may have
// run once the hold had lapsed, and cannot push it on across the gap:
// whoever was granted the lock meanwhile was granted it rightly. But its
// success says its client holds the lock again: from its return to its
// call plus its TTL it is a hold of its own (revived), which another's
// valid hold beside it breaks. A
// release or refresh ends or extends the hold of its Event.Hold, or,
// without one, the client's last. A grant recorded without a TTL is
// valid until its release. A crash inside a lock call that may have been
// a release (see inflight) ends its client's holds when the call began.
func holds(tl []history.Event) []hold {
	var out []hold
	o := newOpens()
	fl := inflight(tl)
	for k, e := range tl {
		i, held := o.of(e)
		switch {
		case e.Kind == history.EvAcquired && e.Err == "":
			out = append(out, hold{client: e.Client, id: e.Hold, mode: e.Mode, permits: max(e.Permits, 1), from: e.At, to: ttlEnd(e), event: k})
			o.add(e, len(out)-1)
		case e.Kind == history.EvRefreshed && held && renews(e, out[i].to):
			out[i].to = renewed(e, out[i].to)
		case e.Kind == history.EvRefreshed && e.Err == "" && held && e.TTL > 0 && e.At < e.Call+e.TTL:
			h := out[i]
			out = append(out, hold{client: h.client, id: h.id, mode: h.mode, permits: h.permits, from: e.At, to: e.Call + e.TTL, event: k, revived: true})
			o.move(e.Client, i, len(out)-1)
		case e.Kind == history.EvReleased && held:
			out[i].to = min(out[i].to, e.Call)
			o.close(e, i, false)
		case e.Kind == history.EvCrash:
			if c, ok := fl[k]; ok && c.ttl == 0 {
				for _, j := range o.all(e.Client) {
					out[j].to = min(out[j].to, c.start)
				}
				o.close(e, -1, true)
			}
		}
	}
	return out
}

// renews says whether e, a refresh of a hold that ends at to, sets its
// end (renewed): one with a TTL that succeeded while the hold stood, or
// one of unknown outcome (an error, its reply lost), which may have run.
// A refresh that succeeded after the hold had lapsed revives it instead
// (holds).
func renews(e history.Event, to time.Duration) bool {
	return e.TTL > 0 && (e.Err != "" || e.At < to)
}

// renewed is the end of a hold that ended at to, after e, a refresh of
// it that renews: a refresh sets the key's time to live from when it
// ran, shorter too, so its call plus its TTL is the least the key lives;
// one of unknown outcome may have run or not, so the hold lasts at least
// the shorter of the two.
func renewed(e history.Event, to time.Duration) time.Duration {
	if e.Err != "" {
		return min(to, e.Call+e.TTL)
	}
	return e.Call + e.TTL
}

// ttlEnd is when a grant's hold ends by its TTL, counted from its call:
// never, for a grant recorded without a TTL.
func ttlEnd(e history.Event) time.Duration {
	if e.TTL <= 0 {
		return forever
	}
	return e.Call + e.TTL
}

// live is a hold that may have stood: from its call to its end, and
// whether it expired rather than was released.
type live struct {
	client   string
	mode     history.Mode
	permits  int // 0: unknown, all of them
	from, to time.Duration
	expired  bool
	unknown  bool          // an acquire of unknown outcome: an error, a crash inside it
	ttl      time.Duration // what its grant asked for
}

// lives reads the holds that may have stood in tl: a grant, or an
// acquire of unknown outcome, from when its last attempt may have begun to act (attempt.earliest) to its return plus its TTL
// (when the key it wrote expires at the latest), which a refresh pushes
// on to its own return plus its TTL, and never back: a lock whose
// refresh for less leaves the key as it was (PEXPIRE's GT) is correct,
// and one that failed may not have run; and a command its client sent between its calls (busyWith) pushes
// on to the command plus the grant's TTL, until a release that returned
// without an error. A release call, whatever it returned, ends what such
// commands can do: a lock that renews a hold its holder gave up keeps it
// taken. A refresh acts on the lock no sooner than its first command:
// one whose first command came once the hold had ended makes a hold that
// may stand of its own, from that command on, and the gap before it was
// free. A crash inside an acquire or
// a refresh may have taken or extended the lock to the crash plus its
// TTL; inside a call the history does not say, for good.
func lives(tl []history.Event) []live {
	var out []live
	o := newOpens()
	fl := inflight(tl)
	busy := busyWith(tl)
	ranBy := lateRuns(tl)
	began := map[int]time.Duration{}
	for _, a := range attempts(tl) {
		began[a.event] = a.earliest
	}
	acted := firstCommands(tl)
	heldBack := timesOf(tl, func(e history.Event) bool { return e.Msg != nil && e.Msg.ID == lateReply })
	until := func(at, ttl time.Duration) time.Duration {
		if ttl <= 0 {
			return forever
		}
		return at + ttl
	}
	for k, e := range tl {
		i, held := o.of(e)
		switch {
		case e.Kind == history.EvAcquired:
			permits := max(e.Permits, 1)
			out = append(out, live{client: e.Client, mode: e.Mode, permits: permits, from: began[k], to: until(ranBy(e, k), e.TTL), expired: true, unknown: e.Err != "", ttl: e.TTL})
			o.add(e, len(out)-1)
		case e.Kind == history.EvNotAcquired && e.TTL > 0 && (heldBack(e.Client, began[k], e.At) || (e.Call > 0 && e.At-e.Call >= e.TTL)):
			// A refusal that returned while the reply of one of its
			// commands was held back (its deadline passed first): the
			// lock could not know what that command did, whatever it
			// said, and the key it may have written stands until its
			// TTL. So does one that took its whole TTL or longer: a
			// lock that gives up a grant which came too late to be of
			// use (Redlock's validity, as redsync counts it) may fail to
			// take back what it wrote, its caller's deadline past.
			// Its outcome is unknown.
			out = append(out, live{client: e.Client, mode: e.Mode, permits: max(e.Permits, 1), from: began[k], to: until(e.At, e.TTL), expired: true, unknown: true, ttl: e.TTL})
		case e.Kind == history.EvRefreshed && held && e.TTL > 0 && out[i].to < acted[k]:
			h := out[i]
			out = append(out, live{client: h.client, mode: h.mode, permits: h.permits, from: acted[k], to: until(e.At, e.TTL), expired: true, ttl: e.TTL})
			o.move(e.Client, i, len(out)-1)
		case e.Kind == history.EvRefreshed && held && e.TTL > 0:
			// A refresh makes the lock live TTL from when it ran, or,
			// asking for less than it had left, may leave it as it was
			// (refresh-never-shortens); one that failed may or may not
			// have run.
			if end := until(ranBy(e, k), e.TTL); end > out[i].to {
				out[i].to, out[i].expired = end, true
			}
		case e.Kind == history.EvReleased && held:
			if e.Err == "" && e.At < out[i].to {
				out[i].to, out[i].expired = e.At, false
			}
			o.close(e, i, false)
		case e.Kind == history.EvCommand:
			// Sent while it held, outside the release or refresh of a
			// hold: maybe a renewal of its own (a watchdog), which the
			// history cannot read (busyWith).
			h, inCall := busy(e.Client, e.At)
			own, open := o.open[ref{e.Client, h}]
			for _, j := range o.all(e.Client) {
				if inCall && (h == 0 || open && own == j) {
					continue // the call's, on its own hold
				}
				if end := until(e.At, out[j].ttl); end > out[j].to {
					out[j].to, out[j].expired = end, true
				}
			}
		case e.Kind == history.EvCrash:
			c, ok := fl[k]
			if !ok || (c.known && c.ttl == 0) {
				continue // not inside a call, or inside a release
			}
			end := forever
			if c.known {
				end = until(e.At, c.ttl)
			}
			for _, j := range o.all(e.Client) {
				out[j].to, out[j].expired = max(out[j].to, end), true
			}
			out = append(out, live{client: e.Client, from: c.start, to: end, expired: true, unknown: true})
		}
	}
	return out
}

// call is a lock call that a crash cut short: when it began, and the TTL
// it asked for (0 for a release) when the crash's event says (known).
type call struct {
	start time.Duration
	ttl   time.Duration
	known bool
}

// inflight finds the crashes of tl that came inside a lock call, by the
// index of their events: a crash event that gives the call (Event.Call),
// or one after commands of its client that no lock call's return
// followed.
func inflight(tl []history.Event) map[int]call {
	out := map[int]call{}
	since := map[string]time.Duration{} // a client's first command since its last lock call returned
	for k, e := range tl {
		switch {
		case e.Kind == history.EvCrash && e.Call > 0:
			out[k] = call{start: e.Call, ttl: e.TTL, known: true}
		case e.Kind == history.EvCrash:
			if at, ok := since[e.Client]; ok {
				out[k] = call{start: at}
			}
		case e.Kind == history.EvCommand:
			if _, ok := since[e.Client]; !ok {
				since[e.Client] = e.At
			}
			continue
		case !returns(e.Kind):
			continue
		}
		delete(since, e.Client)
	}
	return out
}

// lateReply is the identifier of the note the suite writes where it
// held a command's reply back past its caller's deadline (a late reply,
// package sim).
const lateReply = "fault.late"

// firstCommands gives, for each lock call's return in tl (by its index),
// when the call could first act on the lock: its client's first command
// since its last return, or, when it sent none, the return itself.
func firstCommands(tl []history.Event) map[int]time.Duration {
	out := map[int]time.Duration{}
	first := map[string]time.Duration{}
	for k, e := range tl {
		switch {
		case e.Kind == history.EvCommand:
			if _, ok := first[e.Client]; !ok {
				first[e.Client] = e.At
			}
		case returns(e.Kind):
			at, ok := first[e.Client]
			if !ok {
				at = e.At
			}
			out[k] = at
			delete(first, e.Client)
		}
	}
	return out
}

// returns says whether an event of kind is a lock call's return.
func returns(kind history.EventKind) bool {
	switch kind {
	case history.EvAcquired, history.EvNotAcquired, history.EvReleased, history.EvRefreshed:
		return true
	}
	return false
}

// attempt is one attempt to acquire (or any lock call) as the history
// shows it: its event, when it began and returned, and what it asked.
type attempt struct {
	event      int
	client     string
	kind       history.EventKind
	mode       history.Mode
	permits    int
	start, end time.Duration
	// earliest is when it may have begun to act: its call, or its
	// client's previous return when that came after (a retry). Its first
	// command is recorded when its reply came back, which on a loaded
	// machine can be after another client's later command had run and
	// been recorded (explored: a writer's grant recorded 7ms after a
	// reader's refusals that it had caused).
	earliest time.Duration
	unknown  bool // it returned an error: its outcome is unknown
	// ran: by when its commands had run, as lateRuns says (stuck sets
	// it): a write attempt that gave up may register its intent after
	// it returned, once its command, held on the way, runs.
	ran time.Duration
}

// attempts reads the lock calls of tl, one for each return, with each
// attempt of an acquire that retries (history.EvNotAcquired without a
// Call, then the call's own return): it began at its client's first
// command after its last return, or, without one, at the later of its
// call and that return; an attempt without a call of its own asks what
// its call's return says it asked.
func attempts(tl []history.Event) []attempt {
	var out []attempt
	last := map[string]time.Duration{}
	first := map[string]time.Duration{}
	pending := map[string][]int{} // attempts waiting for their call's mode
	for k, e := range tl {
		if e.Kind == history.EvCommand || e.Kind == history.EvClock {
			if _, ok := first[e.Client]; !ok {
				first[e.Client] = e.At
			}
			continue
		}
		if !returns(e.Kind) {
			continue
		}
		start, ok := first[e.Client]
		if !ok {
			start = max(e.Call, last[e.Client])
		}
		a := attempt{event: k, client: e.Client, kind: e.Kind, mode: e.Mode, permits: e.Permits, start: start, end: e.At, unknown: e.Err != "",
			earliest: min(start, max(e.Call, last[e.Client]))}
		out = append(out, a)
		if e.Call == 0 && e.Kind == history.EvNotAcquired {
			pending[e.Client] = append(pending[e.Client], len(out)-1)
		} else {
			for _, j := range pending[e.Client] {
				out[j].mode, out[j].permits = e.Mode, e.Permits
			}
			delete(pending, e.Client)
		}
		last[e.Client] = e.At
		delete(first, e.Client)
	}
	return out
}

// semaphore reads tl as a semaphore's when any of its events takes
// permits: a call recorded without a mode there (a plain TryAcquire, an
// Acquire that waits) takes one permit.
func semaphore(tl []history.Event) []history.Event {
	if !slices.ContainsFunc(tl, func(e history.Event) bool { return e.Mode == history.Permit }) {
		return tl
	}
	out := slices.Clone(tl)
	for i, e := range out {
		if e.Mode == history.Exclusive && (returns(e.Kind) || e.Kind == history.EvCrash) {
			out[i].Mode, out[i].Permits = history.Permit, max(e.Permits, 1)
		}
	}
	return out
}

// finding is a violation: the rule, the event that shows it and what it
// is.
type finding struct {
	rule   history.Rule
	event  int
	reason history.Message
}

// serverTick is how much sooner than its TTL by our clock a hold may end
// by the server's: Redis counts expiries, and the TIME a script reads, in
// whole milliseconds, so a key set at 10.9ms with a TTL of 60ms may be
// gone at 70.0ms. A grant within a tick of a hold's end is no second
// holder.
const serverTick = time.Millisecond
