package recipe

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

// Stamped is the timestamp lock of documents 000, 001, 003 and 004: the key
// holds the client's idea of when the lock expires (Unix milliseconds), and
// every client decides from its own clock whether a lock is stale. The
// documents agree on the outline (SETNX the time; if taken, GET it; if it
// has passed, take the lock over) and differ in the details, which a
// StampRecipe fills in: getset, getsetcompare, delsetnx and delsetnxcheck
// are each one StampRecipe, and so is getsetexpire, whose package sends
// document 000's EXPIRE once the attempt has won.
type Stamped struct {
	Base
	StampRecipe
	Clock strategy.Clock
	// AcquireBuffer is added to every time the lock writes (document 001's
	// buffer_time at acquire); the recipe gives the default.
	AcquireBuffer time.Duration
	// ReleaseBuffer: ReleaseIfAhead deletes the key only while the stored
	// time is more than this far in the future (document 001's
	// buffer_time at release).
	ReleaseBuffer time.Duration
}

// StampRecipe is what one document's timestamp lock does where the
// documents differ.
type StampRecipe struct {
	// Stale reports whether a lock whose key holds time held is stale at
	// time now, and may be taken over: StalePassed or StaleReached.
	Stale func(held, now int64) bool
	// KeepGone makes an attempt whose GET finds the key gone (released
	// since its SETNX) fail, as if the lock were held. Without it, a
	// missing key reads as time 0, as PHP's comparisons read null and
	// false, and is stale.
	KeepGone bool
	// Takeover is called on a stale lock with the time GET read (0 for a
	// missing key), the client's now and the time to write; it reports
	// whether the lock is now ours.
	Takeover func(s *Session, held, now, stamp int64) (bool, error)
	// AcquireBuffer is the default of Stamped.AcquireBuffer.
	AcquireBuffer time.Duration
	// Release gives the lock up: ReleaseIfAhead, ReleaseDel or
	// ReleaseInTime.
	Release StampRelease
}

// StalePassed: a lock is stale once its time has passed, held < now
// (documents 000 and 001, "当前时间大于键的值"; document 003, "小于当前系统时间").
func StalePassed(held, now int64) bool { return held < now }

// StaleReached: a lock is stale once its time is reached, held <= now:
// document 004 tests only whether the lock is live, `if ($t > time())`.
func StaleReached(held, now int64) bool { return held <= now }

// DocumentReleaseBuffer is document 001's release buffer as its code
// applies it: `($lock_expire_time - $now) > $buffer_time` compares a
// difference of milliseconds with $buffer_time = 0.003, which its comment
// says is in seconds. 0.003 ms is what the code does; 3 ms was meant.
const DocumentReleaseBuffer = 3 * time.Microsecond

// StampOption configures a Stamped strategy. Each timestamp strategy's
// package declares its own Option type on it (type Option func(*stamped),
// with stamped an alias of Stamped), so that its documentation does not
// send readers here, and converts the StampOptions it offers.
type StampOption func(*Stamped)

// WithClock sets the clock the strategy reads its timestamps from.
func WithClock(c strategy.Clock) StampOption {
	return func(s *Stamped) {
		if c != nil {
			s.Clock = c
		}
	}
}

// WithAcquireBuffer sets the acquire buffer; negative values count as 0.
func WithAcquireBuffer(d time.Duration) StampOption {
	return func(s *Stamped) { s.AcquireBuffer = max(d, 0) }
}

// WithReleaseBuffer sets the release buffer; negative values count as 0.
func WithReleaseBuffer(d time.Duration) StampOption {
	return func(s *Stamped) { s.ReleaseBuffer = max(d, 0) }
}

// WithStampRelease replaces the recipe's release.
func WithStampRelease(r StampRelease) StampOption {
	return func(s *Stamped) { s.Release = r }
}

