package locktest

import (
	"time"
)

// RestartAmnesia: a master holding A's lock restarts without
// persistence and comes back empty (after Config.RestartDelay); B must
// not acquire while A holds the lock. Over several masters, A holds a
// bare majority and one master of it restarts.

// restartAmnesia: A holds K; a master holding A's lock restarts without
// persistence (no RDB, no AOF) and comes back empty, at once or, with
// Config.RestartDelay, after that long; B tries to acquire. Over several
// masters, A first locks a bare majority, and the master restarted is one
// of it.
func restartAmnesia(newRun func(string) *run) Result {
	r := newRun("")
	m := r.startMasters()
	l, node := holderOnMajority(r, m)
	if l == nil {
		return r.notApplicable("A could not acquire K with a minority of the masters out of reach: see minority-down")
	}
	if err := node.Kill(); err != nil {
		r.fail("killing %s: %v", node.Name, err)
	}
	if r.restartDelay == 0 {
		r.note("%s restarts without persistence: it comes back empty, without A's lock", r.label(node))
		if err := node.Start(r.ctx); err != nil {
			r.fail("starting %s again: %v", node.Name, err)
		}
	} else {
		r.note("%s dies; it will come back empty after %v (a delayed restart)", r.label(node), r.restartDelay)
		t := time.AfterFunc(r.restartDelay, func() { _ = node.Start(r.ctx) }) // fails harmlessly once the run has closed it
		r.mu.Lock()
		r.atEnd = append(r.atEnd, func() { t.Stop() })
		r.mu.Unlock()
	}
	wait := r.tm.Slack
	if contend(r, wait) {
		return r.breaks("B acquired K while A still held it: %s had restarted without persistence and forgotten A's lock", r.label(node))
	}
	if broke := obtainable(r, r.client("A"), l, "the restart of "+r.label(node)); broke != nil {
		return *broke
	}
	if r.restartDelay > 0 {
		return r.holds("B could not acquire K in %v while %s stayed down (a delayed restart of %v)", wait, r.label(node), r.restartDelay)
	}
	return r.holds("B could not acquire K in %v after %s restarted empty", wait, r.label(node))
}
