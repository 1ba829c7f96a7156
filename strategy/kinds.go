package strategy

import (
	"context"
	"time"
)

// Locks that are not mutexes. A read-write lock and a semaphore are a
// Strategy too: TryAcquire is the writer's acquire, or the acquire of one
// permit, so that every helper of this package (Acquire, Retry, Notifier)
// and every mutex property of the conformance suite applies to them as
// they are. What they add are optional interfaces, beside Refresher,
// Leased and Keyed, from which the suite learns a lock's kind (KindOf).

// Shared is implemented by read-write locks. TryAcquire takes key
// exclusively, as a writer; TryAcquireShared takes it shared, as a
// reader: readers hold it together, and a writer excludes readers and
// writers alike. It returns ErrNotAcquired (possibly wrapped) while a
// writer holds key, or, by the lock's policy, while one waits.
type Shared interface {
	Strategy
	TryAcquireShared(ctx context.Context, key string, ttl time.Duration) (Lock, error)
}

// WriterFirst is implemented by read-write locks that let a waiting
// writer in before new readers: a write attempt that finds the lock held
// may keep new readers out for WriterIntent after it, whether or not the
// writer tries again. A checker counts that wait as the lock's policy,
// not as a lock that stays taken. (locktest finds the policy of a lock
// that does not declare it, and then waits up to 10 s for its intent.)
type WriterFirst interface {
	Shared
	WriterIntent() time.Duration
}

// Reentrant is implemented by read-write locks whose holder may hold
// several locks on a key at once, as a Redisson thread does: the Shared
// that Reentrant returns is one holder, whose acquires reenter its own
// holds, and which may read while it writes; each of its locks is
// released on its own.
type Reentrant interface {
	Shared
	Reentrant() Shared
}

// Counting is implemented by semaphores: key is held by at most
// Permits() holders at once, and TryAcquire takes one permit, returning
// ErrNotAcquired (possibly wrapped) when all are taken. Each Lock is one
// holder's permits; its Release gives them back once.
type Counting interface {
	Strategy
	Permits() int
}

// Weighted is implemented by semaphores that take several permits at
// once: TryAcquireN takes n of them, all or nothing, and its Lock gives
// all n back.
type Weighted interface {
	Counting
	TryAcquireN(ctx context.Context, key string, n int, ttl time.Duration) (Lock, error)
}

// Kind is what a lock lets in at once.
type Kind string

// The kinds of locks.
const (
	Mutex     Kind = "mutex"      // one holder
	ReadWrite Kind = "read-write" // one writer, or any number of readers
	Semaphore Kind = "semaphore"  // up to Permits holders
)

// KindOf says what kind of lock s is, from the interfaces it implements.
func KindOf(s Strategy) Kind {
	switch s.(type) {
	case Shared:
		return ReadWrite
	case Counting:
		return Semaphore
	}
	return Mutex
}

// Reader returns s as a Strategy whose TryAcquire takes the lock shared,
// so that Acquire waits for a read lock as it waits for any other:
//
//	l, err := strategy.Acquire(ctx, strategy.Reader(rw), "orders", ttl, retry)
//
// A Notifier's wake-ups are kept: a SharedNotifier's readers wait with
// SubscribeShared, any other Notifier's with Subscribe.
func Reader(s Shared) Strategy {
	r := reader{s}
	if n, ok := s.(SharedNotifier); ok {
		return sharedReader{r, sharedSubscriber{n}}
	}
	if n, ok := s.(Notifier); ok {
		return notifyingReader{r, n}
	}
	return r
}

// SharedNotifier is implemented by read-write locks whose readers and
// writers wait for different releases: Subscribe (the Notifier's) is a
// writer's wait, SubscribeShared a reader's, as Subscribe is otherwise.
type SharedNotifier interface {
	Notifier
	SubscribeShared(ctx context.Context, key string) (wake <-chan struct{}, stop func(), err error)
}

// sharedSubscriber is a SharedNotifier's readers' Notifier, eager when
// the SharedNotifier is.
type sharedSubscriber struct{ n SharedNotifier }

func (s sharedSubscriber) Subscribe(ctx context.Context, key string) (<-chan struct{}, func(), error) {
	return s.n.SubscribeShared(ctx, key)
}

func (s sharedSubscriber) SubscribeFirst() bool {
	e, ok := s.n.(EagerNotifier)
	return ok && e.SubscribeFirst()
}

// sharedReader is a SharedNotifier's Reader.
type sharedReader struct {
	reader
	sharedSubscriber
}

type reader struct{ s Shared }

func (r reader) TryAcquire(ctx context.Context, key string, ttl time.Duration) (Lock, error) {
	return r.s.TryAcquireShared(ctx, key, ttl)
}

type notifyingReader struct {
	reader
	Notifier
}
