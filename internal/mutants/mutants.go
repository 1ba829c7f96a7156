// Package mutants is a corpus that tests the conformance suite itself, in
// both directions. A mutant is one correct token lock with one slip that
// real authors make, and a declaration of the properties that must catch
// it: the suite has teeth only if each of them breaks. A variant is the
// same lock written another correct way (a WATCH transaction, a hash-valued
// key, a Lua acquire): the suite raises no false alarm only if each holds
// everything a TTL lock without renewal or fencing can hold.
//
// Every lock here is built from one recipe, the correct lock: SET key
// <unique token> NX PX ttl, a Lua compare-and-delete release and a Lua
// compare-and-PEXPIRE refresh. A mutant changes exactly one of its steps
// (the token, the acquire, the release or the refresh), so that whatever
// the suite finds is the slip's doing.
package mutants

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
	"github.com/rs/xid"
)

// Mutant is the correct lock with one slip.
type Mutant struct {
	// Name identifies the mutant, in kebab case.
	Name string
	// Slip says in a line what the author got wrong.
	Slip string
	// Killers lists every property that breaks on the mutant and not on
	// the correct lock: each must break, with a timeline. (The overrun
	// properties break on every TTL lock without renewal or fencing, the
	// correct one included, and are not listed.)
	Killers []locktest.Property
	// Gap, when set, says what the suite misses about the mutant: a
	// property that should kill it and does not, or a check it lacks.
	Gap string
	// Base, when set, names the variant the slip is made in (a fenced
	// lock's mutants are made in the fenced variant); the correct lock
	// when empty. Killers hold on the base.
	Base string
	// slip is the one step that differs from the base's; its other steps
	// are nil.
	slip recipe
}

// New builds the mutant for one simulated client; it is a locktest.Factory.
func (m Mutant) New(c locktest.Client) (strategy.Strategy, error) {
	steps := m.slip
	if m.Base != "" {
		v, ok := LookupVariant(m.Base)
		if !ok {
			return nil, fmt.Errorf("mutant %s: no variant %q", m.Name, m.Base)
		}
		steps = v.steps.with(m.slip)
	}
	return build(m.Name, steps, c.Pool, c.Clock), nil
}

