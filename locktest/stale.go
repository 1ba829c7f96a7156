package locktest

import (
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
	h.crash(mCrashHolding.New())
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
