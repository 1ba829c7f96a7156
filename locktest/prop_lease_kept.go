package locktest

import (
	"fmt"
	"time"

	"github.com/locklab/locklab/strategy"
)

// LeaseKept: while the holder is alive and not paused, nobody else can
// acquire before the TTL it asked for has passed. Other clients poll
// with the holder's TTL and with a much shorter one until the TTL less
// a tolerance of a tenth of it (at least 20ms).

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
func leaseKept(newRun func(string) *run) Result {
	res, refresher := keptRound(newRun, false)
	if res.Verdict != Holds || !refresher {
		return res
	}
	res, _ = keptRound(newRun, true)
	if res.Verdict == Holds {
		res.Reason += "; and again after A refreshed its lock to that TTL"
	}
	return res
}

// keptRound is one round of lease-kept; it reports whether A's lock can be
// refreshed. With refreshed, A acquires with the Short TTL and refreshes
// its lock to the lease-kept TTL at once.
func keptRound(newRun func(string) *run, refreshed bool) (res Result, refresher bool) {
	round := "acquire"
	if refreshed {
		round = "refresh"
	}
	for try := 1; try <= keptTries; try++ {
		r := newRun(fmt.Sprintf("/%s-try-%d", round, try))
		ttl, tol, short := r.tm.kept(), r.tm.keptTolerance(), r.tm.kept()/10
		a, b, c := r.newClient("A", 0), r.newClient("B", 0), r.newClient("C", 0)
		asked := time.Now()
		what, askedFor := "A holds the lock for a TTL of", "A asked for a TTL of"
		if !refreshed {
			la := a.tryAcquire(ttl)
			if la == nil {
				r.fail("A could not acquire a free lock")
			}
			_, refresher = la.(strategy.Refresher)
		} else {
			la := a.tryAcquire(r.tm.Short)
			if la == nil {
				r.fail("A could not acquire a free lock")
			}
			asked = time.Now()
			if err := a.refresh(la.(strategy.Refresher), ttl); err != nil {
				r.fail("A: Refresh of the lock it has just acquired: %v", err)
			}
			what, askedFor = "A refreshed its lock to a TTL of", "A's Refresh asked for a TTL of"
		}
		r.det.enter("A")
		until := asked.Add(ttl - tol)
		half := asked.Add((ttl - tol) / 2)
		r.note("%s %v (asked at t=%v); B polls with the same TTL until t=%v, then C alone with %v, until %v before the TTL ends", what, ttl,
			asked.Sub(r.rec.start).Round(time.Millisecond), half.Sub(r.rec.start).Round(time.Millisecond), short, tol)
		// probe makes one attempt; it says whether the run is over, with
		// the verdict in res, or spoiled by a slow machine.
		spoiled := false
		probe := func(w *simClient, wttl time.Duration) (over bool) {
			if w.tryAcquire(wttl) == nil {
				return false
			}
			// The server ran the winning attempt before it returned: if
			// that is still inside A's TTL, A's key went early.
			at := time.Since(asked)
			if at >= ttl {
				r.note("%s's attempt returned only %v after A's lease began, past its TTL: this run proves nothing", w.name, at.Round(time.Millisecond))
				spoiled = true
				return true
			}
			r.det.enter(w.name)
			res = r.breaks("%s acquired the lock %v after %s %v: A, alive and not paused, lost its lock at least %v early",
				w.name, at.Round(time.Millisecond), askedFor, ttl, (ttl - at).Round(time.Millisecond))
			return true
		}
		over := false
		for !over && time.Now().Before(half) {
			over = probe(b, ttl)
			time.Sleep(2 * r.tm.Poll)
		}
		for !over && time.Now().Before(until) {
			over = probe(c, short)
			time.Sleep(r.tm.outlast(short))
		}
		switch {
		case !over:
			return r.holds("nobody acquired the lock while A held it for %v (B polled with the same TTL, then C with %v, until %v before its end)", ttl, short, tol), refresher
		case !spoiled:
			return res, refresher
		}
		r.shutdown()
	}
	r := newRun("/spoiled")
	r.fail("lease-kept: in %d runs, attempts took so long to return that no probe landed inside the TTL: the machine is too loaded to check", keptTries)
	return Result{}, false
}
