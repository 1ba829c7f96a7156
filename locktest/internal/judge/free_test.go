package judge_test

import (
	"slices"
	"testing"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest/internal/judge"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refused is an attempt of c begun at call that returned at at without
// the lock.
func refused(c string, call, at time.Duration) history.Event {
	return history.Event{Client: c, Kind: history.EvNotAcquired, Call: call, At: at, TTL: 100 * ms}
}

// lost is an acquire of c whose reply was lost: its outcome is unknown.
func lost(c string, call, at, ttl time.Duration) history.Event {
	e := grant(c, call, at, ttl)
	e.Err = "i/o timeout"
	return e
}

// crash is c's crash.
func crash(c string, at time.Duration) history.Event {
	return history.Event{Client: c, Kind: history.EvCrash, At: at}
}

// command is a command c sent at at.
func command(c string, at time.Duration) history.Event {
	return history.Event{Client: c, Kind: history.EvCommand, At: at, Command: []history.Arg{{Kind: history.ArgText, Text: "SET"}}}
}

// tries is n attempts of c, one every 10ms from t, each taking 1ms.
func tries(c string, t time.Duration, n int) []history.Event {
	var out []history.Event
	for i := range n {
		at := t + time.Duration(i)*10*ms
		out = append(out, refused(c, at, at+ms))
	}
	return out
}

func cat(parts ...[]history.Event) []history.Event {
	var out []history.Event
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var liveOpts = judge.Options{Slack: 50 * ms, Quick: 5 * ms, Attempts: 3}

// fenced is grant e with fencing token t.
func fenced(e history.Event, t int64) history.Event {
	e.Fence = &t
	return e
}

// intentOpts are liveOpts for a lock whose waiting writers go first.
var intentOpts = judge.Options{Slack: 50 * ms, Quick: 5 * ms, Attempts: 3, WriterIntent: 500 * ms}

// wroteRefused is W's write attempt, refused at 10ms.
var wroteRefused = []history.Event{{Client: "W", Kind: history.EvNotAcquired, Mode: history.Write, Call: 10 * ms, At: 11 * ms, TTL: 30 * ms}}

// lateWrite is W's write attempt that gave up at 11ms, its outcome
// unknown.
var lateWrite = []history.Event{{Client: "W", Kind: history.EvAcquired, Mode: history.Write, Call: 10 * ms, At: 11 * ms, TTL: 30 * ms, Err: "i/o timeout"}}

// readTries is n read attempts of R, refused, one every 10ms from t.
func readTries(t time.Duration, n int) []history.Event {
	out := tries("R", t, n)
	for i := range out {
		out[i].Mode = history.Shared
	}
	return out
}

// TestFree: each rule found from the events alone, and beside each a
// history that comes close and keeps it.
func TestFree(t *testing.T) {
	for _, tt := range []struct {
		name   string
		opts   judge.Options
		events []history.Event
		rule   history.Rule // "" when nothing is broken
		found  string
	}{
		// (a) one holder.
		{"a second holder", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), grant("B", 40*ms, 50*ms, 100*ms)},
			history.OneHolder, "B was granted the lock while A still held it within its TTL"},
		{"a holder after the TTL", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), grant("B", 140*ms, 150*ms, 100*ms)}, "", ""},
		{"a lost reply is no holder", liveOpts, []history.Event{lost("A", 0, ms, 100*ms), grant("B", 40*ms, 50*ms, 100*ms)}, "", ""},
		{"a lost reply's holder is not twice", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), lost("B", 40*ms, 50*ms, 100*ms)}, "", ""},
		{"past the permits", judge.Options{Permits: 2}, []history.Event{moded("A", 1, history.Permit, 1, 0, ms, 100*ms), moded("B", 1, history.Permit, 1, ms, 2*ms, 100*ms), moded("C", 1, history.Permit, 1, 2*ms, 3*ms, 100*ms)},
			history.OneHolder, "C was granted 1 permit while A, B held the others within their TTL: more than the 2 the semaphore allows"},
		{"within the permits", judge.Options{Permits: 3}, []history.Event{moded("A", 1, history.Permit, 1, 0, ms, 100*ms), moded("B", 1, history.Permit, 1, ms, 2*ms, 100*ms), moded("C", 1, history.Permit, 1, 2*ms, 3*ms, 100*ms)}, "", ""},
		// A crash inside a release may have released: the next grant
		// is no second holder.
		{"after a crash inside a release", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), command("A", 20*ms), crash("A", 21*ms), grant("B", 40*ms, 50*ms, 100*ms)}, "", ""},
		{"after a crash outside a call", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), crash("A", 21*ms), grant("B", 40*ms, 50*ms, 100*ms)},
			history.OneHolder, "B was granted the lock while A still held it within its TTL"},

		// A refresh that returns success while another holds: two
		// clients are told that they hold the lock.
		{"a late refresh that succeeds", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), grant("B", 110*ms, 111*ms, 100*ms), refresh("A", 120*ms, 121*ms, 100*ms)},
			history.OneHolder, "A's refresh returned with success once its hold had lapsed, and so said that A held the lock again while B held it within its TTL"},
		{"a late refresh refused", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), grant("B", 110*ms, 111*ms, 100*ms), {Client: "A", Kind: history.EvRefreshed, Call: 120 * ms, At: 121 * ms, TTL: 100 * ms, Err: "not held"}}, "", ""},
		{"a refresh after the other's TTL", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), grant("B", 110*ms, 111*ms, 100*ms), refresh("A", 220*ms, 221*ms, 100*ms)}, "", ""},
		{"a refresh whose reply came past its TTL", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), refresh("A", 90*ms, 300*ms, 100*ms), grant("B", 200*ms, 201*ms, 100*ms)}, "", ""},
		{"a refresh under a reader", liveOpts, []history.Event{moded("A", 1, history.Shared, 0, 0, ms, 100*ms), moded("B", 2, history.Shared, 0, 110*ms, 111*ms, 100*ms), {Client: "A", Kind: history.EvRefreshed, Hold: 1, Call: 120 * ms, At: 121 * ms, TTL: 100 * ms}}, "", ""},
		{"a permit refreshed past the permits", judge.Options{Permits: 1}, []history.Event{moded("A", 1, history.Permit, 1, 0, ms, 100*ms), moded("B", 2, history.Permit, 1, 110*ms, 111*ms, 100*ms), {Client: "A", Kind: history.EvRefreshed, Hold: 1, Call: 120 * ms, At: 121 * ms, TTL: 100 * ms}},
			history.OneHolder, "A's refresh returned with success once its hold had lapsed, and so said that A held the lock again while B held it within its TTL"},

		// A release or refresh that finds no hold of its caller's while
		// its TTL runs: the lock lost the hold early.
		{"a release found nothing within the TTL", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), command("A", 50*ms), {Client: "A", Kind: history.EvReleased, Call: 50 * ms, At: 51 * ms, Err: "release K: locklab: lock not held"}},
			history.FullLease, "A's release found no hold of its own, 49ms before the end of the TTL it asked for: its lease was cut short"},
		{"a refresh found nothing within the TTL", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), command("A", 50*ms), {Client: "A", Kind: history.EvRefreshed, Call: 50 * ms, At: 51 * ms, TTL: 100 * ms, Err: "refresh K: locklab: lock not held"}},
			history.FullLease, "A's refresh found no hold of its own, 49ms before the end of the TTL it asked for: its lease was cut short"},
		// A refresh for less shortened the hold: found nothing after it
		// ran out (fence-in-acquire, explored: A's refresh for 120ms,
		// then for 60ms).
		{"a release found nothing after a refresh for less", liveOpts, []history.Event{grant("A", 0, ms, 60*ms), refresh("A", 2*ms, 3*ms, 120*ms), refresh("A", 10*ms, 11*ms, 40*ms), command("A", 60*ms), {Client: "A", Kind: history.EvReleased, Call: 60 * ms, At: 61 * ms, Err: "release K: locklab: lock not held"}}, "", ""},
		{"a release found nothing past the TTL", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), {Client: "A", Kind: history.EvReleased, Call: 99 * ms, At: 101 * ms, Err: "release K: locklab: lock not held"}}, "", ""},
		{"a second release found nothing", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), release("A", 10*ms, 11*ms), {Client: "A", Kind: history.EvReleased, Call: 20 * ms, At: 21 * ms, Err: "release K: locklab: lock not held"}}, "", ""},
		// A release that met a fault may have deleted the hold before it
		// tried again: its "not held" proves nothing.
		{"a release retried after a lost reply", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), {Client: "A", Kind: history.EvCommand, At: 50 * ms, Msg: &history.Message{ID: "event.no-reply"}}, {Client: "A", Kind: history.EvReleased, Call: 49 * ms, At: 51 * ms, Err: "release K: locklab: lock not held"}}, "", ""},
		{"a release retried after a late reply", judge.Options{Slack: 50 * ms, Quick: 5 * ms, Late: 100 * ms}, []history.Event{grant("A", 0, ms, 100*ms), {Client: "A", Kind: history.EvReleased, Call: 49 * ms, At: 51 * ms, Err: "release K: locklab: lock not held"}, {Client: "A", Kind: history.EvCommand, At: 130 * ms, Msg: &history.Message{ID: "event.no-reply"}}}, "", ""},
		// A renewing lock whose lease has ended says so without asking.
		{"a release that sent nothing", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), {Client: "A", Kind: history.EvReleased, Call: 50 * ms, At: 51 * ms, Err: "release K: locklab: lock not held"}}, "", ""},
		{"a hold that met a fault before", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), {Client: "A", Kind: history.EvCommand, At: 20 * ms, Err: "BUSY"}, command("A", 50*ms), {Client: "A", Kind: history.EvReleased, Call: 50 * ms, At: 51 * ms, Err: "release K: locklab: lock not held"}}, "", ""},
		{"a release failed within the TTL", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), {Client: "A", Kind: history.EvReleased, Call: 50 * ms, At: 51 * ms, Err: "i/o timeout"}}, "", ""},

		// Fencing tokens grow with the grants: a grant that returned
		// before another's hold ended took the lock first, and its
		// token is the smaller.
		{"tokens in order", liveOpts, []history.Event{fenced(grant("A", 0, ms, 100*ms), 1), fenced(grant("B", 140*ms, 150*ms, 100*ms), 2)}, "", ""},
		{"a later grant's smaller token", liveOpts, []history.Event{fenced(grant("A", 0, ms, 100*ms), 5), fenced(grant("B", 140*ms, 150*ms, 100*ms), 3)},
			history.FenceOrder, "B was granted fencing token 3, not above the 5 of A, which took the lock before it (A's grant returned before B's hold ended): a resource that keeps the highest token takes A's late writes after B's"},
		{"the same token twice", liveOpts, []history.Event{fenced(grant("A", 0, ms, 100*ms), 4), fenced(grant("A", 140*ms, 150*ms, 100*ms), 4)},
			history.FenceOrder, "A was granted fencing token 4, not above the 4 of A, which took the lock before it (A's grant returned before A's hold ended): a resource that keeps the highest token takes A's late writes after A's"},
		// A stalled inside its acquire past its TTL: its grant returned
		// after B's, within B's hold, with a larger token (drawn after
		// B's): it took the lock first, as its return within B's hold
		// shows.
		{"a stalled acquire's larger token", liveOpts, []history.Event{fenced(grant("B", 110*ms, 111*ms, 100*ms), 1), fenced(grant("A", 0, 150*ms, 100*ms), 2)},
			history.FenceOrder, "B was granted fencing token 1, not above the 2 of A, which took the lock before it (A's grant returned before B's hold ended): a resource that keeps the highest token takes A's late writes after B's"},
		// A's acquire waited until B's hold was over: it may have taken
		// the lock after B, and its larger token proves nothing.
		{"a grant that returned after the other's hold", liveOpts, []history.Event{fenced(grant("B", 110*ms, 111*ms, 100*ms), 1), fenced(grant("A", 0, 215*ms, 100*ms), 2)}, "", ""},
		{"no token", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), grant("B", 140*ms, 150*ms, 100*ms)}, "", ""},
		{"readers' tokens are not compared", liveOpts, []history.Event{fenced(moded("A", 1, history.Shared, 0, 0, ms, 100*ms), 5), fenced(moded("B", 1, history.Shared, 0, 140*ms, 150*ms, 100*ms), 3)}, "", ""},

		// (b) one inside.
		{"inside without a hold", liveOpts, []history.Event{enter("A", 2*ms), enter("B", 3*ms)}, "", ""},
		{"inside with valid holds", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), enter("A", 2*ms), {Client: "B", Kind: history.EvAcquired, Call: 10 * ms, At: 11 * ms, TTL: 100 * ms, Mode: history.Shared}, enter("B", 12*ms)},
			history.OneHolder, "B was granted a read lock while A still held the write lock within its TTL"},
		{"readers inside together", liveOpts, []history.Event{moded("A", 1, history.Shared, 0, 0, ms, 100*ms), enter("A", 2*ms), moded("B", 1, history.Shared, 0, 10*ms, 11*ms, 100*ms), enter("B", 12*ms)}, "", ""},
		{"an overrun", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), enter("A", 2*ms), grant("B", 110*ms, 111*ms, 100*ms), enter("B", 112*ms)}, "", ""},
		{"an overrun of a fenced lock", judge.Options{Fenced: true}, []history.Event{grant("A", 0, ms, 100*ms), enter("A", 2*ms), grant("B", 110*ms, 111*ms, 100*ms), enter("B", 112*ms)},
			history.OneInside, "B entered while A was inside"},
		{"an overrun of a leased lock", judge.Options{Leased: true}, []history.Event{grant("A", 0, ms, 100*ms), enter("A", 2*ms), grant("B", 110*ms, 111*ms, 100*ms), enter("B", 112*ms)},
			history.OneInside, "B entered while A was inside"},
		// A leased lock's holders hold until they leave, in their modes.
		{"readers of a leased lock overrun together", judge.Options{Leased: true}, []history.Event{moded("A", 1, history.Shared, 0, 0, ms, 100*ms), enter("A", 2*ms), moded("B", 1, history.Shared, 0, 110*ms, 111*ms, 100*ms), enter("B", 112*ms)}, "", ""},
		{"a writer enters while a leased reader overruns", judge.Options{Leased: true}, []history.Event{moded("A", 1, history.Shared, 0, 0, ms, 100*ms), enter("A", 2*ms), moded("B", 1, history.Exclusive, 0, 110*ms, 111*ms, 100*ms), enter("B", 112*ms)},
			history.OneInside, "B entered while A was inside"},
		{"a leased semaphore's permits overrun within its number", judge.Options{Leased: true, Permits: 2}, []history.Event{moded("A", 1, history.Permit, 1, 0, ms, 100*ms), enter("A", 2*ms), moded("B", 1, history.Permit, 1, 110*ms, 111*ms, 100*ms), enter("B", 112*ms)}, "", ""},
		{"a leased semaphore's permits overrun past its number", judge.Options{Leased: true, Permits: 2}, []history.Event{moded("A", 1, history.Permit, 1, 0, ms, 100*ms), enter("A", 2*ms), moded("B", 1, history.Permit, 1, 110*ms, 111*ms, 100*ms), enter("B", 112*ms), moded("C", 1, history.Permit, 1, 120*ms, 121*ms, 100*ms), enter("C", 122*ms)},
			history.OneInside, "C entered while A, B were inside"},
		{"a leased holder left before the next entered", judge.Options{Leased: true}, []history.Event{grant("A", 0, ms, 100*ms), enter("A", 2*ms), leave("A", 95*ms), grant("B", 110*ms, 111*ms, 100*ms), enter("B", 112*ms)}, "", ""},
		{"inside at once, valid", liveOpts, []history.Event{grant("A", 0, ms, 100*ms), enter("A", 2*ms), release("A", 3*ms, 4*ms), grant("B", 5*ms, 6*ms, 100*ms), enter("B", 7*ms)}, "", ""},

		// (c) liveness.
		{"stuck past the TTL", liveOpts, cat([]history.Event{grant("A", 0, ms, 100*ms)}, tries("B", 10*ms, 20)),
			history.Unfreed, "B was refused 3 times in a row, each attempt within 5ms, although the last hold in its way, A's, had ended 79ms before"},
		{"refused inside the slack", liveOpts, cat([]history.Event{grant("A", 0, ms, 100*ms)}, tries("B", 10*ms, 14)), "", ""},
		{"slow refusals", liveOpts, cat([]history.Event{grant("A", 0, ms, 100*ms)}, []history.Event{refused("B", 200*ms, 210*ms), refused("B", 220*ms, 230*ms), refused("B", 240*ms, 250*ms)}), "", ""},
		{"refused twice only", liveOpts, cat([]history.Event{grant("A", 0, ms, 100*ms)}, tries("B", 200*ms, 2)), "", ""},
		{"refused a free lock", liveOpts, tries("B", 10*ms, 3),
			history.FreeRefused, "B was refused 3 times in a row, each attempt within 5ms, with no hold in its way"},
		{"released late", liveOpts, cat([]history.Event{grant("A", 0, ms, 100*ms), release("A", 50*ms, 51*ms)}, tries("B", 60*ms, 4)), "", ""},
		{"released", liveOpts, cat([]history.Event{grant("A", 0, ms, 100*ms), release("A", 50*ms, 51*ms)}, tries("B", 110*ms, 3)),
			history.Unfreed, "B was refused 3 times in a row, each attempt within 5ms, although the last hold in its way, A's, had ended 79ms before"},
		{"refreshed", liveOpts, cat([]history.Event{grant("A", 0, ms, 100*ms), refresh("A", 90*ms, 91*ms, 100*ms)}, tries("B", 160*ms, 6)), "", ""},
		{"a reader may read under a reader", liveOpts, cat([]history.Event{moded("A", 1, history.Shared, 0, 0, ms, time.Hour)}, []history.Event{{Client: "B", Kind: history.EvNotAcquired, Mode: history.Shared, Call: 5 * ms, At: 6 * ms}, {Client: "B", Kind: history.EvNotAcquired, Mode: history.Shared, Call: 7 * ms, At: 8 * ms}, {Client: "B", Kind: history.EvNotAcquired, Mode: history.Shared, Call: 9 * ms, At: 10 * ms}}),
			history.FreeRefused, "B was refused 3 times in a row, each attempt within 5ms, with no hold in its way"},
		// A lock that lets waiting writers in first keeps readers out
		// for its writer intent after a write attempt it refused, until
		// that writer gets in.
		{"a reader behind a writer's intent", intentOpts, cat(wroteRefused, readTries(120*ms, 4)), "", ""},
		{"a reader behind the intent of a writer that got in", intentOpts, cat(wroteRefused, []history.Event{moded("W", 2, history.Write, 0, 20*ms, 21*ms, 30*ms), {Client: "W", Kind: history.EvReleased, Hold: 2, Call: 40 * ms, At: 41 * ms}}, readTries(120*ms, 4)),
			history.Unfreed, "R was refused 3 times in a row, each attempt within 5ms, although the last hold in its way, W's, had ended 99ms before"},
		// A write attempt that gave up may register its intent once
		// its command, held on the way, runs (rwlua, explored: a write
		// attempt's script ran 100ms after its call had failed, and the
		// readers waited out its intent from then).
		{"a reader behind the intent of a write attempt that ran late", intentOpts, cat(lateWrite, []history.Event{command("W", 100*ms)}, readTries(520*ms, 4)), "", ""},
		{"a reader past the intent of a write attempt that ran late", intentOpts, cat(lateWrite, []history.Event{command("W", 100*ms)}, readTries(610*ms, 4)),
			history.Unfreed, "R was refused 3 times in a row, each attempt within 5ms, although the last hold in its way, W's, had ended 500ms before"},
		{"a reader past the intent of a write attempt that gave up", intentOpts, cat(lateWrite, readTries(520*ms, 4)),
			history.Unfreed, "R was refused 3 times in a row, each attempt within 5ms, although the last hold in its way, W's, had ended 499ms before"},
		{"a writer waits on a reader", liveOpts, cat([]history.Event{moded("A", 1, history.Shared, 0, 0, ms, time.Hour)}, tries("B", 10*ms, 20)), "", ""},
		{"a permit left", judge.Options{Permits: 2, Slack: 50 * ms, Quick: 5 * ms}, []history.Event{moded("A", 1, history.Permit, 1, 0, ms, time.Hour), {Client: "B", Kind: history.EvNotAcquired, Mode: history.Permit, Permits: 1, Call: 5 * ms, At: 6 * ms}, {Client: "B", Kind: history.EvNotAcquired, Mode: history.Permit, Permits: 1, Call: 7 * ms, At: 8 * ms}, {Client: "B", Kind: history.EvNotAcquired, Mode: history.Permit, Permits: 1, Call: 9 * ms, At: 10 * ms}},
			history.FreeRefused, "B was refused 3 times in a row, each attempt within 5ms, with no hold in its way"},
		{"no permit left", judge.Options{Permits: 2, Slack: 50 * ms, Quick: 5 * ms}, []history.Event{moded("A", 1, history.Permit, 2, 0, ms, time.Hour), {Client: "B", Kind: history.EvNotAcquired, Mode: history.Permit, Permits: 1, Call: 5 * ms, At: 6 * ms}, {Client: "B", Kind: history.EvNotAcquired, Mode: history.Permit, Permits: 1, Call: 7 * ms, At: 8 * ms}, {Client: "B", Kind: history.EvNotAcquired, Mode: history.Permit, Permits: 1, Call: 9 * ms, At: 10 * ms}}, "", ""},

		// Two rivals refused at once, alone at a free lock: whichever
		// ran first should have got it.
		{"rivals both refused", liveOpts, []history.Event{refused("A", 10*ms, 13*ms), refused("B", 11*ms, 14*ms)},
			history.FreeRefused, "A and B were both refused, their attempts at once, each within 5ms, with no hold in their way and no other call beside them: whichever ran first should have got the lock"},
		{"rivals for all the permits", judge.Options{Permits: 2, Slack: 50 * ms, Quick: 5 * ms}, []history.Event{
			{Client: "A", Kind: history.EvNotAcquired, Mode: history.Permit, Permits: 2, Call: 10 * ms, At: 13 * ms},
			{Client: "B", Kind: history.EvNotAcquired, Mode: history.Permit, Permits: 2, Call: 11 * ms, At: 14 * ms}},
			history.FreeRefused, "A and B were both refused, their attempts at once, each within 5ms, with no hold in their way and no other call beside them: whichever ran first should have got the lock"},
		{"rivals one after the other", liveOpts, []history.Event{refused("A", 10*ms, 11*ms), refused("B", 12*ms, 13*ms)}, "", ""},
		{"rivals under a hold", liveOpts, []history.Event{grant("C", 0, ms, 100*ms), refused("A", 10*ms, 13*ms), refused("B", 11*ms, 14*ms)}, "", ""},
		{"rivals just after a release", liveOpts, []history.Event{grant("C", 0, ms, 100*ms), release("C", 5*ms, 6*ms), refused("A", 10*ms, 13*ms), refused("B", 11*ms, 14*ms)}, "", ""},
		{"rivals for permits a hold leaves no room for", judge.Options{Permits: 2, Slack: 50 * ms, Quick: 5 * ms}, []history.Event{
			moded("C", 1, history.Permit, 1, 0, ms, time.Hour),
			{Client: "A", Kind: history.EvNotAcquired, Mode: history.Permit, Permits: 2, Call: 10 * ms, At: 13 * ms},
			{Client: "B", Kind: history.EvNotAcquired, Mode: history.Permit, Permits: 2, Call: 11 * ms, At: 14 * ms}}, "", ""},
		{"slow rivals", liveOpts, []history.Event{refused("A", 10*ms, 23*ms), refused("B", 11*ms, 24*ms)}, "", ""},
		{"three rivals", liveOpts, []history.Event{refused("A", 10*ms, 13*ms), refused("B", 11*ms, 14*ms), refused("C", 12*ms, 14*ms)}, "", ""},
		{"rivals beside a grant", liveOpts, []history.Event{refused("A", 10*ms, 13*ms), refused("B", 11*ms, 14*ms), grant("C", 12*ms, 15*ms, 100*ms)}, "", ""},
		{"a rival met an error", liveOpts, []history.Event{{Client: "A", Kind: history.EvCommand, At: 11 * ms, Err: "LOADING"}, refused("A", 10*ms, 13*ms), refused("B", 11*ms, 14*ms)}, "", ""},
		{"a reader beside a refused writer", intentOpts, []history.Event{
			{Client: "W", Kind: history.EvNotAcquired, Mode: history.Write, Call: 10 * ms, At: 13 * ms, TTL: 30 * ms},
			{Client: "R", Kind: history.EvNotAcquired, Mode: history.Shared, Call: 11 * ms, At: 14 * ms}}, "", ""},

		// (d) unknown outcomes stand in the way for liveness.
		{"after a lost reply, until its TTL", liveOpts, cat([]history.Event{lost("A", 0, ms, 100*ms)}, tries("B", 10*ms, 14)), "", ""},
		{"after a lost reply's TTL", liveOpts, cat([]history.Event{lost("A", 0, ms, 100*ms)}, tries("B", 10*ms, 20)),
			history.Unfreed, "B was refused 3 times in a row, each attempt within 5ms, although the last hold in its way, A's, had ended 79ms before"},
		{"a release that failed", liveOpts, cat([]history.Event{grant("A", 0, ms, 100*ms), {Client: "A", Kind: history.EvReleased, Call: 10 * ms, At: 11 * ms, Err: "i/o timeout"}}, tries("B", 20*ms, 12)), "", ""},
		{"a crash inside an acquire the history does not give", liveOpts, cat([]history.Event{command("A", 0), crash("A", ms)}, tries("B", 10*ms, 40)), "", ""},
		{"a crash inside an acquire", liveOpts, cat([]history.Event{command("A", 0), {Client: "A", Kind: history.EvCrash, At: ms, Call: ms / 2, TTL: 100 * ms}}, tries("B", 10*ms, 20)),
			history.Unfreed, "B was refused 3 times in a row, each attempt within 5ms, although the last hold in its way, A's, had ended 79ms before"},
		// A command sent between the holder's calls may be a renewal of
		// its own (a watchdog): its hold may stand a TTL past it, but
		// not once its holder has begun to release it.
		{"renewed between its calls", liveOpts, cat([]history.Event{grant("A", 0, ms, 100*ms), command("A", 60*ms), command("A", 120*ms)}, tries("B", 10*ms, 22)), "", ""},
		{"renewed after its release", liveOpts, cat([]history.Event{grant("A", 0, ms, 100*ms), {Client: "A", Kind: history.EvReleased, Call: 10 * ms, At: 11 * ms, Err: "i/o timeout"}, command("A", 60*ms), command("A", 120*ms)}, tries("B", 10*ms, 22)),
			history.Unfreed, "B was refused 3 times in a row, each attempt within 5ms, although the last hold in its way, A's, had ended 79ms before"},
		// An acquire that gave up may have sent a command that ran
		// later, recorded when its reply came.
		{"a late command of an acquire that gave up", liveOpts, cat([]history.Event{lost("A", 0, ms, 100*ms), command("A", 60*ms)}, tries("B", 10*ms, 20)), "", ""},
		// A refusal that took its TTL or longer may have left what it
		// wrote (redsync, explored: its SET waited at the gate past its
		// validity, and its undo found its caller's deadline past).
		{"after a refusal slower than its TTL, until its TTL", liveOpts, cat([]history.Event{refused("E", ms, 151*ms)}, tries("B", 160*ms, 14)), "", ""},
		{"after a refusal slower than its TTL, past its TTL", liveOpts, cat([]history.Event{refused("E", ms, 151*ms)}, tries("B", 160*ms, 20)),
			history.Unfreed, "B was refused 3 times in a row, each attempt within 5ms, although the last hold in its way, E's, had ended 79ms before"},
		{"after a quick refusal", liveOpts, cat([]history.Event{refused("E", 0, ms)}, tries("B", 160*ms, 3)),
			history.FreeRefused, "B was refused 3 times in a row, each attempt within 5ms, with no hold in its way"},
		{"a crash inside an acquire, within its TTL", liveOpts, cat([]history.Event{command("A", 0), {Client: "A", Kind: history.EvCrash, At: ms, Call: ms / 2, TTL: 100 * ms}}, tries("B", 10*ms, 14)), "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, found := judge.Free(tt.events, tt.opts)
			if tt.rule == "" {
				assert.False(t, found, "%s", d.Reason)
				return
			}
			require.True(t, found)
			assert.Equal(t, judge.Breaks, d.Verdict)
			assert.Equal(t, tt.rule, d.Rule)
			assert.Equal(t, tt.found, d.Reason.String())
			assert.Less(t, d.Event, len(tt.events))
		})
	}
}

