package props

import (
	"fmt"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/judge"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// LeaseKept: while the holder is alive and not paused, nobody else can
// acquire before the TTL it asked for has passed. Other clients poll
// with the holder's TTL and with a much shorter one until the TTL less
// a tolerance of a tenth of it (at least 20ms).

func init() {
	register(Property{
		id: "lease-kept", order: 30, Scenario: leaseKept,
		breaks: "another client acquired the lock before the holder's TTL had passed",
	}, func(tm sim.Timing) floors {
		// A holds for kept; B and C probe until keptTolerance before its
		// end. A lock that can be refreshed runs a second round, not
		// counted.
		return floors{Holds: tm.Kept() - tm.KeptTolerance()}
	})
}

// How long a lock lives: lease-kept asks whether it lives as long as its
// holder was told, safe-refresh whether a late extension stays harmless.

// keptTries bounds the runs of lease-kept that a slow machine may spoil: a
// probe that acquires only once the TTL has passed proves nothing.
const keptTries = 3

// leaseKept: A acquires and stays alive; for the first half of the time
// left until shortly before its TTL ends, B polls with A's TTL, and for
// the second half C polls alone with a tenth of it, each attempt more than
// C's TTL after the last: an attempt that writes even when it fails (a
// PEXPIRE with the waiter's TTL) would let the key expire before C's next
// one. Nobody may acquire before A's TTL has passed. A lock that can be
// refreshed goes through it again, with A's lease given by Refresh.
func leaseKept(newRun func(string) *harness.Run) harness.Outcome {
	if res, broke := leaseMeasured(newRun); broke {
		return res
	}
	return keptRounds(newRun, keptWay{breaks: mKeptBreaks, holds: mKeptHolds})
}

// keptWay is how lease-kept takes the lock and probes it: the mutex's
// (mode nil), or in a kind's mode, where A takes its hold among the
// others (harness.KindMode.Others) and B and C try for what it forbids
// (harness.KindMode.Intrude); breaks and holds are the verdict's words.
type keptWay struct {
	mode          *harness.KindMode
	breaks, holds *msg.Def
}

// keptRounds runs lease-kept's round on an acquire, then, for a lock
// that can be refreshed, on a Refresh.
func keptRounds(newRun func(string) *harness.Run, way keptWay) harness.Outcome {
	res, refresher := keptRound(newRun, false, way)
	if res.Verdict != judge.Holds || !refresher {
		return res
	}
	res, _ = keptRound(newRun, true, way)
	if res.Verdict == judge.Holds {
		res.Message = mKeptAgain.New(res.Message)
	}
	return res
}

// take has A take the lock with ttl as way says.
func (way keptWay) take(r *harness.Run, a *harness.Client, ttl time.Duration) strategy.Lock {
	if way.mode == nil {
		return a.MustAcquire(ttl)
	}
	h, ok := way.mode.Take(a, ttl)
	if !ok {
		r.Fail(harness.MsgFailNotFree.New("A"))
	}
	return h.L
}

// try is one attempt of w with ttl as way says; it reports whether w got
// what A's hold forbids.
func (way keptWay) try(w *harness.Client, ttl time.Duration) bool {
	if way.mode == nil {
		return w.TryAcquire(ttl) != nil
	}
	return way.mode.Intrude(w, ttl)
}

// keptRound is one round of lease-kept; it reports whether A's lock can be
// refreshed. With refreshed, A acquires with the Short TTL and refreshes
// its lock to the lease-kept TTL at once.
func keptRound(newRun func(string) *harness.Run, refreshed bool, way keptWay) (res harness.Outcome, refresher bool) {
	round := "acquire"
	if refreshed {
		round = "refresh"
	}
	for try := 1; try <= keptTries; try++ {
		r := newRun(fmt.Sprintf("/%s-try-%d", round, try))
		ttl, tol, short := r.Tm.Kept(), r.Tm.KeptTolerance(), r.Tm.KeptShort()
		a, b, c := r.NewClient("A", 0), r.NewClient("B", 0), r.NewClient("C", 0)
		if way.mode != nil {
			if broke := way.mode.Others(r); broke != nil {
				return *broke, false
			}
		}
		lateInStep(r.Tm.Granularity)
		asked := time.Now()
		what, askedFor := mKeptHoldsFor, mKeptAskedFor
		if !refreshed {
			_, refresher = way.take(r, a, ttl).(strategy.Refresher)
		} else {
			la := way.take(r, a, r.Tm.Short)
			asked = time.Now()
			if err := a.Refresh(la.(strategy.Refresher), ttl); err != nil {
				r.Fail(mFailRefresh.New("A", err.Error()))
			}
			what, askedFor = mKeptRefreshedTo, mKeptRefreshAsked
		}
		if way.mode == nil {
			r.Det.Enter("A")
		}
		until := asked.Add(ttl - tol)
		half := asked.Add((ttl - tol) / 2)
		r.Note(mKeptPlan.New(what.New(ttl),
			asked.Sub(r.Rec.Start).Round(time.Millisecond), half.Sub(r.Rec.Start).Round(time.Millisecond), short, tol))
		// probe makes one attempt; it says whether the run is over, with
		// the verdict in res, or spoiled by a slow machine.
		spoiled := false
		probe := func(w *harness.Client, wttl time.Duration) (over bool) {
			if !way.try(w, wttl) {
				return false
			}
			// The server ran the winning attempt before it returned: if
			// that is still inside A's TTL, A's key went early.
			at := time.Since(asked)
			if at >= ttl {
				r.Note(mKeptSpoiled.New(w.Name, at.Round(time.Millisecond)))
				spoiled = true
				return true
			}
			why := way.breaks.New(w.Name, at.Round(time.Millisecond), askedFor.New(ttl), (ttl - at).Round(time.Millisecond))
			if way.mode != nil {
				res = way.mode.BreaksOne(r, why)
				return true
			}
			r.Det.Enter(w.Name)
			res = r.BreaksRule(history.OneHolder, why)
			return true
		}
		over := false
		for !over && time.Now().Before(half) {
			over = probe(b, ttl)
			time.Sleep(2 * r.Tm.Poll)
		}
		for !over && time.Now().Before(until) {
			over = probe(c, short)
			time.Sleep(r.Tm.Outlast(short))
		}
		switch {
		case !over:
			return r.Holds(way.holds.New(ttl, short, tol)), refresher
		case !spoiled:
			return res, refresher
		}
		r.Shutdown()
	}
	r := newRun("/spoiled")
	r.Fail(mKeptAllSpoiled.New(keptTries))
	return harness.Outcome{}, false
}

// lateInStep waits, at a time scale coarser than a millisecond, until
// nine tenths into a step of granularity g by the wall clock: a lock
// that counts whole steps and rounds the start of a lease down to one
// (an expiry of time() + ttl, in whole seconds) loses the most of the
// lease there, nine tenths of a step, more than lease-kept's tolerance,
// on every run rather than on some.
func lateInStep(g time.Duration) {
	if g <= time.Millisecond {
		return
	}
	phase := time.Duration(time.Now().UnixNano()) % g
	d := g*9/10 - phase
	if d < 0 {
		d += g
	}
	time.Sleep(d)
}

// leaseGranularity is how much shorter than asked a key may live for
// the rounding of a TTL to whole milliseconds, twice.
const leaseGranularity = 2 * time.Millisecond

// leaseMeasured: A acquires with the Long TTL and the suite reads K's
// PTTL right after the acquire returns. K then lives at most until that
// read returned plus its PTTL; the lease A was promised ends no earlier
// than the TTL after A began its attempt, or, for a lock that tells its
// holder a shorter validity (Redlock's drift) or a lease that ends, when
// that says. A key that goes before, by more than the granularity of
// milliseconds, breaks lease-kept; no load on the machine can make a
// correct lock look so, as every delay counts in its favour. A lock whose
// key has no expiry of its own is left to the probes.
func leaseMeasured(newRun func(string) *harness.Run) (harness.Outcome, bool) {
	r := newRun("/measured")
	a := r.NewClient("A", 0)
	ttl := r.Tm.Long
	began := time.Now()
	la := a.MustAcquire(ttl)
	promised := began.Add(ttl)
	if v, ok := la.(interface{ Validity() time.Duration }); ok {
		promised = minTime(promised, time.Now().Add(v.Validity()))
	}
	if ctx := harness.LeaseOf(la); ctx != nil {
		if dl, ok := ctx.Deadline(); ok {
			promised = minTime(promised, dl)
		}
	}
	ms := r.ReadPTTL()
	read := time.Now()
	if ms < 0 {
		r.Shutdown()
		return harness.Outcome{}, false
	}
	expires := read.Add(time.Duration(ms) * time.Millisecond)
	if short := promised.Sub(expires); short > leaseGranularity {
		r.Det.Enter("A")
		return r.Breaks(mKeptMeasured.New(ttl, read.Sub(began).Round(time.Millisecond), harness.Shown(ms), short.Round(time.Millisecond))), true
	}
	r.Shutdown()
	return harness.Outcome{}, false
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// lease-kept's messages.
var (
	mKeptHoldsFor     = msg.Define("lease-kept.holds-for", msg.K(msg.Duration), "A holds the lock for a TTL of {0}")
	mKeptRefreshedTo  = msg.Define("lease-kept.refreshed-to", msg.K(msg.Duration), "A refreshed its lock to a TTL of {0}")
	mKeptAskedFor     = msg.Define("lease-kept.asked-for", msg.K(msg.Duration), "A asked for a TTL of {0}")
	mKeptRefreshAsked = msg.Define("lease-kept.refresh-asked-for", msg.K(msg.Duration), "A's Refresh asked for a TTL of {0}")
	mKeptPlan         = msg.Define("lease-kept.plan", msg.K(msg.Sub, msg.Duration, msg.Duration, msg.Duration, msg.Duration),
		"{0} (asked at t={1}); B polls with the same TTL until t={2}, then C alone with {3}, until {4} before the TTL ends")
	mKeptSpoiled = msg.Define("lease-kept.spoiled", msg.K(msg.Client, msg.Duration),
		"{0}'s attempt returned only {1} after A's lease began, past its TTL: this run proves nothing")
	mKeptBreaks = msg.Define("lease-kept.breaks", msg.K(msg.Client, msg.Duration, msg.Sub, msg.Duration),
		"{0} acquired the lock {1} after {2}: A, alive and not paused, lost its lock at least {3} early")
	mKeptHolds = msg.Define("lease-kept.holds", msg.K(msg.Duration, msg.Duration, msg.Duration),
		"nobody acquired the lock while A held it for {0} (B polled with the same TTL, then C with {1}, until {2} before its end)")
	mKeptMeasured = msg.Define("lease-kept.breaks-measured", msg.K(msg.Duration, msg.Duration, msg.Duration, msg.Duration),
		"A asked for a TTL of {0}; read {1} after A's attempt began, K had {2} left: the key goes at least {3} before the lease A was promised ends")
	mKeptAgain = msg.Define("lease-kept.holds-refreshed", msg.K(msg.Sub),
		"{0}; and again after A refreshed its lock to that TTL")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("lease-kept.scenario", nil,
		"the holder, alive and not paused, holds a 300 ms lease; two other clients poll, one with the same TTL and one with a tenth of it, until 30 ms before the lease ends")
	_ = msg.Define("lease-kept.must", nil,
		"nobody acquires before the TTL the holder asked for has passed (tolerance: a tenth of the TTL, at least 20 ms)")
)

// lease-kept's check without a verdict.
var mKeptAllSpoiled = msg.Define("lease-kept.all-spoiled", msg.K(msg.Count),
	"in {0} runs, attempts took so long to return that no probe landed inside the TTL: the machine is too loaded to check")
