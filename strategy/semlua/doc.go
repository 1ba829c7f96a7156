// Package semlua is a counting semaphore on one Redis: at most Permits
// holders (or fewer holding several permits each) hold a key at once.
// Each hold has a token of its own, and every change is one Lua script
// that runs atomically on the server and reads the server's clock, never
// the client's.
//
// # Data model
//
// The semaphore on key is a sorted set at key: one member per permit
// held, token + ":" + i for the i-th permit of a hold, all of a hold's
// members scored by the hold's expiry in milliseconds of the server's
// clock (TIME). Every script first removes the members whose expiry has
// passed (ZREMRANGEBYSCORE), so an expired permit is never counted, kept
// or refreshed; and it leaves the key expiring with the longest remaining
// hold, so the permits of holders that crash come back within their own
// TTL, and the key goes with the last of them.
//
// # The scripts
//
//   - TryAcquireN: if the members left number at most Permits - n, add
//     the hold's n members with expiry now + ttl; otherwise write nothing
//     and fail. TryAcquire is TryAcquireN with n = 1.
//   - Release: ZREM the hold's own members. A late or second Release
//     finds none and returns strategy.ErrNotHeld: the count never goes
//     above what the holds hold.
//   - Refresh: if the hold's members are still there, raise their score
//     to now + ttl (never lower it); if they are gone, return
//     strategy.ErrNotHeld and write nothing, so a late Refresh never
//     takes permits back.
//
// Permits is fixed by New and sent with every acquire: every client of a
// key must use the same number.
//
// # Options
//
// As luatoken's: WithAutoRenew renews each hold (its own members only)
// while held, its Lease ending the moment the hold may be lost, and
// Release stops the renewal before it gives the permits back; WithNotify
// announces every release, on which as many waiters wake as permits came
// back.
//
// How it breaks: as every TTL lock does, a holder whose work outlasts its
// hold works on while its permit serves another; a lease (WithAutoRenew)
// tells the holder first. A server clock that jumps forward expires holds
// early. The scripts' cost grows with n, not with the number of holders,
// except for pruning the expired ones.
package semlua
