package locktest

import (
	"fmt"
)

// CrashMidAcquire: a client dies between the commands of its acquire,
// after each command in turn; a waiter must still get the lock.

// crashMidAcquire: for every way an acquire can go, and every point between
// two of its commands, A dies there; B must still get the lock.
func crashMidAcquire(newRun func(string) *run) Result {
	stale := makeStale(newRun)
	split := false
	var last *run
	for _, path := range probe(newRun, stale) {
		for k := 1; k < path.commands; k++ {
			split = true
			r := newRun(fmt.Sprintf("/%s-%d", path.name, k))
			last = r
			if path.stale {
				r.restore(stale)
			}
			a, b := r.newClient("A", 0), r.newClient("B", 0)
			a.mu.Lock()
			a.crashAfter = a.sent + k
			a.mu.Unlock()
			if l := a.tryAcquire(r.tm.Short); l != nil {
				a.crash("crashes holding the lock")
			}
			wait := r.tm.Short + r.tm.Slack
			r.note("B waits up to %v (TTL %v + slack)", wait, r.tm.Short)
			if b.acquire(r.tm.Short, wait) == nil {
				return r.breaks("A died after command %d of %d of its acquire on a %s lock, and B still could not acquire it %v later", k, path.commands, path.name, wait)
			}
			r.shutdown()
		}
	}
	if !split {
		r := newRun("/none")
		return r.notApplicable("a successful acquire sends a single command, on a free key and on a stale lock: there is no boundary between commands to die at")
	}
	return last.holds("wherever A died inside its acquire, B got the lock within the TTL")
}