// Lookup returns the mutant named name.
func Lookup(name string) (Mutant, bool) {
	for _, m := range Mutants() {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}

type props = []locktest.Property

const (
	exclusion     = locktest.Exclusion
	releaseFrees  = locktest.ReleaseFrees
	leaseKept     = locktest.LeaseKept
	crashRecovery = locktest.CrashRecovery
	crashMidAcq   = locktest.CrashMidAcquire
	crashMidRel   = locktest.CrashMidRelease
	clockSkew     = locktest.ClockSkew
	safeRelease   = locktest.SafeRelease
	doubleRelease = locktest.DoubleRelease
	safeRefresh   = locktest.SafeRefresh
	fencedOverrun = locktest.FencedOverrun
	failover      = locktest.Failover
	holderClock   = locktest.HolderClock
	acquireFaults = locktest.AcquireFaults
	renewAfter    = locktest.RenewAfterRelease
	releaseFaults = locktest.ReleaseFaults
)

// Mutants returns the corpus, grouped by the step that has the slip.
func Mutants() []Mutant {
	return []Mutant{
		// The token.
		{
			Name:    "shared-token",
			Slip:    "every client writes the same constant token, so each one's compare accepts the others' locks",
			Killers: props{safeRelease, doubleRelease, safeRefresh, acquireFaults, releaseFaults},
			slip:    recipe{token: func(string) string { return "locked" }},
		},
		{
			Name:    "token-per-instance",
			Slip:    "the token is drawn once per strategy instance, as \"host:pid\" is, and shared by every goroutine that uses the instance: one goroutine's release frees another's lock",
			Killers: props{doubleRelease},
			slip:    recipe{token: func(instance string) string { return instance }},
		},

		// The acquire.
		{
			Name:    "ex-milliseconds",
			Slip:    "EX is given the TTL in milliseconds: the lock lives a thousand times longer than asked",
			Killers: props{crashRecovery, acquireFaults},
			slip:    recipe{acquire: setNXExpiry("EX", time.Millisecond)},
		},
		{
			Name:    "ttl-seconds-truncated",
			Slip:    "the TTL is cut to whole seconds for the PEXPIRE after SET NX: below 1s that is PEXPIRE 0, which deletes the key at once",
			Killers: props{leaseKept, crashMidAcq, acquireFaults},
			slip:    recipe{acquire: setNXThenPexpire(wholeSeconds)},
		},
		{
			Name:    "ttl-halved",
			Slip:    "PX is given half the TTL (a safety margin taken off the key instead of off the holder's deadline)",
			Killers: props{leaseKept},
			slip:    recipe{acquire: setNXExpiry("PX", 2*time.Millisecond)},
		},
		{
			Name:    "ttl-shaved",
			Slip:    "PX is given the TTL less a twentieth: the lock is lost a little before its holder was promised",
			Killers: props{leaseKept},
			slip: recipe{
				acquire: func(s session, token string, ttl time.Duration) (bool, error) {
					return s.set(token, "NX", "PX", (ttl - ttl/20).Milliseconds())
				},
			},
		},
		{
			Name:    "ttl-doubled",
			Slip:    "PX is given twice the TTL: a crashed holder's lock stays that much longer",
			Killers: props{safeRefresh},
			Gap:     "only safe-refresh sees it, reading the PTTL of B's lock; crash-recovery lets a waiter try for the TTL plus 500ms of slack and does not time when the lock freed, so the same slip in a lock without Refresh passes",
			slip:    recipe{acquire: setNXExpiry("PX", time.Millisecond/2)},
		},
		{
			Name:    "setnx-then-pexpire",
			Slip:    "SETNX, then PEXPIRE as a second command: a crash between them leaves a lock that never expires",
			Killers: props{crashMidAcq, acquireFaults},
			slip:    recipe{acquire: setNXThenPexpire(sameTTL)},
		},
		{
			Name:    "multi-setnx-pexpire",
			Slip:    "MULTI / SETNX / PEXPIRE / EXEC: the PEXPIRE runs even when SETNX failed, so every waiter resets the holder's TTL to its own",
			Killers: props{leaseKept, crashRecovery},
			slip:    recipe{acquire: multiSetNXPexpire},
		},
		{
			Name:    "no-expiry",
			Slip:    "SET NX without any expiry: a crashed holder's lock is never freed",
			Killers: props{crashRecovery, acquireFaults},
			slip:    recipe{acquire: setNXExpiry("", 0)},
		},
		{
			Name:    "no-nx",
			Slip:    "SET PX without NX: every attempt overwrites the holder's lock and succeeds",
			Killers: props{exclusion, leaseKept, clockSkew, safeRelease, doubleRelease, safeRefresh, releaseFaults, acquireFaults},
			slip: recipe{
				acquire: func(s session, token string, ttl time.Duration) (bool, error) {
					return s.set(token, "PX", ttl.Milliseconds())
				},
			},
		},
		{
			Name:    "nil-taken-for-ok",
			Slip:    "the nil reply of SET NX is not checked: a lost attempt is taken for a lock",
			Killers: props{exclusion, leaseKept, clockSkew, safeRelease, doubleRelease, safeRefresh, acquireFaults},
			slip: recipe{
				acquire: func(s session, token string, ttl time.Duration) (bool, error) {
					_, err := s.do("SET", token, "NX", "PX", ttl.Milliseconds())
					return err == nil, err
				},
			},
		},
		{
			Name:    "get-then-set",
			Slip:    "acquire GETs, and SETs without NX when it found no key: two waiters can both pass the check",
			Killers: props{exclusion},
			slip: recipe{
				acquire: func(s session, token string, ttl time.Duration) (bool, error) {
					if _, taken, err := s.get(); taken || err != nil {
						return false, err
					}
					return s.set(token, "PX", ttl.Milliseconds())
				},
			},
		},
		{
			Name:    "expiry-from-client-clock",
			Slip:    "SET NX PXAT with the client's clock plus the TTL: a holder whose clock runs ahead keeps the lock longer than asked, one behind loses it at once",
			Killers: props{holderClock},
			slip: recipe{
				acquire: func(s session, token string, ttl time.Duration) (bool, error) {
					return s.set(token, "NX", "PXAT", s.clock.Now().Add(ttl).UnixMilli())
				},
			},
		},
		{
			Name:    "error-taken-for-grant",
			Slip:    "any error of SET NX PX is taken for a grant, since the command may have gone through: a holder's lock is handed out again on an error reply",
			Killers: props{acquireFaults},
			slip:    recipe{acquire: grantOn(func(error) bool { return true })},
		},
		{
			Name:    "uncertain-taken-for-grant",
			Slip:    "a timeout or a dropped connection after SET NX PX is taken for a grant (\"it probably went through\"), while error replies are refused",
			Killers: props{acquireFaults},
			slip:    recipe{acquire: grantOn(uncertain)},
		},
		{
			Name:    "noscript-not-held",
			Slip:    "the acquire script, loaded then called by EVALSHA, reads NOSCRIPT as a server restarted empty, so not held, and takes the key with SET PX without NX",
			Killers: props{acquireFaults},
			slip:    recipe{acquire: noscriptNotHeld},
		},
		{
			Name:    "undo-by-del",
			Slip:    "on an error of SET NX PX, the acquire DELs the key to undo a SET that may have gone through, without comparing the token: it frees the holder's lock",
			Killers: props{acquireFaults},
			slip:    recipe{acquire: undoByDel},
		},
		{
			Name:    "retry-nil-taken-for-first",
			Slip:    "after a lost reply the acquire retries SET NX PX with a fresh token and reads the retry's nil as proof that its first SET went through",
			Killers: props{acquireFaults},
			slip:    recipe{acquire: retryNilTakenForFirst},
		},
		{
			Name:    "refuses-without-replica",
			Slip:    "acquire refuses whenever INFO replication shows no connected replica, to fail closed: after a failover the promoted replica has none, and nobody can lock again",
			Killers: props{releaseFrees, failover},
			slip:    recipe{acquire: refuseWithoutReplica},
		},
		{
			Name:    "acquire-waits-for-replica",
			Slip:    "acquire SETs the key, then WAITs up to 100ms for a replica to acknowledge it and, to fail closed, deletes its own token and refuses when none did: without a replica every free lock is refused, slowly",
			Killers: props{releaseFrees},
			slip:    recipe{acquire: waitForReplica},
		},

		// The release.
		{
			Name:    "release-del",
			Slip:    "release DELs the key without comparing the token",
			Killers: props{safeRelease, doubleRelease},
			slip:    recipe{release: deleteWith("DEL")},
		},
		{
			Name:    "release-get-del",
			Slip:    "release GETs the token, compares it in the client, then DELs: the key can change hands in between",
			Killers: props{safeRelease},
			slip:    recipe{release: compareInClient(deleteWith("DEL"))},
		},
		{
			Name:    "release-get-unlink",
			Slip:    "the same check-then-act with UNLINK: GET, compare in the client, UNLINK",
			Killers: props{safeRelease},
			slip:    recipe{release: compareInClient(deleteWith("UNLINK"))},
		},
		{
			Name:    "release-get-multi-del",
			Slip:    "GET and compare outside, then MULTI / DEL / EXEC without WATCH: the transaction does not cover the compare",
			Killers: props{safeRelease},
			slip:    recipe{release: compareInClient(multiDel)},
		},
		{
			Name:    "release-compare-inverted",
			Slip:    "the release script compares with ~= instead of ==: it deletes exactly the locks that are not its own",
			Killers: props{releaseFrees, safeRelease, releaseFaults},
			slip:    recipe{release: script(invertedCompare)},
		},
		{
			Name:    "release-length-compare",
			Slip:    "the release script compares the lengths of the tokens, not the tokens: every xid is 20 characters",
			Killers: props{safeRelease, doubleRelease, releaseFaults},
			slip:    recipe{release: script(lengthCompare)},
		},
		{
			Name:    "release-swallows-errors",
			Slip:    "release reports success when its command fails, so the caller believes a lock is free that is still held",
			Killers: props{releaseFrees, releaseFaults},
			slip:    recipe{release: swallowErrors(correct.release)},
		},
		{
			Name:    "release-persist-first",
			Slip:    "release first PERSISTs the key, so that it cannot expire half-way, then compares and deletes: a crash in between leaves it forever",
			Killers: props{crashMidRel, safeRelease, doubleRelease, releaseFaults},
			slip:    recipe{release: persistFirst(correct.release)},
		},
		{
			Name:    "release-del-on-error",
			Slip:    "when the release script returns an error, the release sends a plain DEL so that nothing stays locked",
			Killers: props{releaseFaults},
			slip:    recipe{release: delOnError(correct.release)},
		},

		{
			Name:    "release-getdel-restore",
			Slip:    "release GETDELs the key and, when the value was not its own, SETs it back: without its TTL, and with the key gone in between",
			Killers: props{safeRelease, doubleRelease},
			slip:    recipe{release: getDelRestore},
		},
		{
			Name:    "release-restore-drops-ttl",
			Slip:    "the release script deletes the key and, when the value was not its own, sets it back: the next holder keeps its value and loses its expiry",
			Killers: props{safeRelease, doubleRelease, releaseFaults},
			slip:    recipe{release: script(restoreWithoutTTL)},
		},
		{
			Name:    "release-second-key-unchecked",
			Slip:    "the release script compares the token at the lock's first key only, and deletes its second key whatever it holds, as a mere copy of the first: a late release takes a key of the next holder's",
			Killers: props{safeRelease, doubleRelease, releaseFaults},
			Base:    "two-keys",
			slip:    recipe{release: script2(secondKeyUnchecked)},
		},

		// The fencing token, in the fenced variant.
		{
			Name:    "fence-incr-after-set",
			Slip:    "the fencing token is INCRed in a command of its own after SET NX PX: a holder stalled in between draws it after the next holder",
			Killers: props{fencedOverrun},
			Base:    "fence-in-acquire",
			slip:    recipe{fenced: fenceAfterSet},
		},
		{
			Name:    "fence-from-clock",
			Slip:    "the fencing token is the client's clock in nanoseconds at acquire: a client whose clock runs ahead draws larger tokens than later holders",
			Killers: props{fencedOverrun},
			Base:    "fence-in-acquire",
			slip:    recipe{fenced: fenceFromClock},
		},

		// The refresh.
		{
			Name:    "refresh-pexpire",
			Slip:    "refresh PEXPIREs the key without comparing the token: a late one extends the next holder's lock",
			Killers: props{safeRefresh, acquireFaults},
			slip: recipe{
				refresh: func(s session, _ string, ttl time.Duration) (bool, error) {
					return s.one(s.do("PEXPIRE", ttl.Milliseconds()))
				},
			},
		},
		{
			Name:    "refresh-get-pexpire",
			Slip:    "refresh GETs the token, compares it in the client, then PEXPIREs: the key can change hands in between",
			Killers: props{safeRefresh},
			slip: recipe{
				refresh: func(s session, token string, ttl time.Duration) (bool, error) {
					if ok, err := s.owns(token); !ok || err != nil {
						return false, err
					}
					return s.one(s.do("PEXPIRE", ttl.Milliseconds()))
				},
			},
		},
		{
			Name:    "refresh-set-xx",
			Slip:    "refresh rewrites the key with SET token XX PX, without comparing: a late one takes the lock back",
			Killers: props{safeRefresh, acquireFaults},
			slip: recipe{
				refresh: func(s session, token string, ttl time.Duration) (bool, error) {
					return s.set(token, "XX", "PX", ttl.Milliseconds())
				},
			},
		},
		{
			Name:    "refresh-ignores-reply",
			Slip:    "refresh runs the compare-and-PEXPIRE script but ignores its 0: a late one reports a lock it no longer holds",
			Killers: props{safeRefresh, acquireFaults},
			slip: recipe{
				refresh: func(s session, token string, ttl time.Duration) (bool, error) {
					_, err := s.eval(compareAndExpire, token, ttl.Milliseconds())
					return err == nil, err
				},
			},
		},
		{
			Name:    "refresh-noscript-pexpire",
			Slip:    "the refresh script, loaded then called by EVALSHA, falls back on NOSCRIPT to a bare PEXPIRE, which compares no token: a late one extends the next holder's lock",
			Killers: props{acquireFaults},
			slip:    recipe{refresh: noscriptPexpire},
		},
		{
			Name:    "refresh-adds-ttl",
			Slip:    "refresh adds the TTL to what the key has left (PTTL + ttl) instead of setting it: a refreshed lock outlives the TTL its holder asked for",
			Killers: props{crashRecovery},
			slip:    recipe{refresh: scriptTTL(compareAndAddTTL)},
		},
		{
			Name:    "refresh-ex-milliseconds",
			Slip:    "the refresh script calls EXPIRE with the TTL in milliseconds: a refreshed lock lives a thousand times longer than asked",
			Killers: props{crashRecovery},
			slip:    recipe{refresh: scriptTTL(compareAndExpireSeconds)},
		},
		{
			Name:    "refresh-swallows-errors",
			Slip:    "refresh reports success when its script fails, so the holder believes its lease extended when the command never ran",
			Killers: props{acquireFaults},
			slip: recipe{
				refresh: func(s session, token string, ttl time.Duration) (bool, error) {
					ok, err := s.one(s.eval(compareAndExpire, token, ttl.Milliseconds()))
					return ok || err != nil, nil
				},
			},
		},
		// The watchdog.
		{
			Name:    "watchdog-outlives-release",
			Slip:    "the watchdog renews the lock on a context of its own, which Release never cancels: it renews on after the release, until a renewal finds the lock gone",
			Killers: props{renewAfter},
			Base:    "watchdog",
			slip:    recipe{watchdog: renewEvery(false)},
		},

		{
			Name:    "refresh-halved",
			Slip:    "refresh gives PEXPIRE half the TTL asked for: a refreshed lock expires early",
			Killers: props{leaseKept},
			slip: recipe{
				refresh: func(s session, token string, ttl time.Duration) (bool, error) {
					return s.one(s.eval(compareAndExpire, token, ttl.Milliseconds()/2))
				},
			},
		},
	}
}

// Survivors returns mutants that the suite does not kill yet: each one's
// Gap says what the suite would need. They break nothing but the overrun
// properties; once a property kills one, it belongs in Mutants.
func Survivors() []Mutant {
	return []Mutant{
		{
			Name: "release-ignores-reply",
			Slip: "release runs the compare-and-delete script but ignores its 0: a late or second release reports a lock freed that it did not free",
			Gap:  "none, by decision: B's lock keeps its value and expiry and nobody gets in; what A's late Release tells A comes after A's work ran past its lease, which only a heeded lease or a fencing token protects (docs/mutants.md)",
			slip: recipe{
				release: func(s session, token string) (bool, error) {
					_, err := s.eval(compareAndDelete, token)
					return err == nil, err
				},
			},
		},
	}
}

// setNXExpiry sets the token with NX and, unless unit is "", the TTL
// counted in per's: the correct lock is setNXExpiry("PX", time.Millisecond).
func setNXExpiry(unit string, per time.Duration) func(session, string, time.Duration) (bool, error) {
	return func(s session, token string, ttl time.Duration) (bool, error) {
		if unit == "" {
			return s.set(token, "NX")
		}
		return s.set(token, "NX", unit, int64(ttl/per))
	}
}

// setNXThenPexpire sets the token with SETNX and, when that took the key,
// gives it the TTL ms(ttl) in a second command.
func setNXThenPexpire(ms func(time.Duration) int64) func(session, string, time.Duration) (bool, error) {
	return func(s session, token string, ttl time.Duration) (bool, error) {
		if ok, err := s.one(s.do("SETNX", token)); !ok || err != nil {
			return false, err
		}
		_, err := s.do("PEXPIRE", ms(ttl))
		return err == nil, err
	}
}

func sameTTL(ttl time.Duration) int64 { return ttl.Milliseconds() }

// wholeSeconds is the TTL as whole seconds, back in milliseconds.
func wholeSeconds(ttl time.Duration) int64 { return int64(ttl.Seconds()) * 1000 }

// multiSetNXPexpire queues SETNX and PEXPIRE in one transaction and reads
// success from SETNX's reply; the PEXPIRE applies whatever SETNX did.
func multiSetNXPexpire(s session, token string, ttl time.Duration) (bool, error) {
	replies, err := s.multi(cmd{"SETNX", token}, cmd{"PEXPIRE", ttl.Milliseconds()})
	if err != nil {
		return false, err
	}
	return s.one(replies[0], nil)
}

var (
	invertedCompare = redis.NewScript(1, `
if redis.call("GET", KEYS[1]) ~= ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

	compareAndExpireSeconds = redis.NewScript(1, `
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("EXPIRE", KEYS[1], ARGV[2])
end
return 0`)

	lengthCompare = redis.NewScript(1, `
if #(redis.call("GET", KEYS[1]) or "") == #ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)
)

// deleteWith releases with cmd (DEL or UNLINK), whoever holds the key.
func deleteWith(cmd string) func(session, string) (bool, error) {
	return func(s session, _ string) (bool, error) {
		return s.one(s.do(cmd))
	}
}

// multiDel deletes the key in a MULTI / DEL / EXEC without WATCH.
func multiDel(s session, _ string) (bool, error) {
	replies, err := s.multi(cmd{"DEL"})
	if err != nil {
		return false, err
	}
	return s.one(replies[0], nil)
}

// owns GETs the key and compares its value with token, in the client.
func (s session) owns(token string) (bool, error) {
	v, ok, err := s.get()
	return ok && v == token, err
}

// compareInClient runs del only after a GET has found the token.
func compareInClient(del func(session, string) (bool, error)) func(session, string) (bool, error) {
	return func(s session, token string) (bool, error) {
		if ok, err := s.owns(token); !ok || err != nil {
			return false, err
		}
		return del(s, token)
	}
}

// swallowErrors turns a failed release into a reported success.
func swallowErrors(release func(session, string) (bool, error)) func(session, string) (bool, error) {
	return func(s session, token string) (bool, error) {
		ok, err := release(s, token)
		if err != nil {
			return true, nil
		}
		return ok, nil
	}
}

// delOnError falls back to a DEL of the key, on the same connection,
// when release returns an error; it reports what the DEL did, or the
// first error when the DEL fails too.
func delOnError(release func(session, string) (bool, error)) func(session, string) (bool, error) {
	return func(s session, token string) (bool, error) {
		ok, err := release(s, token)
		if err == nil {
			return ok, nil
		}
		if ok, derr := s.one(s.do("DEL")); derr == nil {
			return ok, nil
		}
		return false, err
	}
}

// persistFirst removes the key's TTL before release runs.
func persistFirst(release func(session, string) (bool, error)) func(session, string) (bool, error) {
	return func(s session, token string) (bool, error) {
		if _, err := s.do("PERSIST"); err != nil {
			return false, err
		}
		return release(s, token)
	}
}

// getDelRestore takes the key's value with GETDEL and, when it was not
// the token, writes it back with SET: the value returns, its TTL does not.
func getDelRestore(s session, token string) (bool, error) {
	v, err := redis.String(s.do("GETDEL"))
	if errors.Is(err, redis.ErrNil) {
		return false, nil
	}
	if err != nil || v == token {
		return err == nil, err
	}
	_, err = s.do("SET", v)
	return false, err
}

var secondKeyUnchecked = redis.NewScript(2, `
local mine = redis.call("GET", KEYS[1]) == ARGV[1]
if mine then
	redis.call("DEL", KEYS[1])
end
redis.call("DEL", KEYS[2])
return mine and 1 or 0`)

// script2 is a release by a script on the two-keys variant's keys that
// takes the token and answers 1 when it released the lock.
func script2(sc *redis.Script) func(session, string) (bool, error) {
	return func(s session, token string) (bool, error) {
		return s.one(s.evalKeys(sc, twoKeys(s.key), token))
	}
}

var restoreWithoutTTL = redis.NewScript(1, `
local v = redis.call("GET", KEYS[1])
if not v then
	return 0
end
redis.call("DEL", KEYS[1])
if v == ARGV[1] then
	return 1
end
redis.call("SET", KEYS[1], v)
return 0`)

// fenceKey is where the fenced locks of the corpus count their tokens.
func (s session) fenceKey() string { return "{" + s.key + "}:fence" }

// fenceAfterSet takes the lock with SET NX PX, then draws the token with
// INCR in a second command.
func fenceAfterSet(s session, token string, ttl time.Duration) (bool, int64, error) {
	if ok, err := s.set(token, "NX", "PX", ttl.Milliseconds()); !ok || err != nil {
		return false, 0, err
	}
	n, err := redis.Int64(s.bare("INCR", s.fenceKey()))
	return err == nil, n, err
}

// fenceFromClock takes the lock with SET NX PX and makes the token of the
// client's clock.
func fenceFromClock(s session, token string, ttl time.Duration) (bool, int64, error) {
	if ok, err := s.set(token, "NX", "PX", ttl.Milliseconds()); !ok || err != nil {
		return false, 0, err
	}
	return true, s.clock.Now().UnixNano(), nil
}

// refuseWithoutReplica takes the lock as the correct one does, but only
// while the server reports a connected replica.
func refuseWithoutReplica(s session, token string, ttl time.Duration) (bool, error) {
	info, err := redis.String(s.bare("INFO", "replication"))
	if err != nil {
		return false, err
	}
	if strings.Contains(info, "connected_slaves:0") {
		return false, nil
	}
	return s.set(token, "NX", "PX", ttl.Milliseconds())
}

// renewEvery is a watchdog that refreshes its lock every third of its TTL
// until a refresh fails or, when stops, Release stops it and waits for
// it.
func renewEvery(stops bool) func(*lock, time.Duration) func() {
	return func(l *lock, ttl time.Duration) func() {
		return l.lease.Watch(ttl, l.extend, stops)
	}
}

// Extender extends a hold to live ttl.
type Extender func(ctx context.Context, ttl time.Duration) error

// Lease is the TTL a hold's watchdog renews it with: the last its holder
// asked for, by its acquire or a Refresh that succeeded, whatever the
// watchdog began with, so that a renewal never cuts a lease that a
// Refresh lengthened. Its mutex orders a Refresh and a renewal: a
// renewal that read the TTL before a Refresh stored a longer one, and
// ran after it, would cut the lease the Refresh lengthened.
type Lease struct {
	mu  sync.Mutex
	ttl time.Duration
}

// Asked runs extend, a Refresh of the hold with ttl by its holder; once
// it succeeded, the watchdog renews with ttl.
func (l *Lease) Asked(ctx context.Context, ttl time.Duration, extend Extender) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := extend(ctx, ttl)
	if err == nil {
		l.ttl = ttl
	}
	return err
}

// Watch starts the watchdog of a hold taken with ttl: it runs extend
// with the lease's TTL every third of ttl until a renewal fails or, when
// stops, the function it returns is called, which waits for it. Without
// stops (the slip of the corpora's watchdog-outlives-release), that
// function does nothing: the watchdog renews on after the release,
// until a renewal finds the hold gone.
func (l *Lease) Watch(ttl time.Duration, extend Extender, stops bool) (stop func()) {
	l.mu.Lock()
	l.ttl = ttl
	l.mu.Unlock()
	renew := func(ctx context.Context) error {
		l.mu.Lock()
		defer l.mu.Unlock()
		return extend(ctx, l.ttl)
	}
	done := make(chan struct{})
	if !stops {
		go renewLoop(context.Background(), renew, ttl/3, done)
		return func() {} // the slip: nothing stops it
	}
	ctx, cancel := context.WithCancel(context.Background())
	go renewLoop(ctx, renew, ttl/3, done)
	return func() { cancel(); <-done }
}

// renewLoop runs renew every period until it fails or ctx ends, then
// closes done.
func renewLoop(ctx context.Context, renew func(context.Context) error, every time.Duration, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if renew(ctx) != nil {
			return
		}
	}
}

