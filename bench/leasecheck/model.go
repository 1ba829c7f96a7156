package leasecheck

import (
	"math"
	"strconv"
	"time"

	"github.com/anishathalye/porcupine"
)

// A lease lock is not a mutex: a grant lapses at its TTL whether or not
// its holder releases it, so the same history can be legal or not
// depending on when each call ran. The model therefore reads time: each
// operation carries its call and return times (in its Input), and the
// state carries the time the linearization has reached. An operation
// takes effect at one instant between its call and its return, no
// earlier than the one before it in the order porcupine tries; the
// model takes the earliest instant that makes the step legal, which
// never leaves fewer choices to the operations after it (every later
// condition asks for a time at least the state's, or is indifferent to
// it).
//
// A holder's lease is known only within bounds: its grant's Redis
// command ran somewhere between the call and the return, so the lease
// certainly lasts until call + TTL (lo) and possibly until return + TTL
// (hi), plus a tolerance for the lock's rounding of times. A grant to
// another client is legal only once lo has passed or the holder called
// release; a refusal is legal only while some lease may still stand:
// a holder before hi, or a release whose outcome is unknown.

// Kind is what an operation did.
type Kind int

// The kinds of operations.
const (
	Acquire Kind = iota // one attempt to take the lock
	Release
	Refresh
	Enter // the client entered the critical section (an instant)
	Leave // it left
)

// Outcome is what an operation returned.
type Outcome int

// The outcomes.
const (
	// OK: an acquire that got the lock, a release or refresh that
	// returned no error.
	OK Outcome = iota
	// Refused: an acquire told that someone else holds the lock, a
	// release or refresh told that the lock is not held.
	Refused
	// Unknown: an error, a lost reply or a crash: the call may or may
	// not have taken effect.
	Unknown
)

// Op is one lock call or critical-section event of one client.
type Op struct {
	Client string
	// Hold tells a client's holds apart: a grant opens it, and the
	// release or refresh of the same Hold ends or extends it. 0 for all
	// of a client's calls when it is not known (a timeline of a mutex),
	// whose release then ends its last grant.
	Hold         int
	Kind         Kind
	Outcome      Outcome
	Call, Return time.Duration // since the run began; Return is Never for a call that never returned
	TTL          time.Duration // an acquire's or refresh's; 0: no expiry
	// Renews: the grant's lock renews itself while held
	// (strategy.Leased), so that its lease lasts until its release.
	Renews bool
}

// holder names op's hold: its client and Hold.
func (op Op) holder() string { return op.Client + "#" + strconv.Itoa(op.Hold) }

// Never is the return time of a call that never returned.
const Never = time.Duration(math.MaxInt64 / 4)

// input is what porcupine passes the model: the operation and the
// tolerance on the end of a lease.
type input struct {
	op  Op
	tol time.Duration
}

// state is a lease lock's, as the model knows it. It is compared with
// ==: every field is a value.
type state struct {
	now time.Duration // the time the linearization has reached
	// holder is the hold the lock was last granted to (Op.holder), ""
	// when free, granted at since; its lease certainly stands until lo
	// and possibly until hi.
	holder        string
	since, lo, hi time.Duration
	// past are when the holds before it may have stood, the latest
	// first: each from its grant until its release, or the next grant,
	// or its hi.
	past   [pastHolds]span
	inside string // who is in the critical section, "" for nobody
}

// span is a hold's time in the linearization.
type span struct{ from, until time.Duration }

// pastHolds is how many ended holds the state remembers, for the
// refusals that took effect during one of them but are placed after it.
const pastHolds = 4

// Mode says which operations the model judges.
type Mode int

// The modes.
const (
	// Strict judges refusals too: a lock that refuses while no lease
	// can stand is not a lease lock.
	Strict Mode = iota
	// Safety judges only the grants (and refreshes): a refusal is
	// always legal, as a try-lock may fail for any reason.
	Safety
)

// model returns the lease lock as a porcupine model, in mode.
func model(mode Mode) porcupine.Model {
	nd := porcupine.NondeterministicModel{
		Init: func() []any { return []any{state{}} },
		Step: func(st, in, _ any) []any {
			return step(st.(state), in.(input), mode)
		},
		Equal: func(a, b any) bool { return a.(state) == b.(state) },
	}
	return nd.ToModel()
}

