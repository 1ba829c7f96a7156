package harness

import (
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest/internal/sim"
)

// staleLock is a copy of the key as a crashed holder leaves it once its TTL
// has passed, taken with DUMP so that every run can start from the same
// stale lock without waiting for it again.
type staleLock struct {
	Exists bool
	parts  []staleKey // K, or the keys the lock keeps its state under
	value  string     // the value at the first of them
}

// staleKey is one key of a stale lock: its name, with staleKeyMark where
// the run's key was (every run has a key of its own), its DUMP and its TTL
// left, in ms (0 for none).
type staleKey struct {
	key     string
	payload []byte
	pttl    int64
}

// staleKeyMark stands for the run's key in the name of a stale lock's key.
const staleKeyMark = "\x00K"

// MakeStale has a client H acquire the lock with a short TTL and crash, waits
// until the TTL has passed, and copies what is left at the key.
func MakeStale(newRun func(string) *Run) staleLock {
	r := newRun("/stale")
	h := r.NewClient("H", 0)
	h.MustAcquire(r.Tm.Short)
	h.Crash(MsgCrashHolding.New())
	time.Sleep(r.Tm.Short + r.Tm.StaleAfter())
	var s staleLock
	keys := r.LockKeys()
	r.Redis(func(c redis.Conn) error {
		for _, k := range keys {
			p, err := redis.Bytes(c.Do("DUMP", k))
			if err == redis.ErrNil {
				continue
			}
			if err != nil {
				return err
			}
			part := staleKey{key: strings.ReplaceAll(k, r.Key, staleKeyMark), payload: p}
			if part.pttl, err = redis.Int64(c.Do("PTTL", k)); err != nil {
				return err
			}
			part.pttl = max(part.pttl, 0) // -1: no TTL (RESTORE takes 0)
			if !s.Exists {
				s.Exists = true
				if s.value, err = redis.String(c.Do("GET", k)); err != nil && err != redis.ErrNil {
					return err
				}
			}
			s.parts = append(s.parts, part)
		}
		return nil
	})
	r.Shutdown()
	return s
}

// acquirePath is a way an acquire can go, and how many commands it takes.
type acquirePath struct {
	Name     string
	Stale    bool
	Commands int
}

// Probe counts the commands of a successful attempt on a free key and on a
// stale lock; a path where the attempt fails counts 0.
func Probe(newRun func(string) *Run, stale staleLock) []acquirePath {
	paths := []acquirePath{{Name: "free"}, {Name: "stale", Stale: true}}
	// A first lock and release, so that what a strategy does once per
	// server (load a script: EVALSHA, NOSCRIPT, EVAL) is not counted.
	WarmUp(newRun)
	for i := range paths {
		r := newRun("/probe-" + paths[i].Name)
		if paths[i].Stale {
			stale.Restore(r)
		}
		p := r.NewClient("P", 0)
		// What the factory sent (a client library's handshake) is not
		// part of the acquire.
		before := p.CommandsSent()
		if p.TryAcquire(r.Tm.Short) != nil {
			paths[i].Commands = p.CommandsSent() - before
		}
		r.Shutdown()
	}
	return paths
}

// WarmUp takes a lock and releases it, on a key of its own, so that what a
// strategy does only once per server (load a script: EVALSHA, NOSCRIPT,
// then EVAL, or SCRIPT LOAD and EVALSHA again) is done before commands are
// counted or interleavings replayed.
func WarmUp(newRun func(string) *Run) {
	w := newRun("/warm-up")
	if l := w.NewClient("W", 0).TryAcquire(w.Tm.Short); l != nil {
		w.Clients[0].Release(l)
	}
	w.Shutdown()
}

// Restore puts the stale lock at r's key.
func (s staleLock) Restore(r *Run) {
	r.Redis(func(c redis.Conn) error {
		if _, err := c.Do("DEL", r.Key); err != nil {
			return err
		}
		for _, p := range s.parts {
			k := strings.ReplaceAll(p.key, staleKeyMark, r.Key)
			if _, err := c.Do("DEL", k); err != nil {
				return err
			}
			if _, err := c.Do("RESTORE", k, p.pttl, p.payload); err != nil {
				return err
			}
		}
		return nil
	})
	if s.Exists {
		// H wrote the value, in the run that made the stale lock.
		v := r.Arg(s.value)
		if v.Kind == history.ArgText {
			r.Rec.Wrote("H", s.value)
		}
		r.Note(mStaleHolds.New(sim.ValueArg(v), r.Tm.Short))
	} else {
		r.Note(mStaleGone.New(r.Tm.Short))
	}
}