// waitForReplica takes the lock with SET NX PX, then WAITs up to 100ms
// for one replica to acknowledge it; when none did, it deletes its own
// token with the compare-and-delete script and refuses.
func waitForReplica(s session, token string, ttl time.Duration) (bool, error) {
	if ok, err := s.set(token, "NX", "PX", ttl.Milliseconds()); !ok || err != nil {
		return false, err
	}
	n, err := redis.Int(s.bare("WAIT", 1, 100))
	if err == nil && n >= 1 {
		return true, nil
	}
	if _, derr := s.eval(compareAndDelete, token); err == nil {
		err = derr
	}
	return false, err
}

// grantOn is SET NX PX that takes an error for which grant says so for a
// lock: the command may have gone through.
func grantOn(grant func(error) bool) func(session, string, time.Duration) (bool, error) {
	return func(s session, token string, ttl time.Duration) (bool, error) {
		ok, err := s.set(token, "NX", "PX", ttl.Milliseconds())
		if err != nil && grant(err) {
			return true, nil
		}
		return ok, err
	}
}

var acquireScript = redis.NewScript(1, `
return redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) and 1 or 0`)

// noscriptNotHeld loads the acquire script and calls it by its digest; a
// NOSCRIPT is read as a server that restarted empty, where nobody holds
// the lock, and the key is taken without NX.
func noscriptNotHeld(s session, token string, ttl time.Duration) (bool, error) {
	if err := acquireScript.Load(s.conn); err != nil {
		return false, err
	}
	n, err := redis.Int(s.bare("EVALSHA", acquireScript.Hash(), 1, s.key, token, ttl.Milliseconds()))
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		return s.set(token, "PX", ttl.Milliseconds())
	}
	return n == 1, err
}

