package judge_test

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/judge"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ms = time.Millisecond

// grant, release, refresh, enter and leave are the events of a history.
func grant(c string, call, at, ttl time.Duration) history.Event {
	return history.Event{Client: c, Kind: history.EvAcquired, Call: call, At: at, TTL: ttl}
}

func release(c string, call, at time.Duration) history.Event {
	return history.Event{Client: c, Kind: history.EvReleased, Call: call, At: at}
}

func refresh(c string, call, at, ttl time.Duration) history.Event {
	return history.Event{Client: c, Kind: history.EvRefreshed, Call: call, At: at, TTL: ttl}
}

func enter(c string, at time.Duration) history.Event {
	return history.Event{Client: c, Kind: history.EvEnter, At: at}
}

func leave(c string, at time.Duration) history.Event {
	return history.Event{Client: c, Kind: history.EvLeave, At: at}
}

var (
	reason = msg.Msg{ID: "test.reason"}
	kept   = history.Event{Kind: history.EvCheck, Check: &history.Check{Rule: history.Kept, Reason: &reason}}
)

func claim(rule history.Rule) history.Event {
	return history.Event{Kind: history.EvCheck, Check: &history.Check{Rule: rule, Broken: true, Reason: &reason}}
}

func promise(rule history.Rule) history.Event {
	return history.Event{Kind: history.EvCheck, Check: &history.Check{Rule: rule, Reason: &reason}}
}

// TestOneHolder: a hold is valid from its grant's return until the
// earliest of its release call and its call plus its TTL, which a refresh
// pushes on from its own call; a grant to another client inside it is a
// break, one after it is not.
func TestOneHolder(t *testing.T) {
	for _, tt := range []struct {
		name   string
		events []history.Event
		broken bool
	}{
		{"inside the TTL", []history.Event{grant("A", 0, ms, 100*ms), grant("B", 40*ms, 50*ms, 100*ms)}, true},
		{"after the TTL", []history.Event{grant("A", 0, ms, 100*ms), grant("B", 140*ms, 150*ms, 100*ms)}, false},
		// The TTL counts from the call, not the return: a slow grant is
		// valid for less.
		{"after call plus TTL", []history.Event{grant("A", 0, 60*ms, 100*ms), grant("B", 101*ms, 102*ms, 100*ms)}, false},
		{"after the release call", []history.Event{grant("A", 0, ms, 100*ms), release("A", 30*ms, 60*ms), grant("B", 40*ms, 50*ms, 100*ms)}, false},
		{"refreshed", []history.Event{grant("A", 0, ms, 100*ms), refresh("A", 80*ms, 81*ms, 100*ms), grant("B", 140*ms, 150*ms, 100*ms)}, true},
		// A refresh sets the time left: one that asks for less than
		// was left shortens the hold (fence-in-acquire, explored: C
		// refreshed for 120ms, then for 60ms, and A got the lock once
		// the second had run out).
		{"refreshed for less", []history.Event{grant("A", 0, ms, 60*ms), refresh("A", 2*ms, 11*ms, 120*ms), refresh("A", 11*ms, 12*ms, 60*ms), grant("B", 76*ms, 77*ms, 100*ms)}, false},
		// A refresh for less whose reply was lost may have run: the
		// hold may end with it (fence-in-acquire, explored).
		{"a lost refresh for less", []history.Event{grant("A", 0, ms, 60*ms), refresh("A", 2*ms, 11*ms, 120*ms), {Client: "A", Kind: history.EvRefreshed, Call: 11 * ms, At: 12 * ms, TTL: 60 * ms, Err: "EOF"}, grant("B", 76*ms, 77*ms, 100*ms)}, false},
		{"refreshed for less, within it", []history.Event{grant("A", 0, ms, 60*ms), refresh("A", 2*ms, 11*ms, 120*ms), refresh("A", 11*ms, 12*ms, 60*ms), grant("B", 66*ms, 67*ms, 100*ms)}, true},
		{"refresh refused", []history.Event{grant("A", 0, ms, 100*ms), {Client: "A", Kind: history.EvRefreshed, Call: 80 * ms, At: 81 * ms, TTL: 100 * ms, Err: "not held"}, grant("B", 140*ms, 150*ms, 100*ms)}, false},
		{"a client again", []history.Event{grant("A", 0, ms, 100*ms), grant("A", 10*ms, 11*ms, 100*ms)}, false},
		{"a refusal", []history.Event{grant("A", 0, ms, 100*ms), {Client: "B", Kind: history.EvNotAcquired, Call: 10 * ms, At: 11 * ms, TTL: 100 * ms}}, false},
		{"an error", []history.Event{grant("A", 0, ms, 100*ms), {Client: "B", Kind: history.EvAcquired, Call: 10 * ms, At: 11 * ms, TTL: 100 * ms, Err: "ERR"}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := judge.Mutex(append(slices.Clone(tt.events), promise(history.OneHolder), kept))
			require.NoError(t, err)
			if tt.broken {
				assert.Equal(t, judge.Breaks, d.Verdict)
				require.Len(t, d.Reason.Args, 1, "the promise's reason, with what the judge found last")
				assert.Equal(t, "B was granted the lock while A still held it within its TTL", d.Reason.Args[0].Msg.String())
			} else {
				assert.Equal(t, judge.Holds, d.Verdict)
				assert.Equal(t, reason, d.Reason)
			}
			_, err = judge.Mutex(append(slices.Clone(tt.events), claim(history.OneHolder)))
			assert.Equal(t, !tt.broken, err != nil, "a claimed break stands only on its evidence: %v", err)
		})
	}
}

