package judge

import (
	"slices"
	"strings"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// What a refresh tells its holder, and what a lock does on its own
// between the calls of its holder.

// lateRefresh finds the first refresh that returned success, within the
// TTL it asked for counted from its call, while another client's hold,
// granted before it returned and valid when it did, forbade the
// refreshed one, by mode and permits: the lock told two clients at once
// that they hold it. A lock that keeps its word cannot: had the refresh
// run before the other's grant wrote, that grant would have found the
// refreshed hold in its way; had it run after, it would have found the
// other's hold in place of its own, and extended nothing. A reply that
// came late changes nothing: the refreshed hold counts from the
// refresh's call. capacity is a semaphore's number of permits.
func lateRefresh(tl []history.Event, capacity int) (finding, bool) {
	hs := holds(tl)
	// A hold's index by its event's: a grant's, or a refresh's that
	// revived a lapsed hold (holds numbers both, in the history's order).
	byEvent := map[int]int{}
	for j, h := range hs {
		byEvent[h.event] = j
	}
	o := newOpens()
	for k, e := range tl {
		i, held := o.of(e)
		switch {
		case e.Kind == history.EvAcquired && e.Err == "":
			o.add(e, byEvent[k])
		case e.Kind == history.EvReleased && held:
			o.close(e, i, false)
		case e.Kind == history.EvRefreshed && e.Err == "" && held && i < len(hs) && e.TTL > 0 && e.At < e.Call+e.TTL-serverTick:
			b := hs[i]
			b.from = e.At
			var during []hold
			for j, a := range hs {
				if j != i && a.client != b.client && a.from < e.At && e.At < a.to-serverTick {
					during = append(during, a)
				}
			}
			if _, ok := conflict(b, during, capacity); ok {
				var names []string
				for _, a := range during {
					if !slices.Contains(names, a.client) {
						names = append(names, a.client)
					}
				}
				return finding{history.OneHolder, k, mRefreshWhileHeld.New(b.client, names)}, true
			}
		}
		if j, ok := byEvent[k]; ok && e.Kind == history.EvRefreshed && held {
			o.move(e.Client, i, j)
		}
	}
	return finding{}, false
}

// busyWith says, of a command client sent at t, whether a release or
// refresh of its was under way (from its call to its return), and of
// which hold (Event.Hold; 0 for a client that holds one at a time): a
// lock that renews its holds on its own (a watchdog) sends commands
// outside those calls, and the history cannot say what they did (see
// lives). A command sent during an acquire may be one too: a client
// that holds a lock it no longer uses, and tries to take it again
// (rw-watchdog, explored: a read hold given up after a failed refresh,
// renewed by its watchdog while its holder tried for the write lock,
// which that read hold kept out). So may one sent during the release or
// refresh of another hold (semaphore-watchdog, explored: a renewal of
// A's permits, held up while A's second release of an earlier hold was
// paused, went with that release's command).
func busyWith(tl []history.Event) func(client string, t time.Duration) (hold int, busy bool) {
	type span struct {
		from, to time.Duration
		hold     int
	}
	calls := map[string][]span{}
	for _, e := range tl {
		if (e.Kind == history.EvReleased || e.Kind == history.EvRefreshed) && e.Call > 0 {
			calls[e.Client] = append(calls[e.Client], span{e.Call, e.At, e.Hold})
		}
	}
	return func(c string, t time.Duration) (int, bool) {
		for _, s := range calls[c] {
			if s.from <= t && t <= s.to {
				return s.hold, true
			}
		}
		return 0, false
	}
}

// notHeld is the text of strategy.ErrNotHeld, which a lock call's
// error (Event.Err) holds when the lock said that its caller holds
// nothing: the call ran, and found no hold of its caller's.
const notHeld = "lock not held"

// cutShort finds the first release or refresh of a hold, granted and not
// yet released, that the lock refused as not held (notHeld) and that
// returned before the hold's TTL had run out, counted from its grant's
// call (or set by its last refresh that succeeded in time, to that
// refresh's call plus its TTL, shorter or not): the lock
// lost the hold before the end of its lease (history.FullLease). A lock
// that keeps its word keeps a hold until its TTL, whoever else acts,
// and its call ran before it returned. The call must have sent a
// command: a lock may answer from what it knows (a renewing lock whose
// lease has ended). A hold whose client met trouble since its grant (an
// error reply, no reply, a fault the suite notes) may have been lost by
// the client's own doing (a call that removed it, then tried again and
// found nothing; a renewal that failed), and proves nothing; the suite
// records a command whose reply it held past its caller's deadline once
// it lets the reply go, up to late after the call returned
// (Options.Late).
func cutShort(tl []history.Event, late time.Duration) (finding, bool) {
	troubled := troubles(tl)
	sent := commandsOf(tl)
	o := newOpens()
	var ends, froms []time.Duration // each hold's end, by its TTL, and its grant's return
	for k, e := range tl {
		i, held := o.of(e)
		switch {
		case e.Kind == history.EvAcquired && e.Err == "":
			ends, froms = append(ends, ttlEnd(e)), append(froms, e.At)
			o.add(e, len(ends)-1)
		case !held || (e.Kind != history.EvRefreshed && e.Kind != history.EvReleased):
			if e.Kind == history.EvCrash {
				o.close(e, -1, true)
			}
		case strings.Contains(e.Err, notHeld) && e.At < ends[i]-serverTick && !troubled(e.Client, froms[i], e.At+late) && sent(e.Client, e.Call, e.At):
			m := mReleaseNotHeld
			if e.Kind == history.EvRefreshed {
				m = mRefreshNotHeld
			}
			return finding{history.FullLease, k, m.New(e.Client, (ends[i] - e.At).Round(time.Millisecond))}, true
		case e.Kind == history.EvReleased:
			o.close(e, i, false)
		case renews(e, ends[i]):
			ends[i] = renewed(e, ends[i])
		}
	}
	return finding{}, false
}

// lateRuns says by when the commands of the lock call that e returns
// (the k-th event of tl) had run: by its return, for a call that
// returned without an error; for one that gave up (its deadline passed),
// a command it sent may have waited on the way and run later, recorded
// when its reply came: up to the client's next lock call's return, or
// later still for a command the history says it sent
// (history.Event.SentIn), held on the way past that return.
func lateRuns(tl []history.Event) func(e history.Event, k int) time.Duration {
	return func(e history.Event, k int) time.Duration {
		at := e.At
		if e.Err == "" {
			return at
		}
		next := false // past the client's next return
		for _, f := range tl[k+1:] {
			switch {
			case f.Client != e.Client:
			case returns(f.Kind):
				next = true
			case f.Kind != history.EvCommand:
			case !next || (e.Call > 0 && f.SentIn == e.Call):
				at = max(at, f.At)
			}
		}
		return at
	}
}

// troubles says whether a client met trouble between two times: a
// command of its with an error reply or none, or a note on it (a fault
// the suite made).
func troubles(tl []history.Event) func(client string, from, to time.Duration) bool {
	return timesOf(tl, func(e history.Event) bool {
		return e.Kind == history.EvCommand && (e.Err != "" || e.Msg != nil) || e.Kind == history.EvNote
	})
}

// commandsOf says whether a client sent a command between two times.
func commandsOf(tl []history.Event) func(client string, from, to time.Duration) bool {
	return timesOf(tl, func(e history.Event) bool { return e.Kind == history.EvCommand })
}

// timesOf says whether a client has an event that keep keeps between
// two times.
func timesOf(tl []history.Event, keep func(history.Event) bool) func(client string, from, to time.Duration) bool {
	at := map[string][]time.Duration{}
	for _, e := range tl {
		if e.Client != "" && keep(e) {
			at[e.Client] = append(at[e.Client], e.At)
		}
	}
	return func(c string, from, to time.Duration) bool {
		return slices.ContainsFunc(at[c], func(t time.Duration) bool { return from <= t && t <= to })
	}
}

var (
	mReleaseNotHeld = msg.Define("judge.release-not-held", msg.K(msg.Client, msg.Duration),
		"{0}'s release found no hold of its own, {1} before the end of the TTL it asked for: its lease was cut short")
	mRefreshNotHeld = msg.Define("judge.refresh-not-held", msg.K(msg.Client, msg.Duration),
		"{0}'s refresh found no hold of its own, {1} before the end of the TTL it asked for: its lease was cut short")
)

var mRefreshWhileHeld = msg.Define("judge.refresh-while-held", msg.K(msg.Client, msg.Clients),
	"{0}'s refresh returned success while {1} held the lock within its TTL: two clients were told that they hold it")