// TestFreeRecorded judges histories recorded on a real Redis without
// their claims, and again once edited so that they no longer show the
// break.
func TestFreeRecorded(t *testing.T) {
	for _, tt := range []struct {
		file string
		opts judge.Options
		rule history.Rule
		edit func([]history.Event)
	}{
		// B is refused for 560ms after A, which crashed holding a 60ms
		// lock; with a TTL of 10,000s, B's refusals are right.
		{"setnxdel.crash-recovery.json", judge.Options{Slack: 100 * time.Millisecond, Attempts: 3}, history.Unfreed, editTTL("A", 10000*time.Second)},
		// Two clients take a lock at once; once A's grant is a lost reply,
		// only B holds.
		{"delsetnxcheck.exclusion.json", judge.Options{}, history.OneHolder, editLost("A")},
		{"getset.clock-skew.json", judge.Options{}, history.OneHolder, editTTL("A", time.Millisecond)},
		// A works past its TTL: only a lock that promises a lease or a
		// fence is broken by that; not once A leaves before B enters.
		{"luatoken.holder-overrun.json", judge.Options{Leased: true}, history.OneInside, leaveFirst("A")},
		// A crashed holding a lock that never expires; had A lived on,
		// sending commands between its calls (a watchdog's renewals,
		// which the history cannot read), its hold might stand.
		{"setnxdel.crash-recovery.json", judge.Options{Slack: 100 * time.Millisecond, Attempts: 3}, history.Unfreed, editRenewing("A", "B")},
		// Explored: B's late second release of its first hold took K:1
		// of its second, whose refresh then finds nothing 56ms before
		// its TTL ends; not once B asks for a TTL of 1ms.
		{"release-second-key-unchecked.explore.json", judge.Options{}, history.FullLease, editTTL("B", time.Millisecond)},
		// A died inside its acquire, whose TTL B then waits out.
		{"setnxexpire.crash-mid-acquire.json", judge.Options{Slack: 100 * time.Millisecond}, history.Unfreed, editCrashTTL("A", 10000*time.Second)},
		// A's late release deleted K while B held it; not once B's TTL
		// had run out.
		{"setnxpx.safe-release.json", judge.Options{}, history.Untouched, editTTL("B", time.Millisecond)},
		// A's late refresh returned success while B held: two clients
		// were told that they hold the lock (it also pushed B's expiry
		// back, which the reads show, later); not once B's TTL had run
		// out.
		{"refresh-pexpire.safe-refresh.json", judge.Options{}, history.OneHolder, editTTL("B", time.Millisecond)},
		// The key of a 5s lock is read with 2.5s left; not with 5s.
		{"ttl-halved.lease-kept.json", judge.Options{}, history.FullLease, editPTTL(5000)},
		// A lock that refuses a free lock; not once A's first attempt
		// may have taken it.
		{"refuses-without-replica.release-frees.json", judge.Options{}, history.FreeRefused, editFirstLost("A")},
		// Explored: A and B each ask for both permits of a free
		// semaphore, take one each, are both refused and give them
		// back; not once A's attempt may have taken them (its reply
		// lost).
		{"semaphore-acquire-n-gives-back.explore.json", judge.Options{Permits: 2, Quick: 30 * time.Millisecond}, history.FreeRefused, editFirstLost("A")},
		// Explored: B's try sent its SET at 36.9ms and its INCR, held
		// at the scheduler's gate, at 103.4ms; A took the lock in
		// between, once B's key had expired, and drew token 2, B then
		// 3. B's grant returned while A held: B took the lock first,
		// with the larger token. Not once the tokens follow the
		// acquires' calls.
		{"fence-incr-after-set.explore.json", judge.Options{}, history.FenceOrder, editFencesByCall},
		// The kinds, by mode and permits (see TestEdited).
		{"rwlua.reader-overrun.json", judge.Options{Leased: true}, history.OneInside, leaveFirst("A")},
		{"refcountrwlock.reader-double-release.json", judge.Options{}, history.OneHolder, editTTL("B", time.Millisecond)},
		{"refcountrwlock.reader-safe-release.json", judge.Options{}, history.OneHolder, editTTL("W", time.Millisecond)},
		{"refcountrwlock.reader-lease-independence.json", judge.Options{Slack: 100 * time.Millisecond}, history.Unfreed, editTTL("D", 10000*time.Second)},
		{"countersemaphore.permit-release-exact.json", judge.Options{Permits: 2}, history.OneHolder, editTTL("H1", time.Millisecond)},
		{"zsetsemaphore.permit-faults.json", judge.Options{Permits: 2, Slack: 100 * time.Millisecond}, history.Unfreed, editTTL("B", 10000*time.Second)},
		{"zsetsemaphore.permit-safe-refresh.json", judge.Options{Permits: 2, Slack: 100 * time.Millisecond}, history.Unfreed, editTTL("A", 10000*time.Second)},
		{"rw-refresh-re-adds.reader-safe-refresh.json", judge.Options{}, history.OneHolder, editRefreshFailed("A")},
		{"semaphore-refresh-re-adds.permit-safe-refresh.json", judge.Options{Permits: 2}, history.OneHolder, editRefreshFailed("A")},
	} {
		t.Run(tt.file, func(t *testing.T) {
			tl := readRecorded(t, tt.file).Timeline
			d, found := judge.Free(tl, tt.opts)
			require.True(t, found)
			assert.Equal(t, tt.rule, d.Rule, "%s", d.Reason)
			tt.edit(tl)
			d, found = judge.Free(tl, tt.opts)
			assert.False(t, found, "%s", d.Reason)
		})
	}
	d, found := judge.Free(readRecorded(t, "luatoken.holder-overrun.json").Timeline, judge.Options{})
	assert.False(t, found, "an overrun is no finding about a lock that promises no fence: %s", d.Reason)
}

