// Package notify holds the release notifications that the strategies'
// WithNotify options share: one Pub/Sub connection per Strategy, on which
// each key's channel is subscribed while someone waits for it, and whose
// messages wake the waiters (see strategy.Notifier).
package notify

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

// What a release publishes decides how many waiters it wakes: a release
// that lets in one holder wakes one (a mutex's), one that may let in many
// wakes them all (a writer's, after which every reader may enter) or as
// many as it freed (a semaphore's n permits). A payload that is neither
// of these, such as the key that luatoken publishes, wakes one.
const (
	// WakeAll, published, wakes every waiter of the channel.
	WakeAll = "wake:all"
	// WakePrefix followed by a decimal n, published, wakes n waiters.
	WakePrefix = "wake:"
)

// Keep-alive of the shared subscription: a PING every pingEvery, and a
// connection that stays silent for liveness is taken as dead (where the
// connection supports read timeouts).
const (
	pingEvery = time.Second
	liveness  = 3 * pingEvery
)

// errNoReceiveTimeout is the error redigo returns, before any I/O, from
// ReceiveWithTimeout on a connection that does not support read timeouts
// (a pooled connection passes on the one of the connection it wraps).
// redigo does not export it; asking with no connection at all returns it.
var errNoReceiveTimeout = func() error {
	_, err := redis.ReceiveWithTimeout(nil, 0)
	return err
}()

// Reconnection delays of the shared subscription.
const (
	minReconnect = 10 * time.Millisecond
	maxReconnect = time.Second
)

// Hub multiplexes the subscriptions of one Strategy onto one connection.
//
// Each channel counts its waiters: the first sends SUBSCRIBE, the last to
// stop sends UNSUBSCRIBE. Replies come in the order the commands were sent,
// so a channel counts its commands in flight, and is subscribed when the
// last reply has come and the last command was a SUBSCRIBE. One goroutine
// (run) connects, reads, and reconnects; it exits, giving the connection
// back to the pool, once the last UNSUBSCRIBE is answered and no channel is
// left. Commands are written under mu, by whoever changes the state.
type Hub struct {
	name   string // the strategy's name, in errors
	prefix string // channel names are prefix + key
	pool   strategy.Pool

	mu       sync.Mutex
	chans    map[string]*channel
	running  bool               // a run goroutine exists
	cancel   context.CancelFunc // aborts run's connecting and waiting
	conn     redis.Conn         // subscribed connection; nil while (re)connecting
	failures uint64             // connection attempts that failed
	lastErr  error              // the error of the last one
}

type channel struct {
	waiters  map[*waiter]struct{}
	joined   uint64        // waiters ever added: each one's place in line
	want     bool          // the last command sent, or to send, is SUBSCRIBE
	inflight int           // commands sent on conn and not answered yet
	ready    bool          // subscribed on conn
	resub    bool          // was subscribed on a connection that broke
	changed  chan struct{} // closed and replaced when ready turns true or connecting fails
}

// waiter is one Acquire waiting on a channel; c holds at most one wake.
type waiter struct {
	c     chan struct{}
	place uint64 // lower: waiting longer
}

// NewHub returns the hub of a strategy called name (for its errors) on
// pool p, whose releases of key publish on channel prefix + key.
func NewHub(p strategy.Pool, name, prefix string) *Hub {
	return &Hub{name: name, prefix: prefix, pool: p, chans: make(map[string]*channel)}
}

// Subscribe implements strategy.Notifier for the strategy: the channel it
// returns receives after a release of key, until stop is called. It
// returns once the server has confirmed the subscription, so a release
// that happens after it returns is never missed. When the connection
// cannot be opened, it fails with a *strategy.OpError; when ctx ends
// first, the error matches strategy.ErrNotAcquired and ctx.Err(), as
// Acquire's does.
func (h *Hub) Subscribe(ctx context.Context, key string) (wake <-chan struct{}, stop func(), err error) {
	n := h.prefix + key
	ch, w, failures := h.add(n)
	var once sync.Once
	stop = func() { once.Do(func() { h.remove(n, w) }) }
	for {
		h.mu.Lock()
		if ch.ready {
			h.mu.Unlock()
			return w.c, stop, nil
		}
		if h.failures != failures {
			err := h.lastErr
			h.mu.Unlock()
			stop()
			return nil, nil, &strategy.OpError{Strategy: h.name, Op: "SUBSCRIBE", Key: key, Err: err}
		}
		changed := ch.changed
		h.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			stop()
			return nil, nil, fmt.Errorf("%s: %w: %q: %w", h.name, strategy.ErrNotAcquired, key, ctx.Err())
		}
	}
}

