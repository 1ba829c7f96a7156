// Package rueidislock runs github.com/redis/rueidis/rueidislock (in the
// rueidis module, v1.0.79) behind locklab's strategy interfaces. It adds
// nothing to the library: each call is one call of rueidislock's.
//
// What rueidislock does, read from its source:
//
//   - A lock on name is a majority of KeyMajority keys out of
//     KeyMajority×2−1, rueidislock:<i>:<name> for i from 0 (2 of 3 by
//     default; its README advises KeyMajority 1 on one Redis). Each is
//     taken by a script, SET <key> <value> NX PXAT <deadline>, the deadline
//     read from the process's own clock (time.Now() plus KeyValidity), then
//     GET <key>, which puts the key under client-side caching (CLIENT
//     TRACKING, RESP3 invalidation pushes), so that the Locker hears of any
//     change to it. One value, random, for the keys of one acquisition.
//   - TryWithContext tries each key in turn, one script sent by EVALSHA
//     each, with a deadline of TryNextAfter (20ms by default; Peers sets
//     1s): the lock is held once a majority answered OK, the rest are
//     tried in the background.
//   - While held, each key is extended every ExtendInterval (half
//     KeyValidity) by a script, PEXPIREAT to the process's clock plus
//     KeyValidity while the key holds the value; an invalidation of a key
//     also makes it check at once. The context TryWithContext returned is
//     cancelled when fewer than a majority remain: it is the lease.
//   - The cancel function it returned releases: each key is deleted by a
//     script while it holds the value, and it waits for those scripts,
//     which rueidis sends again after a network error until the key's
//     deadline; an error reply other than LOADING ends them, unreported.
//   - An extension waits for its reply until its own deadline, the
//     validity after it was sent: a holder whose extensions are held up
//     learns it lost the lock about half the validity after its keys
//     expired.
//
// KeyValidity is an option of the Locker, not of an acquisition: Locks
// keeps a Locker for each TTL it is asked for, the TTL its KeyValidity,
// all on one rueidis client made by New, as NewLocker would make it
// (client-side caching with OPTOUT tracking, one connection for the
// caching), through LockerOption.ClientBuilder; each Locker's
// invalidation handler gets every invalidation. The lock renews itself,
// so a TTL is how long a crashed holder keeps it.
//
// Errors: TryWithContext's rueidislock.ErrNotLocked becomes
// strategy.ErrNotAcquired. Release cannot tell whether the lock was still
// held: it returns nil.
package rueidislock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/locklab/locklab/strategy"
	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"
)

// Locks hands out rueidislock locks: one Locker for each TTL. It names the
// keys a lock is kept under (strategy.Keyed) and says that it reads a
// clock of its own (strategy.OwnClock): PXAT and PEXPIREAT carry the
// process's time.Now.
type Locks struct {
	option rueidislock.LockerOption
	client rueidis.Client

	mu       sync.Mutex
	lockers  map[time.Duration]rueidislock.Locker
	handlers []func([]rueidis.RedisMessage) // the Lockers' OnInvalidations
	closed   bool
}

// New returns the locks that option describes; KeyValidity is set anew for
// each TTL. Close closes every Locker made.
func New(option rueidislock.LockerOption) (*Locks, error) {
	if len(option.ClientOption.InitAddress) == 0 {
		return nil, errors.New("rueidislock: no InitAddress")
	}
	s := &Locks{option: option, lockers: map[time.Duration]rueidislock.Locker{}}
	// The client NewLocker would make: its options as NewLocker sets them.
	co := option.ClientOption
	if !co.DisableCache {
		co.ClientTrackingOptions = []string{"OPTOUT"}
		if option.NoLoopTracking {
			co.ClientTrackingOptions = append(co.ClientTrackingOptions, "NOLOOP")
		}
		co.OnInvalidations = s.invalidated
	}
	co.PipelineMultiplex = -1
	client, err := rueidis.NewClient(co)
	if err != nil {
		return nil, err
	}
	s.client = client
	// NewLocker calls it from locker, with s.mu held.
	s.option.ClientBuilder = func(o rueidis.ClientOption) (rueidis.Client, error) {
		if o.OnInvalidations != nil {
			s.handlers = append(s.handlers, o.OnInvalidations)
		}
		return shared{client}, nil
	}
	return s, nil
}

