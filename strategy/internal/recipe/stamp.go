package recipe

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
)

// Stamped is the timestamp lock that getset and delsetnx share: the key holds
// the client's idea of when the lock expires (Unix milliseconds), and every
// client decides from its own clock whether a lock is stale. The two differ
// only in Takeover, how a stale lock changes hands.
type Stamped struct {
	Base
	Clock strategy.Clock
	// ReleaseBuffer: Release deletes the key only while the stored time is
	// more than this far in the future (document 001's buffer_time).
	ReleaseBuffer time.Duration
	// Takeover is called on a lock found stale (stored time before now); it
	// writes stamp and reports whether the lock is now ours.
	Takeover func(s *Session, now, stamp int64) (bool, error)
}

// DefaultReleaseBuffer is document 001's release buffer, 3 ms.
const DefaultReleaseBuffer = 3 * time.Millisecond

// StampOption configures a Stamped strategy.
type StampOption func(*Stamped)

// WithClock sets the clock the strategy reads its timestamps from.
func WithClock(c strategy.Clock) StampOption {
	return func(s *Stamped) {
		if c != nil {
			s.Clock = c
		}
	}
}

// WithReleaseBuffer sets the release buffer; negative values count as 0.
func WithReleaseBuffer(d time.Duration) StampOption {
	return func(s *Stamped) { s.ReleaseBuffer = max(d, 0) }
}

// NewStamped builds a Stamped strategy.
func NewStamped(name string, p strategy.Pool, takeover func(*Session, int64, int64) (bool, error), opts []StampOption) (*Stamped, error) {
	b, err := NewBase(name, p)
	if err != nil {
		return nil, err
	}
	s := &Stamped{Base: b, Clock: strategy.SystemClock, ReleaseBuffer: DefaultReleaseBuffer, Takeover: takeover}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// TryAcquire: SETNX key <now+ttl>; if taken, GET key, and if the stored time
// has passed, Takeover.
func (st *Stamped) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	s, err := st.Begin(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	now := st.Clock.Now().UnixMilli()
	stamp := now + ttl.Milliseconds()
	won, err := redis.Bool(s.Do("SETNX", stamp))
	if err != nil {
		return nil, err
	}
	if !won {
		held, err := s.Stamp("GET")
		if err != nil {
			return nil, err
		}
		// held == 0: the key is gone, released since SETNX. That is not a
		// stale lock: the next attempt's SETNX will take it. (PHP, reading
		// null as 0, would take it over, and delsetnx's DEL could then
		// delete a lock acquired in between.)
		if held == 0 || held >= now {
			return nil, s.NotAcquired()
		}
		if won, err = st.Takeover(s, now, stamp); err != nil {
			return nil, err
		}
		if !won {
			return nil, s.NotAcquired()
		}
	}
	return &stampLock{st: st, key: key, stamp: stamp}, nil
}

// Stamp sends cmd with args and parses the reply as a timestamp; a nil reply
// (no key) reads as 0.
func (s *Session) Stamp(cmd string, args ...any) (int64, error) {
	v, err := redis.String(s.Do(cmd, args...))
	if errors.Is(err, redis.ErrNil) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	t, perr := strconv.ParseInt(v, 10, 64)
	if perr != nil {
		return 0, s.Fail(cmd, fmt.Errorf("%w: %q is not a millisecond timestamp", strategy.ErrBadValue, v))
	}
	return t, nil
}

type stampLock struct {
	st    *Stamped
	key   string
	stamp int64
}

func (l *stampLock) Key() string { return l.key }

// Release follows document 001: GET the stored time and DEL only while it is
// more than the buffer away, since a lock that has expired may be someone
// else's. It cannot tell whose time it read.
func (l *stampLock) Release(ctx context.Context) error {
	s, err := l.st.Open(ctx, l.key)
	if err != nil {
		return err
	}
	defer s.Close()
	held, err := s.Stamp("GET")
	if err != nil {
		return err
	}
	now := l.st.Clock.Now().UnixMilli()
	switch {
	case held-now > l.st.ReleaseBuffer.Milliseconds():
		_, err = s.Do("DEL")
		return err
	case held < now: // gone, or expired: not ours to delete
		return s.Fail("GET", strategy.ErrNotHeld)
	default: // about to expire: left to expire by itself
		return nil
	}
}