// TestLateRefreshClaim: a claimed second holder stands on a refresh that
// returned success while another held (a break judge.Free finds), and a
// scenario's promise of one holder is broken by it: the refresh revived
// A's lapsed hold beside B's.
func TestLateRefreshClaim(t *testing.T) {
	late := []history.Event{grant("A", 0, ms, 100*ms), grant("B", 110*ms, 111*ms, 100*ms), refresh("A", 120*ms, 121*ms, 100*ms)}
	d, err := judge.Mutex(append(slices.Clone(late), claim(history.OneHolder)))
	require.NoError(t, err)
	assert.Equal(t, judge.Breaks, d.Verdict)
	_, err = judge.Mutex(append(slices.Clone(late[:2]), claim(history.OneHolder)))
	assert.Error(t, err, "without the refresh, the history shows no second holder")
	d, err = judge.Mutex(append(slices.Clone(late), promise(history.OneHolder), kept))
	require.NoError(t, err)
	assert.Equal(t, judge.Breaks, d.Verdict)
}

// TestNotHeldText: the judge knows strategy.ErrNotHeld by its text.
func TestNotHeldText(t *testing.T) {
	assert.Contains(t, strategy.ErrNotHeld.Error(), "lock not held")
}

// TestOneInside: never two clients in the critical section.
func TestOneInside(t *testing.T) {
	d, err := judge.Mutex([]history.Event{enter("A", ms), enter("B", 2*ms), promise(history.OneInside), kept})
	require.NoError(t, err)
	assert.Equal(t, judge.Breaks, d.Verdict)
	assert.Equal(t, "B entered while A was inside", d.Reason.Args[0].Msg.String())

	d, err = judge.Mutex([]history.Event{enter("A", ms), leave("A", 2*ms), enter("B", 3*ms), promise(history.OneInside), kept})
	require.NoError(t, err)
	assert.Equal(t, judge.Holds, d.Verdict)

	_, err = judge.Mutex([]history.Event{enter("A", ms), leave("A", 2*ms), enter("B", 3*ms), claim(history.OneInside)})
	assert.Error(t, err, "no overlap to show for the claim")
}

// TestClaims: an observed break is a break, holds and n/a are the last
// claim's, the first break wins, and a history without a claim has no
// verdict.
func TestClaims(t *testing.T) {
	na := history.Event{Kind: history.EvCheck, Check: &history.Check{Rule: history.Unstageable, Reason: &reason}}
	d, err := judge.Mutex([]history.Event{na})
	require.NoError(t, err)
	assert.Equal(t, judge.NotApplicable, d.Verdict)

	d, err = judge.Mutex([]history.Event{claim(history.Observed), kept})
	require.NoError(t, err)
	assert.Equal(t, judge.Breaks, d.Verdict)

	_, err = judge.Mutex([]history.Event{grant("A", 0, ms, 100*ms)})
	assert.ErrorIs(t, err, judge.ErrNoClaim)

	_, err = judge.Mutex([]history.Event{{Kind: history.EvCheck, Check: &history.Check{Rule: "no-such-rule"}}})
	assert.Error(t, err)
}

