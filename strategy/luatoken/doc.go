// Package luatoken is the lock to use: SET key <unique token> NX PX ttl to
// lock, and a Lua script that deletes the key only while it still holds the
// token to unlock.
//
// Sources: document 004 (方式六, the one it recommends) and document 002 (a
// uuid as the lock value). Document 002 compares the token inside
// WATCH/MULTI, but reads it with GET inside MULTI, where the reply is only
// "QUEUED": its check can never pass as written. A Lua script runs atomically
// on the server and needs no WATCH.
//
// Algorithm:
//  1. SET key <token> NX PX ttl, with a fresh github.com/rs/xid token.
//  2. Work.
//  3. EVALSHA release.lua key token (EVAL when the script is not cached):
//     DEL only if GET key still equals the token.
//
// How it breaks: only where every TTL lock does. A holder whose work outlasts
// the TTL (a GC pause, a slow disk) loses the lock while it still works, and
// the next holder works at the same time (holder-overrun). The options
// below are the answers: auto-renewal tells the holder that its lease is
// lost before anyone else can take the lock, and fencing tokens let the
// protected resource refuse a late holder's writes.
//
// Without options, New gives exactly the algorithm above: TryAcquire is one
// SET round trip and Release one EVALSHA. Each option adds only its own
// cost:
//
//	s, err := luatoken.New(pool,
//		luatoken.WithAutoRenew(0),       // renew about every TTL/3; Lock.Lease reports true
//		luatoken.WithMaxHold(time.Hour), // stop renewing after this (default 10 minutes)
//		luatoken.WithFencing(),          // Lock.FencingToken reports true
//		luatoken.WithNotify(),           // Acquire wakes on release
//	)
//
// TryAcquire (and so strategy.Acquire) returns a *Lock whatever the
// options: its FencingToken and Lease report whether WithFencing and
// WithAutoRenew are on, with an ok result, and it implements
// strategy.Fenced and strategy.Leased in every case.
//
// # Refresh and TTL
//
// Lock.Refresh extends a held lock with a Lua compare-and-PEXPIRE: the key
// lives at least the given TTL from now, if it still holds the lock's
// token. It never shortens a lock. Lock.TTL reads the time left with a Lua
// compare-and-PTTL. Both fail with an error matching strategy.ErrNotHeld
// when the lock expired or passed to someone else:
//
//	lock := l.(*luatoken.Lock)
//	if err := lock.Refresh(ctx, 30*time.Second); errors.Is(err, strategy.ErrNotHeld) {
//		return err // too late: stop working
//	}
//	left, err := lock.TTL(ctx)
//
// # Auto-renewal and the lease
//
// With WithAutoRenew, each lock starts a goroutine that renews it (the same
// compare-and-PEXPIRE, to the TTL given to TryAcquire) every interval, by
// default a third of the TTL less the lease margin, until Release or the
// maximum hold time (DefaultMaxHold, 10 minutes, unless WithMaxHold sets
// another), so that a lock whose Release was forgotten is not renewed for
// ever. Lock.Lease returns a context that is cancelled the moment the lock
// may be lost, with a *LeaseError as its context.Cause:
//
//	lease, _ := lock.Lease()
//	err := work(lease) // must stop when lease is done
//	if errors.Is(context.Cause(lease), luatoken.ErrLeaseLost) { ... }
//
// The lease ends when a renewal finds the lock gone or someone else's, or
// the server refuses a renewal (ErrLeaseLost, strategy.ErrNotHeld); when no
// renewal got through before the lease deadline (ErrLeaseExpired, which is
// also ErrLeaseLost); at the maximum hold time (ErrMaxHold); and at
// Release (ErrReleased). Renewals that fail in a way that may pass (a
// network error, a timeout) are retried until the deadline.
//
// The lease deadline is the time the last successful renewal (or the
// acquire) was sent, plus its TTL, less a margin (2ms + 1% of the TTL, or
// WithLeaseMargin): Redis starts the TTL when it runs the command, never
// before it was sent, so the key cannot expire before the deadline (while
// the server's clock runs true: a clock that jumps ahead expires keys
// early, as it does for every TTL lock). A timer
// ends the lease at the deadline whatever the renewals are doing, so a
// holder whose renewals are stuck (a network stall, an exhausted pool) sees
// its context cancelled before the key can expire and another holder's
// work begin. A timer can run late on a loaded machine: asked for past
// its deadline, the lease has ended whether the timer has run or not, and
// an acquire whose reply came after the deadline it set returns a lock
// whose lease has already ended. The margin covers clock drift and the timer's latency, not
// the time the work takes to notice: raise it if the work needs time to
// stop. Refresh on a renewing lock moves the deadline too; since the
// script never shortens a TTL, each success can only move it later.
//
// The lease keeps the values of the context given to TryAcquire, not its
// cancellation: that context bounds the wait for the lock, not the work
// under it. A renewal interval that leaves no room before the deadline
// (not shorter than the TTL less the margin) makes TryAcquire fail with an
// error matching strategy.ErrInvalidTTL.
//
// # Fencing tokens
//
// With WithFencing, TryAcquire runs acquire_fenced.lua: SET key token NX PX
// ttl and, only when that took the lock, INCR of a counter key, in one
// script. Lock.FencingToken returns the number drawn, which increases
// strictly with every acquisition of the key by any client using
// WithFencing, as long as the counter survives (a failover to a replica
// behind the primary, or a restart without persistence, can lose its last
// increments and hand a number out again). A resource that remembers the
// highest token it accepted refuses the writes of a holder whose lock has
// passed on:
//
//	token, _ := lock.FencingToken()
//	db.Exec("UPDATE orders SET ..., fence = $1 WHERE id = 42 AND fence <= $1", token)
//
// The counter key is never deleted, by Release or otherwise, and has no
// expiry: it must outlive every lock on the key to stay monotonic. Deleting
// it restarts the tokens at 1.
//
// # Counter key naming
//
// The counter key must sit in the lock key's Redis Cluster hash slot, as
// the script uses both. FenceKey(key) names it:
//
//   - a key with a hash tag (the first "{" followed by a "}" with something
//     in between, as Redis Cluster reads it) keeps its tag: key + ":fence",
//     so "{order:42}:lock" counts in "{order:42}:lock:fence";
//   - a key without a hash tag and without "}" becomes the tag:
//     "{" + key + "}:fence", so "orders:42" counts in "{orders:42}:fence";
//   - a key that has a "}" but no hash tag (such as "a}b" or "a{}b") cannot
//     be spelled inside a tag, so the tag is the smallest decimal number
//     with the key's slot: "{" + n + "}:fence:" + key, such as
//     "{20658}:fence:a}b".
//
// Do not use lock keys that end in ":fence": they may be another lock's
// counter.
//
// # Release notifications
//
// With WithNotify, Release publishes the key on the channel
// ChannelName(key) ("luatoken:released:" + key) in the same script as its
// compare-and-delete, only when it deleted the lock, and the Strategy
// implements strategy.Notifier. strategy.Acquire then subscribes once its
// first attempt finds the lock taken, tries again at once, and from then on
// wakes as soon as the lock is released, keeping its Retry as a fallback
// poll (a lock that expires is not announced). Each release wakes one
// waiter per Strategy, the one waiting longest:
//
//	s, _ := luatoken.New(pool, luatoken.WithNotify())
//	l, err := strategy.Acquire(ctx, s, "orders:42", ttl, strategy.FixedInterval(time.Second))
//
// All the waiters of a Strategy share one Pub/Sub connection, taken from its
// pool when the first waits and given back when the last stops: each key's
// channel is subscribed once (SUBSCRIBE when the first waiter comes,
// UNSUBSCRIBE when the last leaves) and a waiter that gives up leaves
// nothing behind. Subscribe returns only once the server has confirmed the
// subscription, so a release between an attempt and the wait is not lost.
// The connection is kept alive with PINGs and reopened when it breaks; the
// waiters are then woken, since a release may have gone by.
package luatoken
