// Package rwlua is a read-write lock on one Redis: any number of readers
// hold a key together, or one writer alone. Each holder has a token of its
// own, and every change is one Lua script that runs atomically on the
// server and reads the server's clock, never the client's.
//
// # Data model
//
// The lock on key is a sorted set at key: one member per holder, "r:" +
// token for a reader, "w:" + token for a writer, scored by the holder's
// own expiry in milliseconds of the server's clock (TIME). The set holds
// readers only, or one writer alone. Every script first removes the
// members whose expiry has passed (ZREMRANGEBYSCORE), so an expired hold
// is never counted, kept or refreshed; and it leaves the key expiring
// with the longest remaining hold, so the holds of holders that crash
// disappear with the key within their own TTL. Writers waiting for the
// lock keep their intents in a second sorted set, IntentKey(key) (in key's
// Redis Cluster slot), scored the same way.
//
// # The scripts
//
//   - TryAcquire (writer): if the set is empty, add "w:" + token with
//     expiry now + ttl. Otherwise register the Strategy's intent to write
//     (now + the intent TTL) and fail.
//   - TryAcquireShared (reader): fail if a writer's intent lives or a
//     writer holds; otherwise add "r:" + token with expiry now + ttl.
//   - Release: ZREM this hold's own member. Nothing else moves: the
//     others keep their scores, and the key's PEXPIRE becomes the longest
//     of theirs. A late or second Release finds no member and returns
//     strategy.ErrNotHeld.
//   - Refresh: if this hold's member is still there, raise its score to
//     now + ttl (never lower it), and the key's PEXPIRE with it; if it is
//     gone, return strategy.ErrNotHeld and write nothing, so a late Refresh
//     never takes the lock back.
//
// # Policy: writers first
//
// By default a writer's failed attempt keeps new readers out for
// DefaultWriterIntent (WithWriterIntent sets it), renewed by each of its
// attempts. The readers already in finish; the writer gets in at its first
// attempt after the last of them has left, and at once with WithNotify or
// when the last of them released through the writer's own Strategy.
// The bound: a writer that keeps trying more often than its intent TTL
// gets in within the longest remaining hold of the readers that held the
// lock at its first failed attempt (their TTL, or longer while they
// Refresh or renew), plus one retry interval; other writers compete with
// it as for a mutex. With WithWriterIntent(0), readers come first and a
// stream of overlapping readers can keep writers out for ever.
//
// # Waking in the process
//
// Without WithNotify, the waiters of one Strategy (strategy.Acquire, and
// strategy.Reader's for readers) are still woken by the releases made
// through that same Strategy, in the process and without a message
// through Redis: the release script says whether it left the lock free,
// and then one waiting writer wakes if any waits, or else every waiting
// reader. A reader refused for a writer's intent so waits for that
// writer's write rather than for its next retry, and the writer, when the
// readers leave, is woken alone rather than with them. The readers a
// release wakes have their turn: a writer of the same Strategy that tries
// again before they have all tried waits for them (a millisecond at
// most), so that a writer taking the lock again as soon as it has let it
// go does not shut them out each time. strategy.Acquire subscribes such
// a waiter before its first attempt (strategy.EagerNotifier), as the
// subscription costs no round trip. Releases made through other
// Strategies (other processes) and holds that expire wake nobody: their
// waiters find out at their next retry, as with any lock that polls.
//
// # Options
//
// As luatoken's: WithAutoRenew renews each hold (its own member only)
// while held, its Lease ending the moment the hold may be lost, and
// Release stops the renewal before it removes the member; WithNotify
// announces the release that leaves the lock free, on which every waiter
// wakes (strategy.Reader keeps the wake-ups for readers).
//
// How it breaks: as every TTL lock does, a holder whose work outlasts its
// hold works on while the next one enters; a lease (WithAutoRenew) tells
// the holder first. A server clock that jumps forward expires holds early.
// The scripts' cost grows with the number of readers only in Release and
// Refresh's PEXPIRE (a ZRANGE of one member) and in pruning expired ones.
package rwlua