// recorded is a break saved from a real run (testdata, written by
// lockcheck -format json): its verdict, reason and history.
type recorded struct {
	Strategy, Property string
	Verdict            judge.Verdict
	Message            msg.Msg
	Timeline           []history.Event
}

// TestRecorded judges histories recorded on a real Redis again, and finds
// their verdicts and reasons; without the events that are its evidence
// (the grants, the refusals, the critical sections), a claimed break is
// no verdict.
func TestRecorded(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			var r recorded
			require.NoError(t, json.Unmarshal(b, &r))
			d, err := judge.Mutex(r.Timeline)
			require.NoError(t, err)
			assert.Equal(t, r.Verdict, d.Verdict)
			assert.Equal(t, r.Message.String(), d.Reason.String())

			var rule history.Rule
			for _, e := range r.Timeline {
				if e.Kind == history.EvCheck && e.Check.Broken {
					rule = e.Check.Rule
				}
			}
			if rule == history.Observed {
				return
			}
			evidence := slices.DeleteFunc(slices.Clone(r.Timeline), func(e history.Event) bool {
				return e.Kind == history.EvAcquired || e.Kind == history.EvEnter || e.Kind == history.EvNotAcquired
			})
			_, err = judge.Mutex(evidence)
			assert.Error(t, err, "%s's break of %s without its evidence", r.Strategy, r.Property)
		})
	}
}

// TestUnfreed: a claim that a lock had to be free stands when its waiter
// was refused with no hold that may stand in its way: the holds' own TTLs
// and releases give the window; the scenario's Since and Within are not
// read.
func TestUnfreed(t *testing.T) {
	refusedB := func(at time.Duration) history.Event {
		return history.Event{Client: "B", Kind: history.EvNotAcquired, Call: at - ms, At: at}
	}
	unfreed := history.Event{Kind: history.EvCheck, Check: &history.Check{Rule: history.Unfreed, Broken: true, Reason: &reason,
		Client: "B", Since: time.Hour, Within: time.Hour}}
	a := grant("A", 0, ms, 100*ms)
	crashIn := func(ttl time.Duration) history.Event {
		return history.Event{Client: "A", Kind: history.EvCrash, Call: 10 * ms, At: 11 * ms, TTL: ttl}
	}
	for _, tt := range []struct {
		name   string
		events []history.Event
		shown  bool
	}{
		{"refused after the TTL", []history.Event{a, refusedB(50 * ms), refusedB(103 * ms)}, true},
		{"refused just before the TTL", []history.Event{a, refusedB(50 * ms), refusedB(100 * ms)}, false},
		{"refused while held", []history.Event{a, refusedB(50 * ms)}, false},
		{"released", []history.Event{a, release("A", 30*ms, 31*ms), refusedB(40 * ms)}, true},
		{"the release failed", []history.Event{a, {Client: "A", Kind: history.EvReleased, Call: 30 * ms, At: 31 * ms, Err: "i/o timeout"}, refusedB(40 * ms)}, false},
		{"granted to another", []history.Event{a, grant("C", 105*ms, 110*ms, 100*ms), refusedB(150 * ms)}, false},
		{"refreshed", []history.Event{a, refresh("A", 90*ms, 91*ms, 100*ms), refusedB(150 * ms)}, false},
		// A refresh for less than was left may leave the key as it was
		// (PEXPIRE's GT): the hour may still stand.
		{"refreshed shorter", []history.Event{grant("A", 0, ms, time.Hour), refresh("A", 10*ms, 11*ms, 100*ms), refusedB(150 * ms)}, false},
		{"a crash inside a call the history does not give", []history.Event{command("A", 0), crash("A", ms), refusedB(time.Second)}, false},
		{"a crash inside an acquire", []history.Event{command("A", 10*ms), crashIn(100 * ms), refusedB(150 * ms)}, true},
		{"a crash inside an acquire, within its TTL", []history.Event{command("A", 10*ms), crashIn(100 * ms), refusedB(100 * ms)}, false},
		{"a crash inside a release", []history.Event{a, command("A", 10*ms), crashIn(0), refusedB(140 * ms)}, true},
		// A semaphore's waiter, whose permit H1's leaves room for once
		// A's has expired: the two granted at once show two permits.
		{"a permit left", []history.Event{moded("A", 1, history.Permit, 1, 0, ms, 100*ms), moded("H1", 1, history.Permit, 1, 2*ms, 3*ms, time.Hour), refusedB(140 * ms)}, true},
		{"no permit left", []history.Event{moded("A", 1, history.Permit, 1, 0, ms, 100*ms), moded("H1", 1, history.Permit, 1, 2*ms, 3*ms, time.Hour), refusedB(100 * ms)}, false},
		{"a crash inside a release, within the TTL", []history.Event{a, command("A", 10*ms), crashIn(0), refusedB(90 * ms)}, false},
		// A refresh acts no sooner than its first command: one that sent
		// it once A's TTL had passed did not keep B out before; one
		// that sent it within the TTL may have, whenever it returned.
		{"a refresh sent after the refusal", []history.Event{a, refusedB(150 * ms), command("A", 200*ms), refresh("A", 10*ms, 201*ms, time.Second)}, true},
		{"a refresh sent within the TTL", []history.Event{a, command("A", 20*ms), refusedB(150 * ms), refresh("A", 10*ms, 201*ms, time.Second)}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := judge.Mutex(append(slices.Clone(tt.events), unfreed))
			if tt.shown {
				require.NoError(t, err)
				assert.Equal(t, judge.Breaks, d.Verdict)
			} else {
				assert.Error(t, err)
			}
		})
	}
}

