// Package peertest holds what the adapters' tests share: a go-redis client
// to the test binary's real Redis that records the commands it sends, and
// the checks every adapter must pass, called directly, outside the suite.
package peertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/redis/go-redis/v9"
)

// Recorder is a go-redis hook that keeps the commands a client sends,
// without its connection set-up (HELLO, CLIENT SETINFO): each as its name
// in upper case and its arguments, the key read as K.
type Recorder struct {
	mu   sync.Mutex
	key  string
	cmds []string
}

// SetKey makes the recorder write key as K.
func (r *Recorder) SetKey(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.key = key
}

// Reset forgets the commands recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cmds = nil
}

// Commands returns the commands recorded since the last Reset.
func (r *Recorder) Commands() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.cmds...)
}

func (r *Recorder) add(cmd redis.Cmder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch strings.ToUpper(cmd.Name()) {
	case "HELLO", "CLIENT": // go-redis sets up each new connection with them
		return
	}
	args := cmd.Args()
	words := make([]string, len(args))
	for i, a := range args {
		s := fmt.Sprint(a)
		if i == 0 {
			s = strings.ToUpper(s)
		}
		if s == r.key && r.key != "" {
			s = "K"
		}
		words[i] = s
	}
	r.cmds = append(r.cmds, strings.Join(words, " "))
}

// DialHook passes dials on.
func (r *Recorder) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook records every command.
func (r *Recorder) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.add(cmd)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook records every command of a pipeline.
func (r *Recorder) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			r.add(c)
		}
		return next(ctx, cmds)
	}
}

// Client returns a go-redis client to the test binary's Redis, closed when
// the test ends, with a Recorder of what it sends.
func Client(t *testing.T) (*redis.Client, *Recorder) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Shared(t).Addr})
	t.Cleanup(func() { rdb.Close() })
	rec := &Recorder{}
	rdb.AddHook(rec)
	return rdb, rec
}

// twoLocks builds a strategy with newLocks for each of two clients of
// their own, A's and B's, and returns the clients and the strategies.
func twoLocks(t *testing.T, newLocks func(rdb redis.UniversalClient) (strategy.Strategy, error)) (rdbA, rdbB *redis.Client, a, b strategy.Strategy) {
	t.Helper()
	rdbA, _ = Client(t)
	rdbB, _ = Client(t)
	var err error
	if a, err = newLocks(rdbA); err != nil {
		t.Fatal(err)
	}
	if b, err = newLocks(rdbB); err != nil {
		t.Fatal(err)
	}
	return rdbA, rdbB, a, b
}

// Basics checks what every adapter must do, on a real Redis, with two
// strategies built by newLocks on clients of their own: acquire a free
// key, be refused a taken one without disturbing it, release, be told on
// a second release and on a release of a lock that passed to someone
// else, and reject bad arguments.
func Basics(t *testing.T, newLocks func(rdb redis.UniversalClient) (strategy.Strategy, error)) {
	t.Helper()
	ctx := context.Background()
	rdbA, rdbB, a, b := twoLocks(t, newLocks)
	key := redistest.Key(t)
	ttl := 2 * time.Second

	la, err := a.TryAcquire(ctx, key, ttl)
	if err != nil {
		t.Fatalf("A: TryAcquire on a free key: %v", err)
	}
	if la.Key() != key {
		t.Errorf("Key() = %q, want %q", la.Key(), key)
	}
	held := get(t, rdbA, key)
	if left := rdbA.PTTL(ctx, key).Val(); left <= ttl-time.Second || left > ttl {
		t.Errorf("after TryAcquire with a TTL of %v, PTTL K = %v", ttl, left)
	}

	if _, err := b.TryAcquire(ctx, key, ttl); !errors.Is(err, strategy.ErrNotAcquired) {
		t.Errorf("B: TryAcquire on a held key: got %v, want ErrNotAcquired", err)
	}
	if v := get(t, rdbA, key); v != held {
		t.Errorf("B's failed attempt changed K from %q to %q", held, v)
	}

	if err := la.Release(ctx); err != nil {
		t.Fatalf("A: Release: %v", err)
	}
	if n := rdbA.Exists(ctx, key).Val(); n != 0 {
		t.Errorf("K still exists after A's release")
	}
	if err := la.Release(ctx); !errors.Is(err, strategy.ErrNotHeld) {
		t.Errorf("A: second Release: got %v, want ErrNotHeld", err)
	}

	// A lock that passed to B: A's late release must leave it alone.
	la, err = a.TryAcquire(ctx, key, ttl)
	if err != nil {
		t.Fatalf("A: TryAcquire again: %v", err)
	}
	if err := rdbA.Del(ctx, key).Err(); err != nil { // A's TTL "runs out"
		t.Fatal(err)
	}
	lb, err := b.TryAcquire(ctx, key, ttl)
	if err != nil {
		t.Fatalf("B: TryAcquire after A's key went: %v", err)
	}
	heldB := get(t, rdbB, key)
	if err := la.Release(ctx); !errors.Is(err, strategy.ErrNotHeld) {
		t.Errorf("A: Release of a lock B holds: got %v, want ErrNotHeld", err)
	}
	if v := get(t, rdbB, key); v != heldB {
		t.Errorf("A's late release changed B's K from %q to %q", heldB, v)
	}
	if err := lb.Release(ctx); err != nil {
		t.Errorf("B: Release: %v", err)
	}

	if _, err := a.TryAcquire(ctx, key, 0); !errors.Is(err, strategy.ErrInvalidTTL) {
		t.Errorf("TryAcquire with a TTL of 0: got %v, want ErrInvalidTTL", err)
	}
	if _, err := a.TryAcquire(ctx, "", ttl); !errors.Is(err, strategy.ErrInvalidKey) {
		t.Errorf("TryAcquire with an empty key: got %v, want ErrInvalidKey", err)
	}
}

