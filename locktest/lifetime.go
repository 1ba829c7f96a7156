package locktest

import (
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

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
		probe := func(w *client, wttl time.Duration) (over bool) {
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

// safeRefresh: at each boundary of its Refresh in turn, A is paused until
// its TTL has passed and B has acquired; then A's refresh goes on. It must
// fail, leave B's lock no longer than B asked for, and leave it held.
func safeRefresh(newRun func(string) *run) Result {
	ops := countOps(newRun)
	if !ops.refresher {
		r := newRun("/none")
		return r.notApplicable("the lock cannot be refreshed: it does not implement strategy.Refresher")
	}
	n := ops.refresh
	var last *run
	for k := range max(n, 1) {
		r, a, b, c, la := lateHolder(newRun, k)
		last = r
		rf, ok := la.(strategy.Refresher)
		if !ok {
			r.fail("A's lock does not implement strategy.Refresher, although an earlier one did")
		}
		var err error
		p := a.pauseInside(k, n, "refresh", func() { err = a.refresh(rf, 3*r.tm.Long) })
		if !p.reached {
			r.shutdown()
			continue
		}
		lb, held, broke, why := r.takeoverWhilePaused(p, b, c)
		if lb == nil {
			return r.notApplicable("nobody else acquired the lock while A was paused: %s", why)
		}
		r.det.enter("B")
		at := boundaryText(k, n, "refresh")
		if broke != "" {
			return r.breaks("A was paused %s until B acquired; when A resumed, %s", at, broke)
		}
		if err == nil {
			r.det.enter("A")
			return r.breaks("A was paused %s until its TTL ran out and B acquired; when A resumed, its Refresh reported success: A would go on working while B holds the lock", at)
		}
		if left := r.pttl(); left > r.tm.Long+r.tm.Slack/5 {
			return r.breaks("A was paused %s until B acquired; A's late Refresh (for %v) failed, but B's lock now expires in %v, past the %v B asked for", at, 3*r.tm.Long, left, r.tm.Long)
		}
		freed := whoFreed(r, held, "A's late Refresh")
		if c.tryAcquire(r.tm.Long) != nil {
			return r.breaks("A was paused %s until B acquired; then %s", at, freed)
		}
		r.shutdown()
	}
	if n <= 1 {
		return last.holds("A's late Refresh, paused before its one command until B had acquired, failed and left B's lock as B took it")
	}
	return last.holds("A's late Refresh, paused at each of the %d boundaries of its %d-command refresh in turn, failed and left B's lock as B took it", n, n)
}

// pttl reads how long the run's key has left, as the suite sees it: 0 when
// the key is gone or does not expire (the lock may live elsewhere).
func (r *run) pttl() time.Duration {
	return time.Duration(max(r.readPTTL(), 0)) * time.Millisecond
}

// readPTTL reads PTTL K on the suite's own connection and notes it: -1 for
// a key without expiry, -2 for none.
func (r *run) readPTTL() int64 {
	var ms int64
	r.redis(func(c redis.Conn) error {
		var err error
		ms, err = redis.Int64(c.Do("PTTL", r.key))
		return err
	})
	r.note("the suite reads PTTL K: %d", ms)
	return ms
}

// unexpired says why nobody else could acquire a lock whose TTL, asked
// after ago, has passed, from what K shows now (call it before the holder
// resumes, whose release would delete K): no expiry at all, or an expiry
// pushed back or set longer than asked. It gives no figure, which would
// differ from run to run; the PTTL read is in the timeline.
func (r *run) unexpired(asked, after time.Duration) string {
	switch ms := r.readPTTL(); {
	case ms == -1:
		return "K has no expiry, so the lock never expires"
	case ms >= 0:
		return fmt.Sprintf("K was still there %v after a TTL of %v was asked: its expiry was set longer than asked, or pushed back since (by the holder's renewals, or by other clients' commands)", after, asked)
	default:
		return "the lock is not at K, and K did not expire"
	}
}

// lifeLeft says what K shows about a lock that outlived the TTL asked, a
// wait after it was taken: no expiry at all, or an expiry later than the
// TTL allows: set so, or pushed back since (the timeline shows who touched
// K in between).
func (r *run) lifeLeft(asked, after time.Duration) string {
	switch ms := r.readPTTL(); {
	case ms == -1:
		return "K has no expiry: the lock never expires"
	case ms >= 0:
		left := time.Duration(ms) * time.Millisecond
		return fmt.Sprintf("K still had %v to live %v after a TTL of %v was asked: its expiry was set longer than asked or pushed back since, by the commands the timeline shows", left, after, asked)
	default:
		return "the lock is not at K, and did not expire"
	}
}
