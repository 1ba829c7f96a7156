// Package fixedpassword is document 004's recommended lock as its code
// writes it: SET key <password> NX with an expiry, and a Lua script that
// deletes the key only while it holds the password. The password is one
// constant, "abc123", the same for every process.
//
// Source: document 004 (方式六, the one its 推荐方式 recommends). Its prose
// asks each process to put a token of its own in the lock; its code sets
// $password = 'abc123' for everyone. The package copies the code.
//
// Algorithm:
//  1. SET key abc123 NX PX ttl: OK means the lock is ours, nil that it is
//     taken. (The document uses EX, seconds; PX is the same command in
//     milliseconds.)
//  2. Work.
//  3. EVAL release.lua key abc123, the script's text on every release, as
//     the document's eval sends it: DEL if GET key equals the password,
//     else -1.
//
// How it breaks: every holder's password is the same, so the check cannot
// tell one holder from another. A holder whose TTL ran out, or who releases
// twice, deletes the next holder's lock (safe-release, double-release), as
// setnxpx's plain DEL does.
//
// Release returns an error matching strategy.ErrNotHeld when the script
// answers -1: the key is gone or holds a value other than the password. It
// returns nil when it deleted a lock, which may be another process's.
package fixedpassword

import (
	"context"
	_ "embed"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// Password is the value every lock writes: document 004's $password.
const Password = "abc123"

func password() string { return Password }

//go:embed release.lua
var releaseSrc string

// Strategy is the fixed-password lock.
type Strategy struct{ v *recipe.Valued }

// New returns the strategy on pool p.
func New(p strategy.Pool) (*Strategy, error) {
	v, err := recipe.NewValued("fixedpassword", p, (*recipe.Base).SetNXPX, password, release)
	if err != nil {
		return nil, err
	}
	return &Strategy{v: v}, nil
}

// TryAcquire sends SET key abc123 NX PX ttl once.
func (s *Strategy) TryAcquire(ctx context.Context, key string, ttl time.Duration) (strategy.Lock, error) {
	return s.v.TryAcquire(ctx, key, ttl)
}

// release runs document 004's script: DEL the key if it holds the
// password, whoever wrote it. It returns an error matching
// strategy.ErrNotHeld when the script answers -1.
func release(s *recipe.Session, password string) error {
	n, err := redis.Int(s.EvalText(releaseSrc, password))
	if err != nil {
		return err
	}
	if n != 1 {
		return s.Fail("EVAL", strategy.ErrNotHeld)
	}
	return nil
}