// Refresh checks a lock that can be refreshed: Refresh sets the TTL it is
// given, on its own lock only, and says when the lock passed to someone
// else, leaving that one's key and TTL alone.
func Refresh(t *testing.T, newLocks func(rdb redis.UniversalClient) (strategy.Strategy, error)) {
	t.Helper()
	ctx := context.Background()
	rdbA, rdbB, a, b := twoLocks(t, newLocks)
	key := redistest.Key(t)
	la, err := a.TryAcquire(ctx, key, time.Second)
	if err != nil {
		t.Fatalf("A: TryAcquire: %v", err)
	}
	rf, ok := la.(strategy.Refresher)
	if !ok {
		t.Fatalf("%T does not implement strategy.Refresher", la)
	}
	for _, ttl := range []time.Duration{5 * time.Second, 300 * time.Millisecond} {
		if err := rf.Refresh(ctx, ttl); err != nil {
			t.Fatalf("A: Refresh(%v) of its own lock: %v", ttl, err)
		}
		if left := rdbA.PTTL(ctx, key).Val(); left <= ttl-200*time.Millisecond || left > ttl {
			t.Errorf("after Refresh(%v), PTTL K = %v", ttl, left)
		}
	}
	if err := rf.Refresh(ctx, 0); !errors.Is(err, strategy.ErrInvalidTTL) {
		t.Errorf("Refresh(0): got %v, want ErrInvalidTTL", err)
	}

	if err := rdbA.Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rf.Refresh(ctx, time.Second); !errors.Is(err, strategy.ErrNotHeld) {
		t.Errorf("A: Refresh of a lock whose key is gone: got %v, want ErrNotHeld", err)
	}
	if n := rdbA.Exists(ctx, key).Val(); n != 0 {
		t.Errorf("A's Refresh of a lock whose key was gone made K again")
	}
	lb, err := b.TryAcquire(ctx, key, 2*time.Second)
	if err != nil {
		t.Fatalf("B: TryAcquire: %v", err)
	}
	heldB := get(t, rdbB, key)
	if err := rf.Refresh(ctx, time.Minute); !errors.Is(err, strategy.ErrNotHeld) {
		t.Errorf("A: Refresh of a lock B holds: got %v, want ErrNotHeld", err)
	}
	if v := get(t, rdbB, key); v != heldB {
		t.Errorf("A's late Refresh changed B's K from %q to %q", heldB, v)
	}
	if left := rdbB.PTTL(ctx, key).Val(); left > 2*time.Second {
		t.Errorf("A's late Refresh extended B's lock: PTTL K = %v", left)
	}
	if err := lb.Release(ctx); err != nil {
		t.Errorf("B: Release: %v", err)
	}
}

func get(t *testing.T, rdb redis.UniversalClient, key string) string {
	t.Helper()
	v, err := rdb.Get(context.Background(), key).Result()
	if err != nil {
		t.Fatalf("GET K: %v", err)
	}
	return v
}