// TestFreeRevivedNumbering: a correct lock's explored history (under
// testdata/holds, which TestRecorded leaves alone: it holds) in which a
// refresh revived a lapsed hold, and later holds came: Free finds
// nothing. (Free's rule on refreshes once read the holds by their
// grants' count, which a revived hold shifts, and blamed the wrong ones.)
func TestFreeRevivedNumbering(t *testing.T) {
	tl := readRecorded(t, "holds/luatoken.explore-revived.json").Timeline
	d, found := judge.Free(tl, judge.Options{Slack: time.Hour})
	assert.False(t, found, "%s", d.Reason)
}

// TestFreeLateRefusal: redsync's explored history, in which E's second
// try wrote K but its reply was held back past its deadline, and redsync
// said "not acquired": F, refused while E's key stood, proves nothing.
// Without the note that the reply was held back, and with the refusal
// made quick (it took longer than its TTL, which alone leaves its
// outcome unknown), the refusal is taken at its word, and F's refusals
// break unfreed.
func TestFreeLateRefusal(t *testing.T) {
	tl := readRecorded(t, "holds/redsync.explore-late-refusal.json").Timeline
	opts := judge.Options{Slack: 60 * time.Millisecond, Attempts: 3}
	d, found := judge.Free(tl, opts)
	assert.False(t, found, "%s", d.Reason)
	tl = slices.DeleteFunc(tl, func(e history.Event) bool { return e.Msg != nil && e.Msg.ID == "fault.late" })
	d, found = judge.Free(tl, opts)
	assert.False(t, found, "a refusal that took longer than its TTL: %s", d.Reason)
	slow := 0
	for i, e := range tl {
		if e.Kind == history.EvNotAcquired && e.TTL > 0 && e.At-e.Call >= e.TTL {
			tl[i].Call = e.At - time.Millisecond
			slow++
		}
	}
	require.Positive(t, slow, "the late refusal took longer than its TTL")
	d, found = judge.Free(tl, opts)
	require.True(t, found)
	assert.Equal(t, history.Unfreed, d.Rule, "%s", d.Reason)
}

