package locktest

import (
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
)

// staleLock is a copy of the key as a crashed holder leaves it once its TTL
// has passed, taken with DUMP so that every run can start from the same
// stale lock without waiting for it again.
type staleLock struct {
	exists  bool
	payload []byte
	pttl    int64 // the key's TTL left, in ms; 0 for none
	value   string
}

// makeStale has a client H acquire the lock with a short TTL and crash, waits
// until the TTL has passed, and copies what is left at the key.
func makeStale(newRun func(string) *run) staleLock {
	r := newRun("/stale")
	h := r.newClient("H", 0)
	if h.tryAcquire(r.tm.Short) == nil {
		r.fail("H could not acquire a free lock")
	}
	h.crash("crashes holding the lock")
	time.Sleep(r.tm.Short + r.tm.staleAfter())
	var s staleLock
	r.redis(func(c redis.Conn) error {
		p, err := redis.Bytes(c.Do("DUMP", r.key))
		if err == redis.ErrNil {
			return nil
		}
		if err != nil {
			return err
		}
		s.exists, s.payload = true, p
		if s.pttl, err = redis.Int64(c.Do("PTTL", r.key)); err != nil {
			return err
		}
		s.pttl = max(s.pttl, 0) // -1: no TTL (RESTORE takes 0)
		s.value, err = redis.String(c.Do("GET", r.key))
		return err
	})
	r.shutdown()
	return s
}

// restore puts the stale lock at the run's key.
func (r *run) restore(s staleLock) {
	r.redis(func(c redis.Conn) error {
		if _, err := c.Do("DEL", r.key); err != nil || !s.exists {
			return err
		}
		_, err := c.Do("RESTORE", r.key, s.pttl, s.payload)
		return err
	})
	if s.exists {
		// H wrote the value, in the run that made the stale lock.
		v := r.arg(s.value)
		if v.Kind == ArgText {
			r.rec.wrote("H", s.value)
		}
		args := []Arg{{Kind: ArgText, Text: "K holds "}, v,
			{Kind: ArgText, Text: fmt.Sprintf(", left by a holder that crashed: its TTL (%v) has passed", r.tm.Short)}}
		r.rec.add(Event{Kind: EvNote, Text: joinArgs(args, ""), TextArgs: args})
	} else {
		r.note("K is gone: its holder crashed and the key expired after %v", r.tm.Short)
	}
}

// redis runs f on a connection of the suite's own, outside every client.
func (r *run) redis(f func(redis.Conn) error) {
	c, err := r.pool.GetContext(r.ctx)
	if err != nil {
		r.fail("suite connection: %v", err)
	}
	defer c.Close()
	if err := f(c); err != nil {
		r.fail("suite command: %v", err)
	}
}

// acquirePath is a way an acquire can go, and how many commands it takes.
type acquirePath struct {
	name     string
	stale    bool
	commands int
}

// probe counts the commands of a successful attempt on a free key and on a
// stale lock; a path where the attempt fails counts 0.
func probe(newRun func(string) *run, stale staleLock) []acquirePath {
	paths := []acquirePath{{name: "free"}, {name: "stale", stale: true}}
	// A first lock and release, so that what a strategy does once per
	// server (load a script: EVALSHA, NOSCRIPT, EVAL) is not counted.
	warmUp(newRun)
	for i := range paths {
		r := newRun("/probe-" + paths[i].name)
		if paths[i].stale {
			r.restore(stale)
		}
		p := r.newClient("P", 0)
		// What the factory sent (a client library's handshake) is not
		// part of the acquire.
		before := p.commandsSent()
		if p.tryAcquire(r.tm.Short) != nil {
			paths[i].commands = p.commandsSent() - before
		}
		r.shutdown()
	}
	return paths
}

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

// warmUp takes a lock and releases it, on a key of its own, so that what a
// strategy does only once per server (load a script: EVALSHA, NOSCRIPT,
// then EVAL, or SCRIPT LOAD and EVALSHA again) is done before commands are
// counted or interleavings replayed.
func warmUp(newRun func(string) *run) {
	w := newRun("/warm-up")
	if l := w.newClient("W", 0).tryAcquire(w.tm.Short); l != nil {
		w.clients[0].release(l)
	}
	w.shutdown()
}