// add registers a waiter on channel n and subscribes the channel if it is
// new.
func (h *Hub) add(n string) (*channel, *waiter, uint64) {
	w := &waiter{c: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := h.chans[n]
	if ch == nil {
		ch = &channel{waiters: make(map[*waiter]struct{}), changed: make(chan struct{})}
		h.chans[n] = ch
	}
	ch.joined++
	w.place = ch.joined
	ch.waiters[w] = struct{}{}
	if !ch.want {
		ch.want = true
		if h.conn != nil {
			h.send(ch, "SUBSCRIBE", n)
		}
	}
	if !h.running {
		h.running = true
		var ctx context.Context
		ctx, h.cancel = context.WithCancel(context.Background())
		go h.run(ctx)
	}
	return ch, w, h.failures
}

// remove unregisters a waiter, and unsubscribes its channel if it was the
// last.
func (h *Hub) remove(n string, w *waiter) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := h.chans[n]
	if ch == nil {
		return
	}
	delete(ch.waiters, w)
	if len(ch.waiters) > 0 {
		select {
		case <-w.c:
			// Woken for a release it did not use: pass the wake on, or
			// the others would sleep until their next poll.
			ch.wakeOne()
		default:
		}
		return
	}
	ch.want, ch.ready, ch.resub = false, false, false
	if h.conn != nil {
		h.send(ch, "UNSUBSCRIBE", n)
	}
	if ch.inflight == 0 {
		delete(h.chans, n)
	}
	if len(h.chans) == 0 && h.conn == nil && h.cancel != nil {
		h.cancel() // stop connecting: nobody waits any more
	}
}

// send writes a command for ch on the connection. h.mu is held. A write
// error breaks the connection; run sees it when it reads, and reconnects.
func (h *Hub) send(ch *channel, cmd string, n string) {
	ch.inflight++
	if err := h.conn.Send(cmd, n); err == nil {
		_ = h.conn.Flush()
	}
}

// run connects, subscribes every channel, and reads, until no channel is
// left.
func (h *Hub) run(ctx context.Context) {
	delay := time.Duration(0)
	for {
		h.mu.Lock()
		if len(h.chans) == 0 {
			h.running = false
			h.cancel()
			h.mu.Unlock()
			return
		}
		if ctx.Err() != nil { // cancelled, but someone came back
			ctx, h.cancel = context.WithCancel(context.Background())
		}
		h.mu.Unlock()

		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				continue
			}
		}
		delay = min(max(2*delay, minReconnect), maxReconnect)

		conn, err := h.pool.GetContext(ctx)
		if err != nil {
			if ctx.Err() == nil {
				h.fail(err)
			}
			continue
		}
		if ok, err := h.subscribeAll(conn); !ok {
			conn.Close()
			if err != nil {
				h.fail(err)
			}
			continue
		}
		if h.read(conn) {
			conn.Close() // all unsubscribed: back to the pool
			return
		}
		conn.Close()
		delay = 0 // it worked for a while: reconnect at once
	}
}

// subscribeAll makes conn the connection and subscribes every channel on it.
// It reports false, with the error if any, when conn is not to be used: the
// write failed, or every waiter left while it connected.
func (h *Hub) subscribeAll(conn redis.Conn) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	names := make([]any, 0, len(h.chans))
	for n, ch := range h.chans {
		if ch.want {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return false, nil
	}
	for _, n := range names {
		h.chans[n.(string)].inflight++
	}
	h.conn = conn
	err := conn.Send("SUBSCRIBE", names...)
	if err == nil {
		err = conn.Flush()
	}
	if err != nil {
		h.dropLocked()
		return false, err
	}
	return true, nil
}

// fail records a failed connection attempt: the Subscribe calls that wait for
// their channel fail with err.
func (h *Hub) fail(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failures++
	h.lastErr = err
	for _, ch := range h.chans {
		ch.broadcast()
	}
}