var (
	keyK     = history.Arg{Kind: history.ArgKey, Text: "K"}
	keyQueue = history.Arg{Kind: history.ArgLockKey, Text: "K:queue"}
)

// token is a value c alone wrote; text is any other.
func token(c string) *history.Arg {
	return &history.Arg{Kind: history.ArgToken, Text: "t-" + c, Client: c}
}
func text(s string) *history.Arg { return &history.Arg{Kind: history.ArgText, Text: s} }

// read is what the suite read at at: K's PTTL in ms, and the keys.
func read(at time.Duration, pttl int64, keys ...history.KeyValue) history.Event {
	return history.Event{Kind: history.EvRead, At: at, Read: &history.Read{Keys: keys, PTTL: pttl}}
}

func at(key history.Arg, v *history.Arg) history.KeyValue {
	return history.KeyValue{Key: key, Value: v}
}

// readers is a hash of readers with an entry of each of cs.
func readers(cs ...string) history.KeyValue {
	kv := history.KeyValue{Key: history.Arg{Kind: history.ArgLockKey, Text: "K:readers"}, Value: text("dump:1")}
	for _, c := range cs {
		kv.Entries = append(kv.Entries, *token(c))
	}
	return kv
}

// setLocked is c's command writing the value every client writes.
func setLocked(c string, t time.Duration) history.Event {
	return history.Event{Client: c, Kind: history.EvCommand, At: t, Command: []history.Arg{{Kind: history.ArgText, Text: "SET"}, keyK, *text("locked")}}
}