// NewStamped builds a Stamped strategy from its recipe and a package's
// options.
func NewStamped[O ~func(*Stamped)](name string, p strategy.Pool, r StampRecipe, opts []O) (*Stamped, error) {
	b, err := NewBase(name, p)
	if err != nil {
		return nil, err
	}
	s := &Stamped{Base: b, StampRecipe: r, Clock: strategy.SystemClock,
		AcquireBuffer: r.AcquireBuffer, ReleaseBuffer: DocumentReleaseBuffer}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// TryAcquire: SETNX key <now+ttl>; if taken, GET key, and if the stored time
// is stale, Takeover.
func (st *Stamped) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	s, err := st.Begin(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	now := st.Clock.Now().UnixMilli()
	stamp := now + (ttl + st.AcquireBuffer).Milliseconds()
	won, err := redis.Bool(s.Do("SETNX", stamp))
	if err != nil {
		return nil, err
	}
	if !won {
		held, ok, err := s.stamp("GET")
		if err != nil {
			return nil, err
		}
		if !ok && st.KeepGone || !st.Stale(held, now) {
			return nil, s.NotAcquired()
		}
		if won, err = st.Takeover(s, held, now, stamp); err != nil {
			return nil, err
		}
		if !won {
			return nil, s.NotAcquired()
		}
	}
	return &StampLock{st: st, key: key, at: now, ttl: ttl}, nil
}

// Stamp sends cmd with args and parses the reply as a timestamp; a nil reply
// (no key) reads as 0.
func (s *Session) Stamp(cmd string, args ...any) (int64, error) {
	t, _, err := s.stamp(cmd, args...)
	return t, err
}

// stamp is Stamp, and says whether the reply was a value (ok) or nil.
func (s *Session) stamp(cmd string, args ...any) (t int64, ok bool, err error) {
	v, err := redis.String(s.Do(cmd, args...))
	if errors.Is(err, redis.ErrNil) {
		return 0, false, nil
	}
	var re redis.Error
	if errors.As(err, &re) && strings.HasPrefix(string(re), "WRONGTYPE") {
		// A key of another type (a hash, a list) holds no timestamp either.
		return 0, false, s.Fail(cmd, fmt.Errorf("%w: the key is not a string: %w", strategy.ErrBadValue, re))
	}
	if err != nil {
		return 0, false, err
	}
	t, perr := strconv.ParseInt(v, 10, 64)
	if perr != nil {
		return 0, false, s.Fail(cmd, fmt.Errorf("%w: %q is not a millisecond timestamp", strategy.ErrBadValue, v))
	}
	return t, true, nil
}

// StampLock is a lock taken by a Stamped strategy.
type StampLock struct {
	st  *Stamped
	key string
	at  int64 // the client's time when it locked, Unix ms
	ttl time.Duration
}

// Key returns the locked key.
func (l *StampLock) Key() string { return l.key }

// Release gives the lock up as the recipe says.
func (l *StampLock) Release(ctx context.Context) error {
	s, err := l.st.Open(ctx, l.key)
	if err != nil {
		return err
	}
	defer s.Close()
	return l.st.Release(s, l)
}

// A StampRelease gives up a timestamp lock, on a session on its key.
type StampRelease func(s *Session, l *StampLock) error

// ReleaseIfAhead is document 001's release: GET the stored time and DEL
// only while it is more than the release buffer away, since a lock that
// has expired may be someone else's. It cannot tell whose time it read.
func ReleaseIfAhead(s *Session, l *StampLock) error {
	held, err := s.Stamp("GET")
	if err != nil {
		return err
	}
	now := l.st.Clock.Now().UnixMilli()
	switch {
	case time.Duration(held-now)*time.Millisecond > l.st.ReleaseBuffer:
		_, err = s.Do("DEL")
		return err
	case held < now: // gone, or expired: not ours to delete
		return s.Fail("GET", strategy.ErrNotHeld)
	default: // about to expire: left to expire by itself
		return nil
	}
}

// ReleaseDel is document 004's release: DEL, whoever holds the key. It
// returns an error matching strategy.ErrNotHeld when DEL deleted nothing,
// where the document prints that the release failed.
func ReleaseDel(s *Session, _ *StampLock) error { return s.Del() }

// ReleaseInTime is document 003's release (方案2, step 5): the holder
// compares the time it has held the lock, by its own clock, with the TTL,
// and sends DEL only while it is shorter; otherwise it leaves the key
// alone, and the error matches strategy.ErrNotHeld. The check and the DEL
// are two steps: a holder paused between them deletes whoever's lock is
// there when it resumes.
func ReleaseInTime(s *Session, l *StampLock) error {
	held := time.Duration(l.st.Clock.Now().UnixMilli()-l.at) * time.Millisecond
	if held >= l.ttl {
		// The time held is left out of the message: it differs from run
		// to run, and the docs quote the message.
		return s.Fail("release", fmt.Errorf("%w: held for its TTL %v or longer, by its clock", strategy.ErrNotHeld, l.ttl))
	}
	return s.Del()
}
