package locktest

import (
	"sync"

	"github.com/locklab/locklab/strategy"
)

// FencedOverrun: the holder is paused past its TTL, another client
// acquires and writes to a protected resource; the first one's late
// write, when it wakes up, must be refused. The resource refuses a write whose fencing token is below
// the highest it has seen; a lock without tokens cannot be protected.

// The fixes for the holder that overruns its lease: fencing tokens, checked
// by the resource, and renewal, which tells the holder when its lease is
// lost. Each is a property of its own, run on every strategy like the rest.

// resource stands for the storage a lock protects. It remembers the highest
// fencing token it has accepted and refuses writes with a lower one.
type resource struct {
	r       *run
	mu      sync.Mutex
	highest int64
	writes  []string
}

// write accepts or refuses a write from who; fenced says whether who's lock
// has a token at all.
func (res *resource) write(who string, lock strategy.Lock) bool {
	res.mu.Lock()
	defer res.mu.Unlock()
	token, fenced := strategy.FencingToken(lock)
	if !fenced {
		res.writes = append(res.writes, who)
		res.r.note("resource accepts %s's write: its lock has no fencing token to check", who)
		return true
	}
	if token < res.highest {
		res.r.note("resource refuses %s's write: fencing token %d < %d", who, token, res.highest)
		return false
	}
	res.highest = token
	res.writes = append(res.writes, who)
	res.r.note("resource accepts %s's write with fencing token %d", who, token)
	return true
}

// fencedOverrun: A is paused past its TTL, B acquires and writes, then A
// wakes up and writes: Kleppmann's example for fencing tokens.
func fencedOverrun(newRun func(string) *run) Result {
	r := newRun("")
	a, b := r.newClient("A", 0), r.newClient("B", 0)
	res := &resource{r: r}
	la, lb, _, why := overrunTakeover(r, a, b, false, true)
	if lb == nil {
		return r.notApplicable("nobody else acquired the lock while A was paused past its TTL: %s", why)
	}
	res.write("B", lb)
	if res.write("A", la) {
		return r.breaks("A's lease had passed to B, yet the resource accepted A's late write after B's")
	}
	return r.holds("the resource refused A's late write: its fencing token was older than B's")
}
