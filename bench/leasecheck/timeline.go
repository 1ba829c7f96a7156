package leasecheck

import (
	"strings"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest"
)

// FromResult reads the operations of a Result's timeline (a break's, or
// one loaded from lockcheck -format json): nil when it keeps none.
func FromResult(r locktest.Result) *History {
	if len(r.Timeline) == 0 {
		return nil
	}
	return &History{Key: r.Key, Ops: FromTimeline(r.Timeline), Tol: tolerance(r.Granularity), Timeline: true}
}

// tolerance is how far past its TTL a lease of a lock whose TTLs count
// in steps of gran may stand: two steps, the rounding of the time the
// lock reads and of the one it compares it with.
func tolerance(gran time.Duration) time.Duration { return 2 * max(gran, time.Millisecond) }

// FromTimeline reads the lock calls and critical-section events of a
// timeline.
//
// A wait (an acquire that retries) is recorded as one event for each
// attempt refused before the last, with its return time alone, then the
// last attempt's outcome with the wait's call time: each attempt is
// read as an operation from the return of the one before it (the first
// from the wait's call) to its own. A lock call the timeline records
// with an error is of unknown outcome: it may have taken effect or not.
// A client that crashed in a lock call has no event for it, and that
// call is missing here, as it is from the judge's reading.
func FromTimeline(tl []history.Event) []Op {
	var ops []Op
	pending := map[string][]time.Duration{} // each client's refused attempts of a wait under way: their returns
	for _, e := range tl {
		switch e.Kind {
		case history.EvEnter, history.EvLeave:
			k := Enter
			if e.Kind == history.EvLeave {
				k = Leave
			}
			ops = append(ops, Op{Client: e.Client, Kind: k, Call: e.At, Return: e.At})
		case history.EvNotAcquired:
			if e.Call == 0 && e.TTL == 0 {
				pending[e.Client] = append(pending[e.Client], e.At)
				continue
			}
			ops = append(ops, attempts(e, pending[e.Client], Refused)...)
			delete(pending, e.Client)
		case history.EvAcquired:
			out := OK
			if e.Err != "" {
				out = Unknown
			}
			ops = append(ops, attempts(e, pending[e.Client], out)...)
			delete(pending, e.Client)
		case history.EvReleased, history.EvRefreshed:
			k := Release
			if e.Kind == history.EvRefreshed {
				k = Refresh
			}
			ops = append(ops, Op{Client: e.Client, Hold: e.Hold, Kind: k, Outcome: outcome(e.Err), Call: e.Call, Return: e.At, TTL: e.TTL})
		}
	}
	return ops
}

// attempts are the operations of a wait that ended with e, whose earlier
// attempts were refused and returned at refused.
func attempts(e history.Event, refused []time.Duration, last Outcome) []Op {
	var ops []Op
	call := e.Call
	for _, at := range refused {
		ops = append(ops, Op{Client: e.Client, Kind: Acquire, Outcome: Refused, Call: call, Return: at, TTL: e.TTL})
		call = at
	}
	return append(ops, Op{Client: e.Client, Hold: e.Hold, Kind: Acquire, Outcome: last, Call: call, Return: e.At, TTL: e.TTL})
}

// outcome reads a release's or refresh's error: none is OK, the lock's
// "not held" a refusal, anything else unknown.
func outcome(err string) Outcome {
	switch {
	case err == "":
		return OK
	case strings.Contains(err, "lock not held"):
		return Refused
	}
	return Unknown
}
