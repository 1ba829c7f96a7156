package rwlua

import (
	"context"
	"sync"
	"time"
)

// rooms are the waiters of one Strategy, per key, that a release made
// through the same Strategy wakes in the process, without a message
// through Redis: when a release leaves the lock free, one writer waiting
// for it wakes if any waits (writers come first, and the readers would
// be refused while its intent stands), and otherwise every reader. A
// release made elsewhere, or a hold that expires, wakes nobody here: the
// waiters find out at their next retry, or by WithNotify's message.
//
// Readers woken so have their turn: a writer of the Strategy that tries
// the key before they have all tried waits for them first (turnWait at
// most), so that a writer that takes the lock again as soon as it has
// released it does not shut out, every time, the readers its release
// woke.
type rooms struct {
	mu   sync.Mutex
	keys map[string]*room
}

// room is the waiters of one key. Each waiter's channel holds at most one
// wake.
type room struct {
	writers, readers map[chan struct{}]struct{}
	woken            int           // readers woken that have not tried since
	turn             chan struct{} // closed when woken comes back to 0
}

// turnWait is the longest a writer waits for the readers woken before it
// to try: a woken reader may have gone elsewhere, or be slow to run.
const turnWait = time.Millisecond

// wait registers a waiter for key, a reader's or a writer's, and returns
// its channel and the function that ends its wait.
func (rs *rooms) wait(key string, reader bool) (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	rs.mu.Lock()
	if rs.keys == nil {
		rs.keys = make(map[string]*room)
	}
	r := rs.keys[key]
	if r == nil {
		r = &room{writers: make(map[chan struct{}]struct{}), readers: make(map[chan struct{}]struct{})}
		rs.keys[key] = r
	}
	mine := r.writers
	if reader {
		mine = r.readers
	}
	mine[c] = struct{}{}
	rs.mu.Unlock()
	var once sync.Once
	return c, func() {
		once.Do(func() {
			rs.mu.Lock()
			defer rs.mu.Unlock()
			delete(mine, c)
			if reader && len(c) > 0 {
				r.tried() // woken, it will not try
			}
			switch {
			case len(r.writers)+len(r.readers) == 0:
				// Nobody waits: no woken reader is left to try.
				if r.turn != nil {
					close(r.turn)
				}
				delete(rs.keys, key)
			case len(c) > 0 && !reader:
				// A writer woken that did not use its wake (it gave
				// up, or took the lock by an attempt of its own):
				// pass the wake on, or the others would sleep until
				// their next retry.
				r.wake()
			}
		})
	}
}

// freed wakes the waiters of key after a release through this Strategy
// left it free.
func (rs *rooms) freed(key string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.keys[key]; r != nil {
		r.wake()
	}
}

// wake wakes one writer not woken already, or, when no writer waits,
// every reader. A writer woken already and still waiting is enough: the
// readers would be refused while it tries.
func (r *room) wake() {
	if len(r.writers) > 0 {
		for c := range r.writers {
			if len(c) == 0 {
				c <- struct{}{}
				return
			}
		}
		return
	}
	for c := range r.readers {
		select {
		case c <- struct{}{}:
			r.woken++
		default:
		}
	}
	if r.woken > 0 && r.turn == nil {
		r.turn = make(chan struct{})
	}
}

// tried counts a woken reader's turn as taken.
func (r *room) tried() {
	if r.woken == 0 {
		return
	}
	if r.woken--; r.woken == 0 {
		close(r.turn)
		r.turn = nil
	}
}

// reading is called as a reader of the Strategy tries key: a woken
// reader's turn is taken.
func (rs *rooms) reading(key string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.keys[key]; r != nil {
		r.tried()
		if r.turn == nil && len(r.writers)+len(r.readers) == 0 {
			delete(rs.keys, key)
		}
	}
}

// writing is called as a writer of the Strategy tries key: it waits, for
// turnWait at most, until the readers woken before it have tried.
func (rs *rooms) writing(ctx context.Context, key string) {
	rs.mu.Lock()
	var turn chan struct{}
	if r := rs.keys[key]; r != nil {
		turn = r.turn
	}
	rs.mu.Unlock()
	if turn == nil {
		return
	}
	t := time.NewTimer(turnWait)
	defer t.Stop()
	select {
	case <-turn:
	case <-t.C:
	case <-ctx.Done():
	}
}