// moded is a grant of mode, with permits, of hold id.
func moded(c string, id int, mode history.Mode, permits int, call, at, ttl time.Duration) history.Event {
	e := grant(c, call, at, ttl)
	e.Mode, e.Permits, e.Hold = mode, permits, id
	return e
}

// TestKinds: readers share and a writer excludes them, and a semaphore's
// valid holds take at most its permits; each hold ends with its own
// release, whoever else its client holds.
func TestKinds(t *testing.T) {
	read := func(c string, id int, at time.Duration) history.Event {
		return moded(c, id, history.Shared, 0, at-ms, at, 100*ms)
	}
	write := func(c string, at time.Duration) history.Event {
		return moded(c, 0, history.Exclusive, 0, at-ms, at, 100*ms)
	}
	permits := func(c string, id, n int, at time.Duration) history.Event {
		return moded(c, id, history.Permit, n, at-ms, at, 100*ms)
	}
	rel := func(c string, id int, at time.Duration) history.Event {
		e := release(c, at, at+ms)
		e.Hold = id
		return e
	}
	for _, tt := range []struct {
		name     string
		capacity int
		events   []history.Event
		found    string
	}{
		{"readers share", 0, []history.Event{read("A", 1, 2*ms), read("B", 1, 3*ms), read("C", 1, 4*ms)}, ""},
		{"a reader under a writer", 0, []history.Event{write("W", 2*ms), read("A", 1, 3*ms)}, "A was granted a read lock while W still held the write lock within its TTL"},
		{"a writer under readers", 0, []history.Event{read("A", 1, 2*ms), read("B", 1, 3*ms), write("W", 4*ms)}, "W was granted the write lock while A, B still held the lock within its TTL"},
		{"a writer after the readers left", 0, []history.Event{read("A", 1, 2*ms), rel("A", 1, 3*ms), write("W", 5*ms)}, ""},
		// A's second read hold outlives its first: its release of hold 1
		// leaves hold 2 valid.
		{"one of two read holds released", 0, []history.Event{read("A", 1, 2*ms), read("A", 2, 3*ms), rel("A", 1, 4*ms), write("W", 6*ms)}, "W was granted the write lock while A still held the lock within its TTL"},
		{"within the permits", 3, []history.Event{permits("A", 1, 1, 2*ms), permits("B", 1, 2, 3*ms)}, ""},
		{"past the permits", 3, []history.Event{permits("A", 1, 1, 2*ms), permits("B", 1, 2, 3*ms), permits("C", 1, 1, 4*ms)}, "C was granted 1 permit while A, B held the others within their TTL: more than the 3 the semaphore allows"},
		{"a permit back", 3, []history.Event{permits("A", 1, 1, 2*ms), permits("B", 1, 2, 3*ms), rel("A", 1, 4*ms), permits("C", 1, 1, 6*ms)}, ""},
		{"a permit that expired", 1, []history.Event{permits("A", 1, 1, 2*ms), permits("C", 1, 1, 150*ms)}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := promise(history.OneHolder)
			p.Check.Permits = tt.capacity
			d, err := judge.Mutex(append(slices.Clone(tt.events), p, kept))
			require.NoError(t, err)
			if tt.found == "" {
				assert.Equal(t, judge.Holds, d.Verdict)
				return
			}
			assert.Equal(t, judge.Breaks, d.Verdict)
			require.Len(t, d.Reason.Args, 1)
			assert.Equal(t, tt.found, d.Reason.Args[0].Msg.String())
		})
	}
}