// step returns the states op can lead to from s; none if it cannot
// happen there.
func step(s state, in input, mode Mode) []any {
	op := in.op
	// t is when op takes effect if it changes the state: at the
	// linearization's time, or at its call if later.
	t := max(s.now, op.Call)
	switch op.Kind {
	case Enter, Leave:
		if t > op.Return || op.Kind == Enter && s.inside != "" {
			return nil
		}
		s.now = t
		switch {
		case op.Kind == Enter:
			s.inside = op.Client
		case s.inside == op.Client:
			s.inside = ""
		}
		return []any{s}
	case Acquire:
		var out []any
		switch op.Outcome {
		case Refused:
			if refused(s, op, mode) {
				s.now = t
				out = append(out, s)
			}
			return out
		case Unknown:
			// It may have done nothing, which it may have done at any
			// time from its call: no condition on t.
			none := s
			none.now = t
			out = append(out, none)
		}
		if g, ok := grant(s, t, in); ok {
			out = append(out, g)
		}
		return out
	case Release:
		if s.holder != op.holder() {
			// Not the holder's: it cannot free anyone's lease. A lock
			// that cannot tell (a plain DEL) answers OK all the same.
			s.now = t
			return []any{s}
		}
		if t > op.Return {
			return nil
		}
		s.now = t
		freed := s.replaced(t)
		if op.Outcome != Unknown {
			return []any{freed}
		}
		// It may have freed the lock or not; either way its holder
		// no longer counts on it.
		s.lo = min(s.lo, t)
		return []any{freed, s}
	case Refresh:
		if t > op.Return {
			return nil
		}
		s.now = t
		refreshed, ok := s, s.holder == op.holder() && t < s.hi
		if ok {
			// The lease lives TTL from the refresh: certainly that
			// long, and no longer than that for a lock that shortens a
			// lease (redlock's PEXPIRE), or as long as it had left
			// for one that never does (luatoken's "at least ttl"),
			// as strategy.Refresher allows either.
			refreshed.lo = end(op.Call, op.TTL, 0, false)
			refreshed.hi = max(s.hi, end(op.Return, op.TTL, in.tol, op.Renews))
		}
		switch op.Outcome {
		case OK:
			if !ok {
				return nil // it refreshed a lease that was gone or someone else's
			}
			return []any{refreshed}
		case Unknown:
			if ok {
				return []any{s, refreshed}
			}
		}
		return []any{s}
	}
	return nil
}

// refused says whether a refusal op is legal after s: whether some
// lease may have stood at a moment of its call, between its call and
// its return. A refusal changes nothing, so it may have taken effect at
// any such moment, also one before s.now: the current holder's, from
// its grant on, or one of the last holds before it, until it ended
// (which saves porcupine from trying every refusal on either side of
// each release).
func refused(s state, op Op, mode Mode) bool {
	if mode == Safety {
		return true
	}
	held := func(from, until time.Duration) bool {
		at := max(from, op.Call)
		return at < until && at <= op.Return
	}
	if s.holder != "" && held(s.since, s.hi) {
		return true
	}
	for _, p := range s.past {
		if held(p.from, p.until) {
			return true
		}
	}
	return false
}

// replaced returns s once its hold ended at t, with no holder.
func (s state) replaced(t time.Duration) state {
	if s.holder != "" {
		copy(s.past[1:], s.past[:])
		s.past[0] = span{s.since, min(s.hi, t)}
	}
	s.holder, s.since, s.lo, s.hi = "", 0, 0, 0
	return s
}

// grant returns s after op's grant, at the earliest time from t at which
// no other client's lease certainly stands, and whether that time falls
// before op returned.
func grant(s state, t time.Duration, in input) (state, bool) {
	op := in.op
	if s.holder != "" && s.holder != op.holder() {
		t = max(t, s.lo)
	}
	if t > op.Return {
		return s, false
	}
	lo, hi := end(op.Call, op.TTL, 0, false), end(op.Return, op.TTL, in.tol, op.Renews)
	if s.holder == op.holder() {
		// A second grant to a client whose holds are not told apart
		// (Hold 0): the lock is its as long as either stands.
		s.lo, s.hi = max(lo, s.lo), max(hi, s.hi)
	} else {
		s = s.replaced(t)
		s.holder, s.since, s.lo, s.hi = op.holder(), t, lo, hi
	}
	s.now = t
	return s, true
}

// end is when a lease taken at from for ttl ends, tol later; Never for a
// lease without expiry or one its lock renews.
func end(from, ttl, tol time.Duration, renews bool) time.Duration {
	if ttl <= 0 || renews || from >= Never {
		return Never
	}
	return from + ttl + tol
}