// noscriptPexpire is the compare-and-PEXPIRE refresh by EVALSHA, which
// falls back on NOSCRIPT to a bare PEXPIRE.
func noscriptPexpire(s session, token string, ttl time.Duration) (bool, error) {
	if err := compareAndExpire.Load(s.conn); err != nil {
		return false, err
	}
	n, err := redis.Int(s.bare("EVALSHA", compareAndExpire.Hash(), 1, s.key, token, ttl.Milliseconds()))
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		return s.one(s.do("PEXPIRE", ttl.Milliseconds()))
	}
	return n == 1, err
}

// undoByDel is SET NX PX followed, on an error, by a DEL of the key.
func undoByDel(s session, token string, ttl time.Duration) (bool, error) {
	ok, err := s.set(token, "NX", "PX", ttl.Milliseconds())
	if err != nil {
		if t, done, aerr := s.again(); aerr == nil {
			t.do("DEL")
			done()
		}
	}
	return ok, err
}

// retryNilTakenForFirst is SET NX PX, retried once on a fresh connection
// with a fresh token after an uncertain error; the retry's nil reads as
// the first attempt's success.
func retryNilTakenForFirst(s session, token string, ttl time.Duration) (bool, error) {
	ok, err := s.set(token, "NX", "PX", ttl.Milliseconds())
	if !uncertain(err) {
		return ok, err
	}
	t, done, err := s.again()
	if err != nil {
		return false, err
	}
	defer done()
	if _, err := t.set(xid.New().String(), "NX", "PX", ttl.Milliseconds()); err != nil {
		return false, err
	}
	return true, nil // taken now, or by the first SET
}