// readRecorded reads a history saved from a real run (testdata).
func readRecorded(t *testing.T, file string) recorded {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	require.NoError(t, err)
	var r recorded
	require.NoError(t, json.Unmarshal(b, &r))
	return r
}

// The edits of a saved history: client's grants ask for ttl, or have
// their replies lost; client leaves the critical section right after it
// enters.
func editTTL(client string, ttl time.Duration) func([]history.Event) {
	return func(tl []history.Event) {
		for i, e := range tl {
			if e.Client == client && e.Kind == history.EvAcquired {
				tl[i].TTL = ttl
			}
		}
	}
}

func editCrashTTL(client string, ttl time.Duration) func([]history.Event) {
	return func(tl []history.Event) {
		for i, e := range tl {
			if e.Client == client && e.Kind == history.EvCrash {
				tl[i].TTL = ttl
			}
		}
	}
}

// editFencesByCall gives the grants fencing tokens 1, 2, 3... in the
// order in which their acquires began.
func editFencesByCall(tl []history.Event) {
	var grants []int
	for i, e := range tl {
		if e.Kind == history.EvAcquired && e.Fence != nil {
			grants = append(grants, i)
		}
	}
	slices.SortStableFunc(grants, func(a, b int) int { return cmp.Compare(tl[a].Call, tl[b].Call) })
	for n, i := range grants {
		token := int64(n + 1)
		tl[i].Fence = &token
	}
}

// editEach applies edit to each event of kind.
func editEach(kind history.EventKind, edit func(*history.Event)) func([]history.Event) {
	return func(tl []history.Event) {
		for i := range tl {
			if tl[i].Kind == kind {
				edit(&tl[i])
			}
		}
	}
}

// editPTTL makes every read find K with pttl ms left.
func editPTTL(pttl int64) func([]history.Event) {
	return editEach(history.EvRead, func(e *history.Event) {
		rd := *e.Read
		rd.PTTL = pttl
		e.Read = &rd
	})
}

// editFirstLost makes client's first refused attempt one whose reply
// was lost, asking for an hour: it may hold the lock since.
func editFirstLost(client string) func([]history.Event) {
	return func(tl []history.Event) {
		i := slices.IndexFunc(tl, func(e history.Event) bool { return e.Client == client && e.Kind == history.EvNotAcquired })
		tl[i].Kind, tl[i].Err, tl[i].TTL = history.EvAcquired, "i/o timeout", time.Hour
	}
}

func editLost(client string) func([]history.Event) {
	return func(tl []history.Event) {
		for i, e := range tl {
			if e.Client == client && e.Kind == history.EvAcquired {
				tl[i].Err = "i/o timeout"
			}
		}
	}
}

// editRefreshFailed makes client's refreshes return an error.
func editRefreshFailed(client string) func([]history.Event) {
	return editEach(history.EvRefreshed, func(e *history.Event) {
		if e.Client == client {
			e.Err = "not held"
		}
	})
}

// editPermits makes every claim of the history count permits.
func editPermits(permits int) func([]history.Event) {
	return editEach(history.EvCheck, func(e *history.Event) {
		c := *e.Check
		c.Permits = permits
		e.Check = &c
	})
}

// editSentFirst has client send the first command of its last refresh
// right after its grant returned, at the refresh's call: the refresh
// may have acted on the lock from then on.
func editSentFirst(client string) func([]history.Event) []history.Event {
	return func(tl []history.Event) []history.Event {
		r := slices.IndexFunc(tl, func(e history.Event) bool { return e.Client == client && e.Kind == history.EvRefreshed })
		g := slices.IndexFunc(tl, func(e history.Event) bool { return e.Client == client && e.Kind == history.EvAcquired })
		c := slices.IndexFunc(tl[g:], func(e history.Event) bool {
			return e.Client == client && e.Kind == history.EvCommand && e.At > tl[r].Call
		})
		sent := tl[g+c]
		sent.At = tl[r].Call
		return slices.Insert(tl, g+1, sent)
	}
}

