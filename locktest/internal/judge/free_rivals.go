package judge

import (
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// rivals finds the first pair of attempts of two clients, at once (each
// began before the other returned), both refused, each quick and with no
// hold that may stand in its way (as stuck counts them, by mode and
// permits, the writer intent too), beside which no other client was at
// the lock (crowded) and during which neither client met trouble (an error reply,
// no reply, a fault the suite notes, up to late after it returned): one
// of them should have got the lock (history.FreeRefused). Whichever of
// the two a lock that keeps its word serves first finds room, and takes
// it: two refusals show an acquire that, meeting its rival half way,
// gave up what it had taken (a weighted acquire that takes its permits
// one at a time and gives them back when one is refused).
//
// One refusal of a free lock is no finding on its own (stuck asks for
// several in a row), nor are three rivals refused at once: a lock on
// several servers may split their votes. Two, alone and untroubled, on
// one server, cannot both lose.
func rivals(tl []history.Event, l liveness, late time.Duration) (finding, bool) {
	tl = semaphore(tl)
	ls := lives(tl)
	troubled := troubles(tl)
	all := attemptsRan(tl)
	fair := func(a attempt) bool {
		if a.kind != history.EvNotAcquired || a.unknown || (l.quick > 0 && a.end-a.start > l.quick) {
			return false
		}
		if blocked, _ := inTheWay(a, ls, l); blocked || writerWaiting(a, all, l.intent) {
			return false
		}
		return !troubled(a.client, a.start, a.end+late)
	}
	ok := make([]bool, len(all))
	for i, a := range all {
		ok[i] = fair(a)
	}
	// all is in the history's order: the first pair found ends first.
	for j, b := range all {
		if !ok[j] {
			continue
		}
		for i, a := range all[:j] {
			if a.client == b.client || a.start >= b.end || b.start >= a.end || !ok[i] {
				continue
			}
			if crowded(tl, all, a, b, min(a.start, b.start), max(a.end, b.end)) {
				continue
			}
			return finding{history.FreeRefused, b.event, mRivalsRefused.New(a.client, b.client, l.quick)}, true
		}
	}
	return finding{}, false
}

// crowded says whether another client than a's and b's was at the lock
// from..to: inside a lock call of its, from the call's beginning (a
// retry's too: from its client's previous return), whatever its first
// command says; a crash inside a call; or a command of its recorded
// then (a renewal between its calls). A command is recorded when its
// reply came back, which on a loaded machine can be after another
// client's later command had run and been recorded: explored, two
// readers' scripts ran before two writers', and were recorded after
// their refusals. Nor does a command whose reply came late show when it
// ran.
func crowded(tl []history.Event, all []attempt, a, b attempt, from, to time.Duration) bool {
	other := func(c string) bool { return c != "" && c != a.client && c != b.client }
	for _, c := range all {
		if other(c.client) && c.earliest < to && from < c.end {
			return true
		}
	}
	for _, e := range tl {
		if !other(e.Client) {
			continue
		}
		switch {
		case e.Kind == history.EvCommand && from <= e.At && e.At <= to:
			return true
		case e.Kind == history.EvCrash && e.Call > 0 && e.Call < to && from < e.At:
			return true
		}
	}
	return false
}

var mRivalsRefused = msg.Define("judge.rivals-refused", msg.K(msg.Client, msg.Client, msg.Duration),
	"{0} and {1} were both refused, their attempts at once, each within {2}, with no hold in their way and no other call beside them: whichever ran first should have got the lock")
