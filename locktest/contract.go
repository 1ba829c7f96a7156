package locktest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
	"github.com/rs/xid"
)

// ContractCheck is one check of Contract.
type ContractCheck struct {
	Name string  // empty-key, bad-ttl, cancelled, unreachable, wrong-type
	What Message // what the lock did, when it passed
	Err  error   // what went wrong, when it did not
}

// Contract checks what every lock must do (see ContractCheck.Name): take
// or refuse the empty key, refuse a TTL <= 0, leave nothing after a
// cancelled attempt, fail (not ErrNotAcquired) without Redis, leave a key
// of another type alone; never panic or hang.
func Contract(ctx context.Context, cfg Config) []ContractCheck {
	checks := []struct {
		name      string
		f         func(r *harness.Run, c *harness.Client) Message
		sharedKey bool // it locks "", one key for every run on the server: it waits for its turn
	}{
		{"empty-key", contractEmptyKey, true},
		{"bad-ttl", contractBadTTL, false},
		{"cancelled", contractCancelled, false},
		{"unreachable", contractUnreachable, false},
		{"wrong-type", contractWrongType, false},
	}
	pool := cfg.pool()
	defer pool.Close()
	noServer := checkPool(ctx, pool) // every check fails with it
	var out []ContractCheck
	for _, ch := range checks {
		what, err := Message{}, noServer
		var done func()
		if err == nil && ch.sharedKey {
			done, err = emptyKeyTurn(ctx, pool, cfg.timeout()+10*time.Second)
		}
		if err == nil {
			what, err = contractRun(ctx, cfg, pool, ch.name, ch.f)
		}
		if done != nil {
			done()
		}
		out = append(out, ContractCheck{Name: ch.name, What: what, Err: err})
	}
	return out
}

// contractRun runs one check on a fresh run and client, turning a failure,
// a panic or a hang into an error.
func contractRun(ctx context.Context, cfg Config, pool *redis.Pool, name string, f func(r *harness.Run, c *harness.Client) Message) (Message, error) {
	what, err := watchdog(ctx, cfg.timeout(), func(ctx context.Context) Message {
		r := harness.NewRun(ctx, cfg.setting(), pool, cfg.Key+":contract:"+name)
		defer r.Redis(func(c redis.Conn) error { _, err := c.Do("DEL", r.Key); return err })
		defer r.Shutdown()
		return f(r, r.NewClient("A", 0))
	})
	if h, ok := err.(*hung); ok {
		return Message{}, sim.Failure(mContractHung.New(h.after))
	}
	return what, err
}

// emptyKeyTurnKey is the key under which empty-key checks take turns. The
// key "" is one key for every run on a server, whatever its Config.Key:
// two checks at once (two tests, two processes, two exercises) would each
// meet the other's lock on it and call it a fault of its own. Its hash
// tag puts it in slot 0, with "", so that on a cluster both are on the
// node the suite talks to for "".
const emptyKeyTurnKey = "locklab-test:contract:{empty-key-2862}:turn"