func leaveFirst(client string) func([]history.Event) {
	return func(tl []history.Event) {
		leave := slices.IndexFunc(tl, func(e history.Event) bool { return e.Client == client && e.Kind == history.EvLeave })
		enter := slices.IndexFunc(tl, func(e history.Event) bool { return e.Client == client && e.Kind == history.EvEnter })
		e := tl[leave]
		copy(tl[enter+2:leave+1], tl[enter+1:leave])
		tl[enter+1] = e
	}
}

// TestEdited: a break saved from a real run, edited so that its history
// no longer shows it, is no verdict of breaks when judged again.
func TestEdited(t *testing.T) {
	for _, tt := range []struct {
		file string
		edit func([]history.Event)
	}{
		// The example: with a TTL of 10,000s, the crashed holder's
		// lock is B's to wait for; its refusals prove nothing.
		{"setnxdel.crash-recovery.json", editTTL("A", 10000*time.Second)},
		// A's grant, its reply lost, is nobody's hold.
		{"delsetnxcheck.exclusion.json", editLost("A")},
		// A clock-skewed holder whose TTL had run out.
		{"getset.clock-skew.json", editTTL("A", time.Millisecond)},
		// A leaves before B enters.
		{"luatoken.holder-overrun.json", leaveFirst("A")},
		// B's hold had expired when A's late release deleted K.
		{"setnxpx.safe-release.json", editTTL("B", time.Millisecond)},
		// B's hold had expired when A's late refresh pushed K's expiry.
		{"refresh-pexpire.safe-refresh.json", editTTL("B", time.Millisecond)},
		// A died inside an acquire that asked for 10,000s.
		{"setnxexpire.crash-mid-acquire.json", editCrashTTL("A", 10000*time.Second)},
		// A lock that refuses a free lock; not once A's first attempt,
		// its reply lost, may have taken it for an hour.
		{"refuses-without-replica.release-frees.json", editFirstLost("A")},
		// A's 5s lock read with 2.5s left, right after its grant; not
		// with 5s.
		{"ttl-halved.lease-kept.json", editPTTL(5000)},
		// The kinds: OneHolder by mode. W wrote beside B's read lock,
		// which A's second release of its own had cut; not once B's
		// TTL had run out.
		{"refcountrwlock.reader-double-release.json", editTTL("B", time.Millisecond)},
		// OneInside by mode: W wrote while A, past its read lock's TTL,
		// still read; not once A left before W entered.
		{"rwlua.reader-overrun.json", leaveFirst("A")},
		// R read beside W's write lock; not once W's TTL had run out.
		{"refcountrwlock.reader-safe-release.json", editTTL("W", time.Millisecond)},
		// Unfreed in a mode: W could not write once D, crashed with its
		// read lock, had let its TTL run out; not with 10,000s.
		{"refcountrwlock.reader-lease-independence.json", editTTL("D", 10000*time.Second)},
		// OneHolder by permits: with H1's permit, Y's and X's are three
		// of two; not once H1's TTL had run out, nor of three permits.
		{"countersemaphore.permit-release-exact.json", editTTL("H1", time.Millisecond)},
		{"countersemaphore.permit-release-exact.json", editPermits(3)},
		// Unfreed with permits: beside H1's, A's permit, its acquire's
		// reply lost, may have stood for its TTL; for 10,000s, W's
		// refusals are right.
		{"zsetsemaphore.permit-faults.json", editTTL("B", 10000*time.Second)},
		{"zsetsemaphore.permit-safe-refresh.json", editTTL("A", 10000*time.Second)},
		// A late refresh that returned with success once its hold had
		// lapsed: A holds again, a reader beside W's write lock, a third
		// permit beside H1's and W's; not once W's TTL had run out, nor
		// when the refresh said it held nothing.
		{"rw-refresh-re-adds.reader-safe-refresh.json", editTTL("W", time.Millisecond)},
		{"rw-refresh-re-adds.reader-safe-refresh.json", editRefreshFailed("A")},
		{"semaphore-refresh-re-adds.permit-safe-refresh.json", editTTL("W", time.Millisecond)},
		{"semaphore-refresh-re-adds.permit-safe-refresh.json", editRefreshFailed("A")},
		// FenceOrder: B took the lock before A, as its grant's return
		// within A's hold shows, and drew the larger token; not once
		// the tokens follow the acquires' calls.
		{"fence-incr-after-set.explore.json", editFencesByCall},
	} {
		t.Run(tt.file, func(t *testing.T) {
			r := readRecorded(t, tt.file)
			d, err := judge.Mutex(r.Timeline)
			require.NoError(t, err)
			require.Equal(t, judge.Breaks, d.Verdict, "as saved")
			tt.edit(r.Timeline)
			d, err = judge.Mutex(r.Timeline)
			assert.False(t, err == nil && d.Verdict == judge.Breaks, "edited, it still breaks: %s", d.Reason)
		})
	}
	// A's late refresh of its permit, paused before its first command,
	// returned with success once W had been refused for long past A's
	// TTL: it could not have kept A's permit before it sent anything.
	// Sent at once, its first command may have.
	r := readRecorded(t, "zsetsemaphore.permit-safe-refresh.json")
	d, err := judge.Mutex(editSentFirst("A")(r.Timeline))
	assert.False(t, err == nil && d.Verdict == judge.Breaks, "edited, it still breaks: %s", d.Reason)
}

