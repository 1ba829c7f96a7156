package recipe

import (
	"context"
	"errors"
	"time"

	"github.com/gomodule/redigo/redis"
)

// The two acquires that several recipes share; each strategy adds the
// value it writes and the release it gives the lock.

// SetNXPX is the one-command acquire: SET key value NX PX ttl. It returns
// an error matching strategy.ErrNotAcquired when the key is taken. setnxpx
// writes 1, fixedpassword document 004's fixed password, tokengetdel a
// token of its own.
func (b *Base) SetNXPX(ctx context.Context, key string, value any, ttl time.Duration) error {
	s, err := b.Begin(ctx, key, ttl)
	if err != nil {
		return err
	}
	defer s.Close()
	_, err = redis.String(s.Do("SET", value, "NX", "PX", ttl.Milliseconds()))
	if errors.Is(err, redis.ErrNil) {
		return s.NotAcquired()
	}
	return err
}

// SetnxExpire is the two-command acquire of documents 003 (方案1) and 002:
//  1. SETNX key value; on 0 the lock is taken.
//  2. PEXPIRE key ttl. (The documents use EXPIRE in seconds; milliseconds
//     keep the same two-command flaw and allow short TTLs.)
//  3. When SETNX fails: TTL key, and if it is -2, PEXPIRE key ttl: document
//     002's repair for a lock left without expiry, copied with its bug. -2
//     means "no such key", so the repair never fires on a lock; -1, "no
//     expiry", was meant.
//
// It returns an error matching strategy.ErrNotAcquired when SETNX fails.
// setnxexpire writes 1, as document 003 does; multiget and watchdel a token,
// as document 002 writes a uuid.
func (b *Base) SetnxExpire(ctx context.Context, key string, value any, ttl time.Duration) error {
	s, err := b.Begin(ctx, key, ttl)
	if err != nil {
		return err
	}
	defer s.Close()
	ms := ttl.Milliseconds()
	won, err := redis.Bool(s.Do("SETNX", value))
	if err != nil {
		return err
	}
	if !won {
		left, err := redis.Int64(s.Do("TTL"))
		if err != nil {
			return err
		}
		if left == -2 { // document 002's check; -1 was meant
			if _, err := s.Do("PEXPIRE", ms); err != nil {
				return err
			}
		}
		return s.NotAcquired()
	}
	_, err = s.Do("PEXPIRE", ms)
	return err
}