// callOf is a call of c that returned at at with err, after a command.
func callOf(kind history.EventKind, c string, t time.Duration, err string) []history.Event {
	return []history.Event{command(c, t), {Client: c, Kind: kind, Call: t - ms, At: t + ms, Err: err, TTL: 100 * ms}}
}

// TestClaimsOnReads: a scenario's claim that a rule on the reads is
// broken stands when the rule finds it, and only then.
func TestClaimsOnReads(t *testing.T) {
	a := grant("A", 0, ms, 100*ms)
	changed := cat([]history.Event{a, read(2*ms, 99, at(keyK, token("A")))}, callOf(history.EvReleased, "B", 10*ms, ""), []history.Event{read(20*ms, -2, at(keyK, nil))})
	kept := cat([]history.Event{a, read(2*ms, 99, at(keyK, token("A")))}, callOf(history.EvReleased, "B", 10*ms, ""), []history.Event{read(20*ms, 90, at(keyK, token("A")))})
	for _, rule := range []history.Rule{history.Untouched, history.GrantOwned, history.FullLease} {
		_, err := judge.Mutex(append(slices.Clone(kept), claim(rule)))
		assert.Error(t, err, "%s claimed on a history that keeps it", rule)
	}
	d, err := judge.Mutex(append(changed, claim(history.Untouched)))
	require.NoError(t, err)
	assert.Equal(t, judge.Breaks, d.Verdict)
}