// editReadsAfter applies edit to each read after client's first grant.
func editReadsAfter(client string, edit func(*history.Read)) func([]history.Event) {
	return func(tl []history.Event) {
		g := slices.IndexFunc(tl, func(e history.Event) bool { return e.Client == client && e.Kind == history.EvAcquired })
		editEach(history.EvRead, func(e *history.Event) {
			rd := *e.Read
			rd.Keys = slices.Clone(rd.Keys)
			edit(&rd)
			e.Read = &rd
		})(tl[g:])
	}
}

// TestEditedGrantOwned: while A held K, B's acquire took an error reply
// for a grant (the mutant error-taken-for-grant, on acquire-faults), and
// the suite's read right after found A's value at K and none of B's: a
// grant without the lock, as well as two holders. Claimed as a grant
// without the lock, the break stands; found without a claim once A's
// hold is edited to have expired (no two holders), it is GrantOwned.
// Edited so that the read finds B's own value, or K gone, neither
// gives a break.
func TestEditedGrantOwned(t *testing.T) {
	const file = "error-taken-for-grant.acquire-faults.json"
	asGrantOwned := editEach(history.EvCheck, func(e *history.Event) {
		c := *e.Check
		c.Rule = history.GrantOwned
		e.Check = &c
	})
	bOwns := editReadsAfter("B", func(rd *history.Read) {
		rd.Keys[0].Value = &history.Arg{Kind: history.ArgToken, Text: "b-token", Client: "B"}
	})
	gone := editReadsAfter("B", func(rd *history.Read) { rd.Keys[0].Value, rd.PTTL = nil, -2 })

	r := readRecorded(t, file)
	asGrantOwned(r.Timeline)
	d, err := judge.Mutex(r.Timeline)
	require.NoError(t, err)
	assert.Equal(t, judge.Breaks, d.Verdict, "as saved, claimed as a grant without the lock")

	r = readRecorded(t, file)
	editTTL("A", time.Millisecond)(r.Timeline)
	d, found := judge.Free(r.Timeline, judge.Options{})
	require.True(t, found, "A's hold expired, B's grant without the lock")
	assert.Equal(t, history.GrantOwned, d.Rule, "%s", d.Reason)
	assert.Equal(t, "B was granted the lock, but the lock's keys held A's value and none of its own", d.Reason.String())

	for name, edit := range map[string]func([]history.Event){"B's own value": bOwns, "K gone": gone} {
		t.Run(name, func(t *testing.T) {
			r := readRecorded(t, file)
			asGrantOwned(r.Timeline)
			edit(r.Timeline)
			d, err := judge.Mutex(r.Timeline)
			assert.False(t, err == nil && d.Verdict == judge.Breaks, "edited, it still breaks: %s", d.Reason)

			r = readRecorded(t, file)
			editTTL("A", time.Millisecond)(r.Timeline)
			edit(r.Timeline)
			d, found := judge.Free(r.Timeline, judge.Options{})
			assert.False(t, found, "%s", d.Reason)
		})
	}
}