// invalidated hands the invalidations of the client to every Locker.
func (s *Locks) invalidated(messages []rueidis.RedisMessage) {
	s.mu.Lock()
	hs := slices.Clone(s.handlers)
	s.mu.Unlock()
	for _, h := range hs {
		h(messages)
	}
}

// shared is the client as a Locker gets it: closing a Locker leaves it
// open for the others; Locks.Close closes it.
type shared struct{ rueidis.Client }

func (shared) Close() {}

// Keys returns the keys a lock on name is kept under: KeyPrefix:<i>:name
// for i from 0 to KeyMajority×2−2.
func (s *Locks) Keys(name string) []string {
	prefix, majority := s.option.KeyPrefix, s.option.KeyMajority
	if prefix == "" {
		prefix = "rueidislock"
	}
	if majority <= 0 {
		majority = 2
	}
	keys := make([]string, 0, 2*majority-1)
	for i := range 2*majority - 1 {
		keys = append(keys, fmt.Sprintf("%s:%d:%s", prefix, i, name))
	}
	return keys
}

var (
	_ strategy.Keyed    = (*Locks)(nil)
	_ strategy.OwnClock = (*Locks)(nil)
)

// OwnClock reports true: the deadlines rueidislock sends (PXAT,
// PEXPIREAT) come from time.Now, unless FallbackSETPX is set, when only
// the extensions' PEXPIREAT do.
func (s *Locks) OwnClock() bool { return true }

// locker returns the Locker of KeyValidity ttl, made on first use.
func (s *Locks) locker(ttl time.Duration) (rueidislock.Locker, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, rueidislock.ErrLockerClosed
	}
	if l, ok := s.lockers[ttl]; ok {
		return l, nil
	}
	opt := s.option
	opt.KeyValidity = ttl
	l, err := rueidislock.NewLocker(opt)
	if err != nil {
		return nil, err
	}
	s.lockers[ttl] = l
	return l, nil
}

// Close closes every Locker.
func (s *Locks) Close() {
	s.mu.Lock()
	ls := s.lockers
	s.lockers, s.closed = nil, true
	s.mu.Unlock()
	for _, l := range ls {
		l.Close()
	}
	if s.client != nil {
		s.client.Close()
	}
}

// TryAcquire calls TryWithContext once on the Locker of KeyValidity ttl.
// The lock's context comes from ctx without its cancellation or deadline:
// it lives until Release, or until the lock is lost.
func (s *Locks) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	if err := strategy.Validate(key, ttl); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		// The lock's context does not end with ctx; the attempt does.
		return nil, err
	}
	l, err := s.locker(ttl)
	if err != nil {
		return nil, err
	}
	lease, cancel, err := l.TryWithContext(context.WithoutCancel(ctx), key)
	if errors.Is(err, rueidislock.ErrNotLocked) {
		return nil, fmt.Errorf("%w: %w", strategy.ErrNotAcquired, err)
	}
	if err != nil {
		return nil, err
	}
	return &Lock{key: key, lease: lease, cancel: cancel}, nil
}

// Lock is a held rueidislock lock: its context and its cancel function.
type Lock struct {
	key    string
	lease  context.Context
	cancel context.CancelFunc
}

var _ strategy.Leased = (*Lock)(nil)

// Key returns the locked name.
func (l *Lock) Key() string { return l.key }

// Lease returns the context TryWithContext returned, cancelled when the
// lock is lost or released.
func (l *Lock) Lease() (context.Context, bool) { return l.lease, true }

// Release calls the cancel function, which deletes the keys still held;
// it cannot tell whether they were, and returns nil.
func (l *Lock) Release(context.Context) error {
	l.cancel()
	return nil
}

// ClientOption returns the rueidis options of a client of addr that logs in
// with password, with what a Locker needs on a Redis 7.0: client-side
// caching (the default), RESP3.
func ClientOption(addr, password string) rueidis.ClientOption {
	return rueidis.ClientOption{InitAddress: []string{addr}, Password: password}
}