// TestBookkeepingClaim: a scenario that charges a refused attempt with
// overwriting the holder's lock, when the reads show that the attempt
// wrote only the lock's bookkeeping (its waiting mark at K:queue, after
// an EVALSHA that fell back to EVAL and refused), gets no verdict; when
// they show the holder's value replaced, the claim stands.
func TestBookkeepingClaim(t *testing.T) {
	a := grant("A", 0, ms, 100*ms)
	overwrote := judge.MsgOverwrote.New("B", "acquire", "A")
	charge := history.Event{Kind: history.EvCheck, Check: &history.Check{Rule: history.Observed, Broken: true, Reason: &overwrote}}
	attempt := []history.Event{
		{Client: "B", Kind: history.EvCommand, At: 9 * ms, Command: []history.Arg{{Kind: history.ArgText, Text: "EVALSHA"}, {Kind: history.ArgDigest, Text: "d"}, keyK, keyQueue}, Err: "NOSCRIPT"},
		{Client: "B", Kind: history.EvCommand, At: 10 * ms, Command: []history.Arg{{Kind: history.ArgText, Text: "EVAL"}, {Kind: history.ArgDigest, Text: "d"}, keyK, keyQueue}},
		{Client: "B", Kind: history.EvNotAcquired, Call: 8 * ms, At: 11 * ms},
	}
	before := read(2*ms, 99, at(keyK, token("A")), at(keyQueue, nil))
	marked := cat([]history.Event{a, before}, attempt, []history.Event{read(20*ms, 90, at(keyK, token("A")), at(keyQueue, token("B"))), charge})
	_, err := judge.Mutex(marked)
	assert.Error(t, err, "a waiting mark is no change of A's lock")
	_, found := judge.Free(marked[:len(marked)-1], liveOpts)
	assert.False(t, found)

	taken := cat([]history.Event{a, before}, attempt, []history.Event{read(20*ms, 90, at(keyK, token("B")), at(keyQueue, nil)), charge})
	d, err := judge.Mutex(taken)
	require.NoError(t, err)
	assert.Equal(t, judge.Breaks, d.Verdict)
}