// emptyKeyTurn waits for the empty key's turn on the server, for at most
// hold, and takes it for hold: a check that outlives its watchdog cannot
// keep it. It clears "" first (a lock that failed the check may have left
// it, with no expiry) and again when done, which gives the turn back.
func emptyKeyTurn(ctx context.Context, pool *redis.Pool, hold time.Duration) (func(), error) {
	conn, err := pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	token := xid.New().String()
	ms := hold.Milliseconds()
	for waited := time.Now(); ; {
		ok, err := redis.String(conn.Do("SET", emptyKeyTurnKey, token, "NX", "PX", ms))
		if err == nil && ok == "OK" {
			break
		}
		if err != nil && !errors.Is(err, redis.ErrNil) {
			return nil, err
		}
		if time.Since(waited) > hold {
			return nil, sim.Failure(mContractNoTurn.New(hold))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
	if _, err := conn.Do("DEL", ""); err != nil {
		return nil, err
	}
	return func() {
		// On an error the turn's expiry gives it back.
		c := pool.Get()
		defer c.Close()
		if _, err := c.Do("DEL", ""); err == nil {
			_, _ = giveTurn.Do(c, emptyKeyTurnKey, token)
		}
	}, nil
}

// giveTurn deletes the turn's key if it is still the caller's.
var giveTurn = redis.NewScript(1, `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// refused fails the run unless the attempt failed without a lock.
func refused(r *harness.Run, what Message, l strategy.Lock, err error) {
	if l != nil {
		r.Fail(mContractGaveLock.New(what))
	}
	if err == nil {
		r.Fail(mContractNeither.New(what))
	}
}

func contractEmptyKey(r *harness.Run, c *harness.Client) Message {
	l, err := c.Attempt(r.Ctx, "", r.Tm.Long)
	switch {
	case l == nil && err == nil:
		r.Fail(mContractNeither.New(mAttemptEmptyKey.New()))
	case l == nil:
		if r.Exists("") {
			r.Fail(mContractWrote.New(mAttemptEmptyKey.New(), err.Error()))
		}
		return mContractRefused.New(err.Error())
	}
	// Redis takes "" as a key like any other: a lock on it is no fault, as
	// long as it is one, and its release frees it.
	if err := l.Release(r.Ctx); err != nil {
		r.Fail(mContractReleaseFailed.New(mAttemptEmptyKey.New(), err.Error()))
	}
	if r.Exists("") {
		r.Fail(mContractReleaseLeft.New(mAttemptEmptyKey.New()))
	}
	return mContractEmptyKeyTaken.New()
}

func contractBadTTL(r *harness.Run, c *harness.Client) Message {
	var errs []error
	for _, ttl := range []time.Duration{0, -time.Second} {
		l, err := c.Attempt(r.Ctx, r.Key, ttl)
		refused(r, mAttemptTTL.New(ttl), l, err)
		if r.KeyExists() {
			r.Fail(mContractWrote.New(mAttemptTTL.New(ttl), err.Error()))
		}
		errs = append(errs, err)
	}
	return mContractRefusedBoth.New(errs[0].Error(), errs[1].Error())
}

func contractCancelled(r *harness.Run, c *harness.Client) Message {
	ctx, cancel := context.WithCancel(r.Ctx)
	cancel()
	l, err := c.Attempt(ctx, r.Key, r.Tm.Long)
	refused(r, mAttemptCancelled.New(), l, err)
	if r.KeyExists() {
		r.Fail(mContractHeld.New(mAttemptCancelled.New(), err.Error()))
	}
	return mContractRefused.New(err.Error())
}

func contractUnreachable(r *harness.Run, c *harness.Client) Message {
	// A warm client: it has acquired and released once, so its
	// connections are open and logged in, and the outage meets a command,
	// as a real one does, rather than the dial of a first connection.
	l, err := c.Attempt(r.Ctx, r.Key, r.Tm.Long)
	if l == nil {
		r.Fail(mContractNeedsLock.New(fmt.Sprint(err)))
	}
	// Whatever the release says: release-frees judges it. Then the
	// client's connections are cut and new ones refused, as a server out
	// of reach.
	_ = l.Release(r.Ctx)
	c.Kill()
	l, err = c.Attempt(r.Ctx, r.Key, r.Tm.Long)
	refused(r, mAttemptUnreachable.New(), l, err)
	if errors.Is(err, strategy.ErrNotAcquired) {
		r.Fail(mContractNotAcquired.New(err.Error()))
	}
	return mContractRefused.New(err.Error())
}

func contractWrongType(r *harness.Run, c *harness.Client) Message {
	// The hash goes where the lock keeps its state: K, or its own keys.
	keys := r.LockKeys()
	r.Redis(func(conn redis.Conn) error {
		for _, k := range keys {
			if _, err := conn.Do("HSET", k, "owner", "someone else"); err != nil {
				return err
			}
		}
		return nil
	})
	defer r.Redis(func(conn redis.Conn) error {
		for _, k := range keys {
			if _, err := conn.Do("DEL", k); err != nil {
				return err
			}
		}
		return nil
	})
	l, err := c.Attempt(r.Ctx, r.Key, r.Tm.Long)
	if l != nil {
		r.Fail(mContractGaveLock.New(mAttemptHash.New()))
	}
	if err == nil {
		r.Fail(mContractNeither.New(mAttemptHash.New()))
	}
	for _, k := range keys {
		var typ, owner string
		r.Redis(func(conn redis.Conn) error {
			var err error
			if typ, err = redis.String(conn.Do("TYPE", k)); err != nil {
				return err
			}
			owner, err = redis.String(conn.Do("HGET", k, "owner"))
			if errors.Is(err, redis.ErrNil) {
				err = nil
			}
			return err
		})
		if typ != "hash" || owner != "someone else" {
			r.Fail(mContractChanged.New(mAttemptHash.New(), err.Error(), typ, strconv.Quote(owner)))
		}
	}
	return mContractHashUntouched.New(err.Error())
}

// The contract's messages: what failed, and which attempt.
var (
	mContractNoTurn = msg.Define("contract.no-turn", msg.K(msg.Duration),
		"another run has held the turn for the empty key for more than {0}: the check could not begin")
	mContractHung = msg.Define("contract.hung", msg.K(msg.Duration),
		"the watchdog stopped the check: the lock did not return within {0}")
	mContractGaveLock = msg.Define("contract.gave-lock", msg.K(msg.Sub),
		"{0} gave a lock; it must fail")
	mContractNeither = msg.Define("contract.neither", msg.K(msg.Sub),
		"{0} returned neither a lock nor an error")
	mContractWrote = msg.Define("contract.wrote", msg.K(msg.Sub, msg.Text),
		"{0} failed ({1}) but wrote its key")
	mContractHeld = msg.Define("contract.held", msg.K(msg.Sub, msg.Text),
		"{0} failed ({1}) but left the key held")
	mContractReleaseFailed = msg.Define("contract.release-failed", msg.K(msg.Sub, msg.Text),
		"{0} gave a lock whose Release failed: {1}")
	mContractReleaseLeft = msg.Define("contract.release-left", msg.K(msg.Sub),
		"{0} gave a lock, and its Release left the key behind")
	mContractNeedsLock = msg.Define("contract.needs-lock", msg.K(msg.Text),
		"TryAcquire of a free lock failed ({0}): the check needs a lock that works before Redis goes out of reach")
	mContractNotAcquired = msg.Define("contract.not-acquired", msg.K(msg.Text),
		"with Redis out of reach, TryAcquire says someone else holds the lock ({0}): a caller that retries on ErrNotAcquired waits on a server that is gone")
	mContractChanged = msg.Define("contract.changed", msg.K(msg.Sub, msg.Text, msg.Text, msg.Text),
		"{0} failed ({1}) but changed the key: now a {2}, owner {3}")

	mContractRefused       = msg.Define("contract.refused", msg.K(msg.Text), "refused: {0}")
	mContractRefusedBoth   = msg.Define("contract.refused-both", msg.K(msg.Text, msg.Text), "refused: {0}; {1}")
	mContractEmptyKeyTaken = msg.Define("contract.empty-key-taken", nil,
		`took "" as a key like any other; its release freed it`)
	mContractHashUntouched = msg.Define("contract.hash-untouched", msg.K(msg.Text), "no lock, the hash untouched: {0}")

	mAttemptEmptyKey    = msg.Define("contract.attempt-empty-key", nil, `TryAcquire with the key ""`)
	mAttemptTTL         = msg.Define("contract.attempt-ttl", msg.K(msg.Duration), "TryAcquire with a TTL of {0}")
	mAttemptCancelled   = msg.Define("contract.attempt-cancelled", nil, "TryAcquire with a cancelled context")
	mAttemptUnreachable = msg.Define("contract.attempt-unreachable", nil, "TryAcquire with Redis out of reach")
	mAttemptHash        = msg.Define("contract.attempt-hash", nil, "TryAcquire on a key that holds a hash")
)
