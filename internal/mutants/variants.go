package mutants

import (
	"errors"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
)

// Variant is the correct lock written another correct way. It must hold
// every property except the three that no TTL lock without renewal or
// fencing can hold (holder-overrun, fenced-overrun, renewed-overrun),
// less fenced-overrun for a fenced one.
type Variant struct {
	// Name identifies the variant, in kebab case.
	Name string
	// Change says what differs from the usual lock, and why it is still
	// correct.
	Change string
	// Fenced says the variant draws fencing tokens: it holds
	// fenced-overrun as well.
	Fenced bool
	// Renews says the variant renews itself while held, without a lease:
	// it keeps its lock over holder-overrun only while each renewal comes
	// in time, which no machine promises, so that one is not judged.
	Renews bool
	// steps are the steps that differ from the correct lock's; the others
	// are nil.
	steps recipe
}

// LookupVariant returns the variant named name.
func LookupVariant(name string) (Variant, bool) {
	for _, v := range Variants() {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// New builds the variant for one simulated client; it is a
// locktest.Factory.
func (v Variant) New(c locktest.Client) (strategy.Strategy, error) {
	return build(v.Name, v.steps, c.Pool, c.Clock), nil
}

// Variants returns the correct lock itself, then its correct variants.
func Variants() []Variant {
	return []Variant{
		{
			Name:   "correct",
			Change: "nothing: SET NX PX with a unique token, Lua compare-and-delete, Lua compare-and-PEXPIRE; every mutant is this lock with one slip",
		},
		{
			Name:   "watch-release",
			Change: "release by WATCH, GET and compare, then MULTI / DEL / EXEC: EXEC fails if the key changed after the WATCH",
			steps: recipe{
				release: func(s session, token string) (bool, error) {
					return watched(s, token, cmd{"DEL"})
				},
			},
		},
		{
			Name:   "watch-release-pipelined",
			Change: "release by WATCH, GET and compare, then MULTI, DEL and EXEC sent in one pipeline, as redigo's documentation writes a transaction: a server never answers MULTI with an error, so the DEL is always queued",
			steps: recipe{
				release: func(s session, token string) (bool, error) {
					return watchedPipelined(s, token)
				},
			},
		},
		{
			Name:   "release-retries-script",
			Change: "when the compare-and-delete script returns an error, the release runs it again on a fresh connection, twice at most: every try compares the token, so a retry that runs after the lock has passed on deletes nothing",
			steps:  recipe{release: retryScript},
		},
		{
			Name:   "multi-acquire",
			Change: "acquire by MULTI / SET NX PX / EXEC: a transaction of one atomic command, still atomic",
			steps: recipe{
				acquire: func(s session, token string, ttl time.Duration) (bool, error) {
					replies, err := s.multi(cmd{"SET", token, "NX", "PX", ttl.Milliseconds()})
					if err != nil {
						return false, err
					}
					return replies[0] != nil, nil
				},
			},
		},
		{
			Name:   "hash-lua",
			Change: "the token in a hash field: a Lua acquire HSETs and PEXPIREs a key that does not exist, and Lua release and refresh compare the field",
			steps: recipe{
				acquire: func(s session, token string, ttl time.Duration) (bool, error) {
					return s.one(s.eval(hashAcquire, token, ttl.Milliseconds()))
				},
				release: script(hashRelease),
				refresh: scriptTTL(hashRefresh),
			},
		},
		{
			Name:   "fence-in-acquire",
			Change: "a fencing token INCRed in the acquire's own script, in the step that takes the lock: tokens follow the order in which the lock is held",
			Fenced: true,
			steps:  recipe{fenced: fenceInScript},
		},
		{
			Name:   "acquire-rereads-on-doubt",
			Change: "after a timeout or a dropped connection, whose SET NX PX may have run, the acquire GETs the key on a fresh connection and takes the lock only if it holds its own token; an error reply is an error",
			steps:  recipe{acquire: rereadOnDoubt},
		},
		{
			Name:   "acquire-undoes-on-error",
			Change: "on any error of SET NX PX, the acquire deletes its own token with the compare-and-delete script on a fresh connection, then returns the error: a SET that went through leaves nothing behind",
			steps:  recipe{acquire: undoOwnOnError},
		},
		{
			Name:   "two-keys",
			Change: "the token at two keys of the lock's own, K:0 and K:1 (strategy.Keyed), taken, compared and deleted or extended together, each step one script: the lock is held while both hold its token",
			steps: recipe{
				keys:    twoKeys,
				acquire: keyedAcquire,
				release: func(s session, token string) (bool, error) {
					return s.one(s.evalKeys(keyedRelease, twoKeys(s.key), token))
				},
				refresh: func(s session, token string, ttl time.Duration) (bool, error) {
					return s.one(s.evalKeys(keyedRefresh, twoKeys(s.key), token, ttl.Milliseconds()))
				},
			},
		},
		{
			Name:   "watchdog",
			Change: "a watchdog renews the lock every third of its TTL with the compare-and-PEXPIRE refresh; Release stops it, and waits for it, before it deletes the key",
			Renews: true,
			steps:  recipe{watchdog: renewEvery(true)},
		},
		{
			Name:   "refresh-never-shortens",
			Change: "a refresh for less than the key has left leaves the key as it is (PEXPIRE's GT): the lock is held at least as long as its holder asked, and never beyond the longest it asked for",
			steps:  recipe{refresh: scriptTTL(compareAndExpireGT)},
		},
		{
			Name:   "watch-refresh",
			Change: "refresh by WATCH, GET and compare, then MULTI / PEXPIRE / EXEC: EXEC fails if the key changed after the WATCH",
			steps: recipe{
				refresh: func(s session, token string, ttl time.Duration) (bool, error) {
					return watched(s, token, cmd{"PEXPIRE", ttl.Milliseconds()})
				},
			},
		},
	}
}

// compareAndExpireGT is compareAndExpire that never shortens the key's
// time to live: a refresh for less than it has left is done already.
var compareAndExpireGT = redis.NewScript(1, `
if redis.call("GET", KEYS[1]) == ARGV[1] then
	if redis.call("PTTL", KEYS[1]) < tonumber(ARGV[2]) then
		redis.call("PEXPIRE", KEYS[1], ARGV[2])
	end
	return 1
end
return 0`)

// watched runs c in a transaction if the key holds token, with the key
// WATCHed from before the GET that compares it: when the key changes in
// between, EXEC runs nothing.
func watched(s session, token string, c cmd) (bool, error) {
	if _, err := s.do("WATCH"); err != nil {
		return false, err
	}
	if ok, err := s.owns(token); !ok || err != nil {
		if err == nil {
			_, err = s.bare("UNWATCH")
		}
		return false, err
	}
	replies, err := s.multi(c)
	if errors.Is(err, redis.ErrNil) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return s.one(replies[0], nil)
}

// watchedPipelined is watched with MULTI, DEL and EXEC sent at once,
// their replies read after: Send, Send, then Do of EXEC.
func watchedPipelined(s session, token string) (bool, error) {
	if _, err := s.do("WATCH"); err != nil {
		return false, err
	}
	if ok, err := s.owns(token); !ok || err != nil {
		if err == nil {
			_, err = s.bare("UNWATCH")
		}
		return false, err
	}
	if err := s.conn.Send("MULTI"); err != nil {
		return false, err
	}
	if err := s.conn.Send("DEL", s.key); err != nil {
		return false, err
	}
	replies, err := redis.Values(redis.DoContext(s.conn, s.ctx, "EXEC"))
	if errors.Is(err, redis.ErrNil) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return s.one(replies[0], nil)
}

var (
	hashAcquire = redis.NewScript(1, `
if redis.call("EXISTS", KEYS[1]) == 0 then
	redis.call("HSET", KEYS[1], "owner", ARGV[1])
	redis.call("PEXPIRE", KEYS[1], ARGV[2])
	return 1
end
return 0`)

	hashRelease = redis.NewScript(1, `
if redis.call("HGET", KEYS[1], "owner") == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

	hashRefresh = redis.NewScript(1, `
if redis.call("HGET", KEYS[1], "owner") == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)
)

// twoKeys are the keys the two-keys variant keeps a lock on key under.
func twoKeys(key string) []string { return []string{key + ":0", key + ":1"} }

var (
	keyedAcquireScript = redis.NewScript(2, `
if redis.call("EXISTS", KEYS[1], KEYS[2]) > 0 then
	return 0
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
redis.call("SET", KEYS[2], ARGV[1], "PX", ARGV[2])
return 1`)

	keyedRelease = redis.NewScript(2, `
if redis.call("GET", KEYS[1]) == ARGV[1] and redis.call("GET", KEYS[2]) == ARGV[1] then
	return redis.call("DEL", KEYS[1], KEYS[2])
end
return 0`)

	keyedRefresh = redis.NewScript(2, `
if redis.call("GET", KEYS[1]) == ARGV[1] and redis.call("GET", KEYS[2]) == ARGV[1] then
	redis.call("PEXPIRE", KEYS[1], ARGV[2])
	return redis.call("PEXPIRE", KEYS[2], ARGV[2])
end
return 0`)
)

// keyedAcquire takes both of the two-keys variant's keys, or neither.
func keyedAcquire(s session, token string, ttl time.Duration) (bool, error) {
	return s.one(s.evalKeys(keyedAcquireScript, twoKeys(s.key), token, ttl.Milliseconds()))
}

var acquireFenced = redis.NewScript(2, `
if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
	return redis.call("INCR", KEYS[2])
end
return 0`)

// fenceInScript takes the lock and draws its token in one script.
func fenceInScript(s session, token string, ttl time.Duration) (bool, int64, error) {
	n, err := redis.Int64(acquireFenced.DoContext(s.ctx, s.conn, s.key, s.fenceKey(), token, ttl.Milliseconds()))
	return err == nil && n > 0, n, err
}

// retryScript is the compare-and-delete release, run again on a fresh
// connection after an error, twice at most.
func retryScript(s session, token string) (bool, error) {
	ok, err := s.one(s.eval(compareAndDelete, token))
	for try := 0; err != nil && try < 2; try++ {
		t, done, aerr := s.again()
		if aerr != nil {
			break
		}
		ok, err = t.one(t.eval(compareAndDelete, token))
		done()
	}
	return ok, err
}

// rereadOnDoubt is SET NX PX; after an uncertain error it reads the key
// on a fresh connection and finds out whether its SET went through.
func rereadOnDoubt(s session, token string, ttl time.Duration) (bool, error) {
	ok, err := s.set(token, "NX", "PX", ttl.Milliseconds())
	if !uncertain(err) {
		return ok, err
	}
	t, done, aerr := s.again()
	if aerr != nil {
		return false, err
	}
	defer done()
	v, held, gerr := t.get()
	if gerr == nil && held && v == token {
		return true, nil
	}
	return false, err
}

// undoOwnOnError is SET NX PX; on any error it deletes its own token, if
// the SET left it, with the compare-and-delete script, and fails.
func undoOwnOnError(s session, token string, ttl time.Duration) (bool, error) {
	ok, err := s.set(token, "NX", "PX", ttl.Milliseconds())
	if err == nil {
		return ok, nil
	}
	if t, done, aerr := s.again(); aerr == nil {
		t.eval(compareAndDelete, token)
		done()
	}
	return false, err
}