// TestFreeReads: the rules on what the suite read of the lock's keys,
// each beside a history that comes close and keeps it.
func TestFreeReads(t *testing.T) {
	a := grant("A", 0, ms, 100*ms)
	short := grant("A", 0, ms, 5*ms)
	for _, tt := range []struct {
		name   string
		events []history.Event
		rule   history.Rule
		found  string
	}{
		{"a release removed a valid hold", cat([]history.Event{a, read(2*ms, 99, at(keyK, token("A")))}, callOf(history.EvReleased, "B", 10*ms, ""), []history.Event{read(20*ms, -2, at(keyK, nil))}),
			history.Untouched, "B's release deleted K, A's lock"},
		{"a release removed an expired hold", cat([]history.Event{short, read(2*ms, 3, at(keyK, token("A")))}, callOf(history.EvReleased, "B", 10*ms, ""), []history.Event{read(20*ms, -2, at(keyK, nil))}), "", ""},
		{"the holder's own release", cat([]history.Event{a, read(2*ms, 99, at(keyK, token("A")))}, callOf(history.EvReleased, "A", 10*ms, ""), []history.Event{read(20*ms, -2, at(keyK, nil))}), "", ""},
		{"a refused attempt overwrote a valid hold", cat([]history.Event{a, read(2*ms, 99, at(keyK, token("A")))}, callOf(history.EvNotAcquired, "B", 10*ms, ""), []history.Event{read(20*ms, 99, at(keyK, token("B")))}),
			history.Untouched, "B's acquire overwrote K, A's lock, with another value"},
		// Of the clients that sent commands between the reads, the last
		// that named the key is named.
		{"the last to touch the key is named", cat([]history.Event{a, read(2*ms, 99, at(keyK, token("A")))},
			[]history.Event{{Client: "C", Kind: history.EvCommand, At: 4 * ms, Command: []history.Arg{{Kind: history.ArgText, Text: "SET"}, keyK}}, {Client: "C", Kind: history.EvNotAcquired, Call: 3 * ms, At: 5 * ms}},
			callOf(history.EvReleased, "B", 10*ms, ""), []history.Event{read(20*ms, -2, at(keyK, nil))}),
			history.Untouched, "C's acquire deleted K, A's lock"},
		// Every client writes the same value: it is the valid holder's
		// whose grant sent it; A's refresh, after its own hold lapsed,
		// is no owner of it. (Its reply lost: one that came would tell
		// A that it holds, a second holder found before the read.)
		{"a late refresh pushed a shared value's expiry", []history.Event{
			setLocked("A", 0), grant("A", 0, ms, 60*ms),
			setLocked("B", 81*ms), grant("B", 80*ms, 82*ms, 5*time.Second),
			read(83*ms, 5000, at(keyK, text("locked"))),
			setLocked("A", 84*ms), {Client: "A", Kind: history.EvRefreshed, Call: 18 * ms, At: 85 * ms, TTL: 15 * time.Second, Err: "i/o timeout"},
			read(86*ms, 15000, at(keyK, text("locked"))),
		}, history.Untouched, "A's refresh pushed the expiry of K, B's lock, back from 5s to 15s"},
		// A refresh that returns with success once its hold has lapsed
		// says its client holds the lock again, from its return: beside
		// B's valid hold, a second holder; alone, nobody's.
		{"a late refresh held beside another", []history.Event{
			grant("A", 0, ms, 60*ms), grant("B", 80*ms, 82*ms, 5*time.Second),
			command("A", 84*ms), refresh("A", 18*ms, 85*ms, 15*time.Second),
		}, history.OneHolder, "A's refresh returned with success once its hold had lapsed, and so said that A held the lock again while B held it within its TTL"},
		{"a late refresh held alone", []history.Event{
			grant("A", 0, ms, 60*ms), command("A", 84*ms), refresh("A", 18*ms, 85*ms, 15*time.Second), grant("B", 15030*ms, 15031*ms, time.Second),
		}, "", ""},
		{"a late refresh, then another granted", []history.Event{
			grant("A", 0, ms, 60*ms), command("A", 84*ms), refresh("A", 18*ms, 85*ms, 15*time.Second), grant("B", 90*ms, 91*ms, time.Second),
		}, history.OneHolder, "B was granted the lock while A still held it within its TTL"},
		// A reader's hold is its entry among the lock's readers.
		{"a release removed a reader's entry", cat([]history.Event{moded("R", 1, history.Shared, 0, 0, ms, 100*ms), read(2*ms, 99, readers("R", "S"))}, callOf(history.EvReleased, "S", 10*ms, ""), []history.Event{read(20*ms, 90, history.KeyValue{Key: readers().Key})}),
			history.Untouched, "S's release removed R's entry from K:readers, one of the keys of the lock, while R held it"},
		{"a release removed its own entry", cat([]history.Event{moded("R", 1, history.Shared, 0, 0, ms, 100*ms), read(2*ms, 99, readers("R", "S"))}, callOf(history.EvReleased, "S", 10*ms, ""), []history.Event{read(20*ms, 90, readers("R"))}), "", ""},
		// A waiting mark is bookkeeping: a refused attempt may write it.
		{"a refused attempt wrote bookkeeping", cat([]history.Event{a, read(2*ms, 99, at(keyK, token("A")), at(keyQueue, text("1")))}, callOf(history.EvNotAcquired, "B", 10*ms, ""), []history.Event{read(20*ms, 90, at(keyK, token("A")), at(keyQueue, text("2")))}), "", ""},
		{"a refresh pushed a valid hold's expiry", cat([]history.Event{a, read(2*ms, 98, at(keyK, token("A")))}, callOf(history.EvRefreshed, "B", 10*ms, "not held"), []history.Event{read(20*ms, 199, at(keyK, token("A")))}),
			history.Untouched, "B's refresh pushed the expiry of K, A's lock, back from 100ms to 200ms"},
		{"a refresh removed a valid hold's expiry", cat([]history.Event{a, read(2*ms, 98, at(keyK, token("A")))}, callOf(history.EvRefreshed, "B", 10*ms, "not held"), []history.Event{read(20*ms, -1, at(keyK, token("A")))}),
			history.Untouched, "B's refresh removed the expiry of K, A's lock: should A die, the lock is never freed"},
		{"the holder's own refresh", cat([]history.Event{a, read(2*ms, 98, at(keyK, token("A")))}, callOf(history.EvRefreshed, "A", 10*ms, ""), []history.Event{read(20*ms, 95, at(keyK, token("A")))}), "", ""},
		{"a grant without the lock", []history.Event{short, grant("B", 40*ms, 50*ms, 100*ms), read(51*ms, -1, at(keyK, token("A")))},
			history.GrantOwned, "B was granted the lock, but the lock's keys held A's value and none of its own"},
		{"a grant with the lock", []history.Event{short, grant("B", 40*ms, 50*ms, 100*ms), read(51*ms, 99, at(keyK, token("B")))}, "", ""},
		{"a lease cut short", []history.Event{a, read(2*ms, 50, at(keyK, token("A")))},
			history.FullLease, "K, A's hold, expires 48ms before the end of the TTL A asked for"},
		{"a full lease", []history.Event{a, read(2*ms, 98, at(keyK, token("A")))}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, found := judge.Free(tt.events, liveOpts)
			if tt.rule == "" {
				assert.False(t, found, "%s", d.Reason)
				return
			}
			require.True(t, found)
			assert.Equal(t, tt.rule, d.Rule)
			assert.Equal(t, tt.found, d.Reason.String())
		})
	}
}

// editRenewing lets holder live on: its crash goes, and one command in
// three of waiter's becomes its own, sent between its calls.
func editRenewing(holder, waiter string) func([]history.Event) {
	return func(tl []history.Event) {
		n := 0
		for i, e := range tl {
			switch {
			case e.Client == holder && e.Kind == history.EvCrash:
				tl[i].Kind, tl[i].Client = history.EvNote, ""
			case e.Client == waiter && e.Kind == history.EvCommand:
				if n%3 == 0 {
					tl[i].Client = holder
				}
				n++
			}
		}
	}
}

// TestFreeLateIntent: rwlua's explored history (its commands cut to
// their names), in which C's write attempt gave up at 115ms while its
// script waited at the gate, ran at 217ms and registered C's intent for
// two seconds: B's and E's reads, refused until then, prove nothing.
// Counted from the attempt's return instead, they break unfreed.
func TestFreeLateIntent(t *testing.T) {
	tl := readRecorded(t, "holds/rwlua.explore-late-intent.json").Timeline
	opts := judge.Options{Slack: 60 * time.Millisecond, Quick: 30 * time.Millisecond, WriterIntent: 2 * time.Second, Late: 120 * time.Millisecond}
	d, found := judge.Free(tl, opts)
	assert.False(t, found, "%s", d.Reason)
	// Without C's late command, its intent counts from its return.
	late := slices.IndexFunc(tl, func(e history.Event) bool {
		return e.Client == "C" && e.Kind == history.EvCommand && e.At > 200*time.Millisecond && e.At < 220*time.Millisecond
	})
	require.Positive(t, late)
	tl = slices.Delete(tl, late, late+1)
	d, found = judge.Free(tl, opts)
	require.True(t, found)
	assert.Equal(t, history.Unfreed, d.Rule, "%s", d.Reason)
}

// TestFreeLeakedHold: rw-watchdog's explored history, in which A gave up
// its read hold after a refresh that timed out, without a release, and
// tried for the write lock: its watchdog renewed the read hold during
// those attempts, which the read hold kept out. Those renewals are A's
// commands inside its acquire calls; without them, the read hold ran
// out, and A's refusals break unfreed.
func TestFreeLeakedHold(t *testing.T) {
	tl := readRecorded(t, "holds/rw-watchdog.explore-leaked-hold.json").Timeline
	opts := judge.Options{Slack: 60 * time.Millisecond, Quick: 30 * time.Millisecond, WriterIntent: 2 * time.Second, Late: 120 * time.Millisecond}
	d, found := judge.Free(tl, opts)
	assert.False(t, found, "%s", d.Reason)
	tl = slices.DeleteFunc(tl, func(e history.Event) bool {
		return e.Client == "A" && e.Kind == history.EvCommand && e.At > 280*time.Millisecond
	})
	d, found = judge.Free(tl, opts)
	require.True(t, found)
	assert.Equal(t, history.Unfreed, d.Rule, "%s", d.Reason)
}

// TestFreeLateGrant: rwlua's explored history, in which F's write
// attempt, called at 0.6ms, took the lock while its reply was held back,
// and its command is recorded when the reply came (79.5ms): B's and C's
// write attempts, refused at 77ms and 79ms, met F's hold, whatever their
// first commands say. F's call, and A's, D's and E's, were under way
// beside them; without those clients, B and C are two rivals refused at
// a free lock.
func TestFreeLateGrant(t *testing.T) {
	tl := readRecorded(t, "holds/rwlua.explore-late-grant.json").Timeline
	opts := judge.Options{Slack: 60 * time.Millisecond, Quick: 30 * time.Millisecond, WriterIntent: 2 * time.Second, Late: 120 * time.Millisecond}
	d, found := judge.Free(tl, opts)
	assert.False(t, found, "%s", d.Reason)
	d, found = judge.Free(only(tl, "B", "C"), opts)
	require.True(t, found)
	assert.Equal(t, history.FreeRefused, d.Rule, "%s", d.Reason)
	assert.Contains(t, d.Reason.String(), "B and C were both refused")
}

