// Package tokengetdel is the step document 004 takes between 方式五 and
// 方式六: a token unique to each acquisition, checked with GET before the
// DEL, in two commands.
//
// Source: document 004. The end of 方式五 proposes that each process put a
// token of its own in the lock and check it before releasing; the opening
// of 方式六 says to check the password before the del, and then that a get
// followed by a del is itself a critical section, before moving both into
// a Lua script (fixedpassword, luatoken). This package is that GET-then-DEL
// release, which the document describes but never writes out.
//
// Algorithm:
//  1. SET key <token> NX PX ttl, with a fresh github.com/rs/xid token. (The
//     document's locks use EX, seconds; PX is the same in milliseconds.)
//  2. Work.
//  3. GET key; if it is not the token, the lock is not ours: stop.
//  4. DEL key.
//
// How it breaks: between the GET and the DEL, the lock can expire and pass
// to another client; the DEL then deletes that client's lock. It is the
// race document 004 names, and only a pause inside the release meets it: a
// release that starts after the lock passed on sees the other token and
// stops.
//
// Release returns an error matching strategy.ErrNotHeld when GET finds the
// key gone or holding another token, or when DEL finds nothing to delete.
package tokengetdel

import (
	"context"
	"time"

	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// Strategy is the token lock released with GET, compare, DEL.
type Strategy struct{ v *recipe.Valued }

// New returns the strategy on pool p.
func New(p strategy.Pool) (*Strategy, error) {
	v, err := recipe.NewValued("tokengetdel", p, (*recipe.Base).SetNXPX, recipe.Token, release)
	if err != nil {
		return nil, err
	}
	return &Strategy{v: v}, nil
}

// TryAcquire sends SET key <token> NX PX ttl once, with a new token.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.v.TryAcquire(ctx, key, ttl)
}

// release sends GET key, compares the value with the lock's token in the
// client, and sends DEL key when they match: two commands, with nothing to
// stop the lock passing to someone else between them.
func release(s *recipe.Session, token string) error {
	ours, err := s.Holds(token)
	if err != nil {
		return err
	}
	if !ours {
		return s.Fail("GET", strategy.ErrNotHeld)
	}
	// Here the lock can expire and be taken by another client.
	return s.Del()
}