// dropLocked forgets the connection, which broke. Channels that were
// subscribed wake their waiters, who may have missed a release. h.mu is
// held.
func (h *Hub) dropLocked() {
	h.conn = nil
	for n, ch := range h.chans {
		ch.inflight = 0
		if len(ch.waiters) == 0 {
			delete(h.chans, n)
			continue
		}
		if ch.ready {
			ch.ready, ch.resub = false, true
			ch.wake()
		}
	}
}

// read reads from conn until it breaks (false) or until the last channel is
// unsubscribed (true). It keeps conn alive with PINGs.
func (h *Hub) read(conn redis.Conn) (done bool) {
	var ping *time.Timer
	h.mu.Lock() // the timer's function reads ping under h.mu
	ping = time.AfterFunc(pingEvery, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.conn == conn { // a broken connection shows in read
			if err := conn.Send("PING"); err == nil {
				_ = conn.Flush()
			}
			ping.Reset(pingEvery)
		}
	})
	h.mu.Unlock()
	defer ping.Stop()
	timeouts := true
	for {
		var reply any
		var err error
		if timeouts {
			reply, err = redis.ReceiveWithTimeout(conn, liveness)
			if err != nil && err == errNoReceiveTimeout {
				timeouts = false
				continue
			}
		} else {
			reply, err = conn.Receive()
		}
		if err != nil {
			h.mu.Lock()
			h.dropLocked()
			h.mu.Unlock()
			return false
		}
		if h.handle(reply) {
			return true
		}
	}
}

// handle takes one reply of the subscribed connection, and reports whether
// the connection is done: no subscription on it, and no channel left.
func (h *Hub) handle(reply any) bool {
	vs, ok := reply.([]any)
	if !ok || len(vs) < 3 {
		return false // a PONG outside subscribed mode, or something unexpected
	}
	kind, _ := redis.String(vs[0], nil)
	n, _ := redis.String(vs[1], nil)
	h.mu.Lock()
	defer h.mu.Unlock()
	switch kind {
	case "message":
		if ch := h.chans[n]; ch != nil {
			payload, _ := redis.String(vs[2], nil)
			ch.wakeFor(payload)
		}
	case "subscribe", "unsubscribe":
		if ch := h.chans[n]; ch != nil && ch.inflight > 0 {
			ch.inflight--
			if ch.inflight == 0 {
				if ch.want {
					ch.ready = true
					ch.broadcast()
					if ch.resub {
						ch.resub = false
						ch.wake()
					}
				} else {
					delete(h.chans, n)
				}
			}
		}
		count, _ := redis.Int(vs[2], nil)
		if count == 0 && len(h.chans) == 0 {
			h.conn = nil
			h.running = false
			h.cancel()
			return true
		}
	}
	return false
}

// wakeFor wakes the waiters a message's payload asks for.
func (ch *channel) wakeFor(payload string) {
	if payload == WakeAll {
		ch.wake()
		return
	}
	n := 1
	if c, ok := strings.CutPrefix(payload, WakePrefix); ok {
		if m, err := strconv.Atoi(c); err == nil && m > 1 {
			n = m
		}
	}
	for range n {
		ch.wakeOne()
	}
}

// State returns how many channels the hub tracks and whether its
// goroutine runs, for tests.
func (h *Hub) State() (channels int, running bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.chans), h.running
}

// broadcast tells the Subscribe calls waiting on ch to look again.
func (ch *channel) broadcast() {
	close(ch.changed)
	ch.changed = make(chan struct{})
}

// wakeOne tells one waiter of ch that the lock may be free: the one waiting
// longest among those not woken already. One release frees the lock for one
// holder, so waking every waiter would only make the rest fail again (a
// thundering herd); a waiter that leaves without using its wake passes it
// on (see remove).
func (ch *channel) wakeOne() {
	var first *waiter
	for w := range ch.waiters {
		if len(w.c) == 0 && (first == nil || w.place < first.place) {
			first = w
		}
	}
	if first != nil {
		first.c <- struct{}{}
	}
}

// wake tells every waiter of ch that the lock may be free: after the
// subscription broke, when releases may have been missed.
func (ch *channel) wake() {
	for w := range ch.waiters {
		select {
		case w.c <- struct{}{}:
		default:
		}
	}
}