// TestFreeRecordedLate: rw-writers-first's explored history, in which
// C's and A's read scripts ran first, then F's and B's write scripts,
// refused because of those readers; but C's and A's commands were
// recorded after F's and B's refusals (a command is recorded when its
// reply comes back, on a loaded machine later than another's). A's and
// C's calls were under way from 3ms: F and B were not alone. Taking
// every call to begin at its first recorded command instead, F and B
// look like two rivals refused at a free lock.
func TestFreeRecordedLate(t *testing.T) {
	tl := readRecorded(t, "holds/rw-writers-first.explore-recorded-late.json").Timeline
	opts := judge.Options{Slack: 60 * time.Millisecond, Quick: 30 * time.Millisecond, WriterIntent: 5 * time.Second, Late: 120 * time.Millisecond}
	d, found := judge.Free(tl, opts)
	assert.False(t, found, "%s", d.Reason)
	first := map[string]time.Duration{}
	for i, e := range tl {
		switch {
		case e.Kind == history.EvCommand:
			if _, ok := first[e.Client]; !ok {
				first[e.Client] = e.At
			}
		case e.Call > 0 && e.Client != "B" && e.Client != "F":
			if at, ok := first[e.Client]; ok {
				tl[i].Call = at
			}
			delete(first, e.Client)
		case e.Kind == history.EvAcquired || e.Kind == history.EvNotAcquired || e.Kind == history.EvReleased || e.Kind == history.EvRefreshed:
			delete(first, e.Client)
		}
	}
	d, found = judge.Free(tl, opts)
	require.True(t, found)
	assert.Contains(t, d.Reason.String(), "B and F were both refused", "%s", d.Reason)
}

// only is tl with the events of clients alone.
func only(tl []history.Event, clients ...string) []history.Event {
	return slices.DeleteFunc(slices.Clone(tl), func(e history.Event) bool {
		return e.Client != "" && !slices.Contains(clients, e.Client)
	})
}

// TestFreeGrantRecordedLate: rw-readers-first's explored history, in
// which A's write script ran first, and B's three attempts were refused
// because of it; A's command, recorded when its reply came back, comes
// 7ms after them. A's grant may stand from its call (2ms): B's refusals
// prove nothing. From its recorded command on, they would break
// free-refused.
func TestFreeGrantRecordedLate(t *testing.T) {
	tl := readRecorded(t, "holds/rw-readers-first.explore-recorded-late.json").Timeline
	opts := judge.Options{Slack: 60 * time.Millisecond, Quick: 30 * time.Millisecond, Late: 120 * time.Millisecond}
	d, found := judge.Free(tl, opts)
	assert.False(t, found, "%s", d.Reason)
	grant := slices.IndexFunc(tl, func(e history.Event) bool { return e.Client == "A" && e.Kind == history.EvAcquired })
	require.Positive(t, grant)
	tl[grant].Call = 20 * time.Millisecond
	d, found = judge.Free(tl, opts)
	require.True(t, found)
	assert.Equal(t, history.FreeRefused, d.Rule, "%s", d.Reason)
}

// TestFreeIntentAfterNextCall: rwlua's explored history (its commands
// cut to their names), in which A's write try, called at 1ms, gave up at
// 65ms while its script waited at the gate; A's next call, a read try,
// returned at 128ms, and only then, at 276ms, did the write script run
// and register A's intent for two seconds. F's reads, refused until
// 2,270ms, prove nothing. The script's command says which call sent it
// (history.Event.SentIn, set here by hand as the recorder now records
// it); without that, the judge bounds the write try's commands by A's
// next return, and F's refusals look like a lock stuck for 1.8s.
func TestFreeIntentAfterNextCall(t *testing.T) {
	tl := readRecorded(t, "holds/rwlua.explore-intent-after-next-call.json").Timeline
	opts := judge.Options{Slack: 60 * time.Millisecond, Quick: 30 * time.Millisecond, WriterIntent: 2 * time.Second, Late: 120 * time.Millisecond}
	d, found := judge.Free(tl, opts)
	assert.False(t, found, "%s", d.Reason)
	late := slices.IndexFunc(tl, func(e history.Event) bool { return e.SentIn > 0 })
	require.Positive(t, late)
	require.Equal(t, "A", tl[late].Client)
	tl[late].SentIn = 0
	d, found = judge.Free(tl, opts)
	require.True(t, found)
	assert.Equal(t, history.Unfreed, d.Rule, "%s", d.Reason)
	assert.Contains(t, d.Reason.String(), "F was refused")
}

// TestFreeRenewedInRelease: semaphore-watchdog's explored history (its
// commands cut to their names), in which A held two permits (hold 2),
// renewed by its watchdog every 40ms, and released hold 1, released
// already, again: that release paused 64ms before its command, and the
// renewal due meanwhile waited with it, then went at 262ms, inside the
// release call. A's release of hold 2 was dropped, and A's permits stood
// until 382ms; A's refusals until then prove nothing. A command sent
// during the release of another hold may renew this one; without the
// commands sent in that release, the permits end at 295ms, and A's
// refusals break unfreed.
func TestFreeRenewedInRelease(t *testing.T) {
	tl := readRecorded(t, "holds/semaphore-watchdog.explore-renewed-in-release.json").Timeline
	opts := judge.Options{Permits: 2, Slack: 60 * time.Millisecond, Quick: 30 * time.Millisecond, Late: 120 * time.Millisecond}
	d, found := judge.Free(tl, opts)
	assert.False(t, found, "%s", d.Reason)
	// The renewal, and the second release's own command after it, which
	// the judge cannot tell from a renewal of hold 2.
	n := len(tl)
	tl = slices.DeleteFunc(tl, func(e history.Event) bool {
		return e.Kind == history.EvCommand && e.At > 261*time.Millisecond && e.At < 262200*time.Microsecond
	})
	require.Equal(t, n-2, len(tl))
	d, found = judge.Free(tl, opts)
	require.True(t, found)
	assert.Equal(t, history.Unfreed, d.Rule, "%s", d.Reason)
}

// TestFreeRefreshedForLess: refresh-never-shortens's explored history
// (its commands cut to their names), in which D refreshed its hold for
// 240ms at 190ms, then for 120ms at 227ms, which leaves the key as it
// was (PEXPIRE's GT); D's release was dropped, and its key stood until
// about 430ms. C's refusals until then prove nothing. Taking the second
// refresh's end (347ms) for the key's, they break unfreed, as they do
// once the first refresh asks for 120ms too.
func TestFreeRefreshedForLess(t *testing.T) {
	tl := readRecorded(t, "holds/refresh-never-shortens.explore-refreshed-for-less.json").Timeline
	opts := judge.Options{Slack: 60 * time.Millisecond, Quick: 30 * time.Millisecond, Late: 120 * time.Millisecond}
	d, found := judge.Free(tl, opts)
	assert.False(t, found, "%s", d.Reason)
	longer := slices.IndexFunc(tl, func(e history.Event) bool {
		return e.Client == "D" && e.Kind == history.EvRefreshed && e.TTL == 240*time.Millisecond
	})
	require.Positive(t, longer)
	tl[longer].TTL = 120 * time.Millisecond
	d, found = judge.Free(tl, opts)
	require.True(t, found)
	assert.Equal(t, history.Unfreed, d.Rule, "%s", d.Reason)
	assert.Contains(t, d.Reason.String(), "C was refused")
}
