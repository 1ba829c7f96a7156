package leasecheck

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
)

// Recorder wraps a Factory so that every lock call of every client is
// recorded, per key: a check runs each of its runs (an interleaving, a
// phase of a scenario) on a key of its own, so a key's operations are
// one run's history. A Result keeps its history only when it is a
// break; the recorder keeps every run's, holds included, though without
// the critical section, which only the suite sees.
//
// Only the lock calls cross the wrapper: a strategy that announces more
// than TryAcquire and Subscribe (strategy.Granular, Keyed, OwnClock, or
// a kind's interface) is passed through unwrapped, since hiding what it
// announces would change what the suite does with it; Skipped says so.
// A lock is wrapped when it is plain, a Refresher, or a Refresher that is
// also Fenced and Leased (luatoken's); otherwise it too is passed
// through, and its release goes unrecorded (Unrecorded counts them).
//
// What the suite itself does to the lock's keys is not a lock call and
// is missing from what it records: acquire-faults deletes K between two
// faults so that the next finds it free, which ends the holder's lease
// with no release in the history. Porcupine may then reject a refusal
// that the lock had every reason to give (a faulted acquire that
// stamped the freed key a few milliseconds later than usual), and does,
// now and then, for getsetexpire.
type Recorder struct {
	mu         sync.Mutex
	start      time.Time
	ops        map[string][]Op
	skipped    bool
	unrecorded int
	holds      int // the grants so far: each lock's hold id
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{start: time.Now(), ops: map[string][]Op{}} }

// Wrap returns f, recording.
func (r *Recorder) Wrap(f locktest.Factory) locktest.Factory {
	return func(c locktest.Client) (strategy.Strategy, error) {
		s, err := f(c)
		if err != nil || s == nil {
			return s, err
		}
		switch s.(type) {
		case strategy.Granular, strategy.Keyed, strategy.OwnClock,
			strategy.Shared, strategy.Counting, strategy.Weighted:
			r.mu.Lock()
			r.skipped = true
			r.mu.Unlock()
			return s, nil
		}
		rs := &recorded{s: s, r: r, client: c.Name}
		if n, ok := s.(strategy.Notifier); ok {
			return &notifying{recorded: rs, n: n}, nil
		}
		return rs, nil
	}
}

// notifying is a recorded strategy that announces releases.
type notifying struct {
	*recorded
	n strategy.Notifier
}

func (s *notifying) Subscribe(ctx context.Context, key string) (<-chan struct{}, func(), error) {
	return s.n.Subscribe(ctx, key)
}

// Histories returns the runs recorded, by key in the order of their
// first call, each with tolerance tol.
func (r *Recorder) Histories(tol time.Duration) []History {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []History
	for key, ops := range r.ops {
		out = append(out, History{Key: key, Ops: slices.Clone(ops), Tol: tol})
	}
	slices.SortFunc(out, func(a, b History) int { return cmp.Compare(a.Ops[0].Call, b.Ops[0].Call) })
	return out
}

// Skipped says whether a strategy was passed through unwrapped.
func (r *Recorder) Skipped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skipped
}

// Unrecorded is how many locks were passed through unwrapped.
func (r *Recorder) Unrecorded() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.unrecorded
}

func (r *Recorder) now() time.Duration { return time.Since(r.start) }

// add records op on key. A call that has not returned is recorded when
// it does; one that never returns (a crashed client's) is not.
func (r *Recorder) add(key string, op Op) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops[key] = append(r.ops[key], op)
}

// outcomeOf reads a lock call's error.
func outcomeOf(err error, refused error) Outcome {
	switch {
	case err == nil:
		return OK
	case errors.Is(err, refused):
		return Refused
	}
	return Unknown
}

// recorded is a client's strategy, recording.
type recorded struct {
	s      strategy.Strategy
	r      *Recorder
	client string
}

func (s *recorded) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	call := s.r.now()
	l, err := s.s.TryAcquire(ctx, key, ttl)
	op := Op{Client: s.client, Kind: Acquire, Outcome: outcomeOf(err, strategy.ErrNotAcquired), Call: call, Return: s.r.now(), TTL: ttl}
	switch {
	case err == nil && l == nil:
		op.Outcome = Unknown
	case err == nil:
		// Each lock its own hold: a release ends the hold of the lock
		// it is called on, not the client's last (two goroutines of one
		// client may hold a lock each).
		s.r.mu.Lock()
		s.r.holds++
		op.Hold = s.r.holds
		s.r.mu.Unlock()
	}
	if lease, ok := l.(strategy.Leased); ok {
		_, op.Renews = lease.Lease()
	}
	s.r.add(key, op)
	if err != nil || l == nil {
		return l, err
	}
	h := heldLock{l: l, r: s.r, client: s.client, key: key, hold: op.Hold}
	rf, refresher := l.(strategy.Refresher)
	fenced, isFenced := l.(strategy.Fenced)
	leased, isLeased := l.(strategy.Leased)
	switch {
	case !refresher && !isFenced && !isLeased:
		return &h, nil
	case refresher && !isFenced && !isLeased:
		return &refreshLock{heldLock: h, rf: rf}, nil
	case refresher && isFenced && isLeased:
		return &fullLock{refreshLock: refreshLock{heldLock: h, rf: rf}, fenced: fenced, leased: leased}, nil
	}
	s.r.mu.Lock()
	s.r.unrecorded++
	s.r.mu.Unlock()
	return l, nil
}

// heldLock is a plain lock, recording its release.
type heldLock struct {
	l           strategy.Lock
	r           *Recorder
	client, key string
	hold        int
}

func (l *heldLock) Key() string { return l.l.Key() }

func (l *heldLock) Release(ctx context.Context) error {
	call := l.r.now()
	err := l.l.Release(ctx)
	l.r.add(l.key, Op{Client: l.client, Hold: l.hold, Kind: Release, Outcome: outcomeOf(err, strategy.ErrNotHeld), Call: call, Return: l.r.now()})
	return err
}

// refreshLock is a Refresher, recording its refreshes too.
type refreshLock struct {
	heldLock
	rf strategy.Refresher
}

func (l *refreshLock) Refresh(ctx context.Context, ttl time.Duration) error {
	call := l.r.now()
	err := l.rf.Refresh(ctx, ttl)
	l.r.add(l.key, Op{Client: l.client, Hold: l.hold, Kind: Refresh, Outcome: outcomeOf(err, strategy.ErrNotHeld), Call: call, Return: l.r.now(), TTL: ttl})
	return err
}

// fullLock is a Refresher that is Fenced and Leased.
type fullLock struct {
	refreshLock
	fenced strategy.Fenced
	leased strategy.Leased
}

func (l *fullLock) FencingToken() (int64, bool)    { return l.fenced.FencingToken() }
func (l *fullLock) Lease() (context.Context, bool) { return l.leased.Lease() }
