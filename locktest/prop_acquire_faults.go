package locktest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// AcquireFaults: at each command of B's acquire in turn, first while A
// holds the lock, then while the key is free, the suite answers the
// command with an error reply in Redis's place (ERR, LOADING, BUSY,
// MASTERDOWN, OOM, and NOSCRIPT for an EVALSHA), lets it run and drops
// the connection before the reply, drops the connection before the
// command reaches Redis, or holds its reply until past the caller's
// deadline. B may fail, or say the lock is taken, or return a lock only
// when it holds the key: while A holds it, a lock given to B breaks the
// property, and so does any change to A's lock; with the key free, what
// B's faulted acquire left must be B's own lock, or free within the TTL
// and the slack.

func init() {
	register(property{
		id: "acquire-faults", order: 125, scenario: acquireFaults,
		breaks: "an acquire whose command met an error reply, a lost reply, a dropped connection or a late reply gave a lock it did not hold, changed the holder's lock, or left a key that outlives its TTL; or a Refresh that met one reported success without extending the lock",
	}, func(tm timing) floors {
		// At least one late reply with A holding K and one with K free,
		// each past a deadline Short away; a break may come at the first
		// fault.
		return floors{holds: 2 * tm.Short}
	})
}

// faultHold is how long past the caller's deadline a late reply is held;
// the deadline is the Short TTL after B's attempt begins.
const faultHold = 10 * time.Millisecond

// faultPoint is one fault at one command of B's acquire.
type faultPoint struct {
	op    string // acquire or refresh
	at    int
	cmd   string
	kind  faultKind
	code  string    // faultReply: the error reply
	until time.Time // faultLate: set by faultContext
	// firstAt marks the first fault at its command: the faults at one
	// command share a run.
	firstAt bool
}

// what says the fault and where B met it, for the reasons.
func (f faultPoint) what() Message { return mFaultAt.New(f.is(), f.at, f.op, f.cmd) }

// is says which fault f is: an error reply (its code), a lost reply...
func (f faultPoint) is() Message {
	switch f.kind {
	case faultReply:
		code, _, _ := strings.Cut(f.code, " ")
		return mFaultIsReply.New(code)
	case faultLost:
		return mFaultIsLost.New()
	case faultDropped:
		return mFaultIsDropped.New()
	}
	return mFaultIsLate.New()
}

// faultPoints lists the faults to inject into an acquire that sends cmds
// when nothing goes wrong: at each command, every fault; no error reply
// to a command Redis only queues inside MULTI, or to EXEC (a server that
// refuses those aborts the transaction, which a reply alone cannot do),
// and NOSCRIPT only to an EVALSHA.
func faultPoints(op string, cmds []sentCommand) []faultPoint {
	var out []faultPoint
	for i, c := range cmds {
		at := i + 1
		first := len(out)
		if !c.inMulti && c.name != "EXEC" {
			for _, code := range errorCodes {
				if strings.HasPrefix(code, "NOSCRIPT") && !strings.HasPrefix(c.name, "EVALSHA") {
					continue
				}
				out = append(out, faultPoint{op: op, at: at, cmd: c.name, kind: faultReply, code: code})
			}
		}
		for _, k := range []faultKind{faultLost, faultDropped, faultLate} {
			out = append(out, faultPoint{op: op, at: at, cmd: c.name, kind: k})
		}
		out[first].firstAt = true
	}
	return out
}

// acquireFaults: for A holding K, then K free, it counts the commands of
// B's acquire and injects each fault of faultPoints in turn. The faults
// at one command share a run, its clients and their processes (B finds K
// as the state says before each: free, or A's); a late reply, which a
// program may answer by ending (its caller's deadline passed), has a run
// of its own.
func acquireFaults(newRun func(string) *run) outcome {
	var last *run
	injected, commands := 0, 0
	for _, held := range []bool{true, false} {
		state := "free"
		if held {
			state = "held"
		}
		r, _, b := faultSetup(newRun, "/"+state+"-count", held)
		b.watchCommands()
		l, _ := b.attemptErr(r.ctx, faultTTL(r))
		cmds := b.watched()
		if l != nil && held {
			b.r.det.enter("A")
			b.r.det.enter("B")
			return r.breaks(mFaultsNoFault.New())
		}
		r.shutdown()
		commands += len(cmds)
		var a *client
		r, b = nil, nil
		for i, f := range faultPoints("acquire", cmds) {
			if r == nil || f.kind == faultLate || f.firstAt {
				if r != nil {
					r.shutdown()
				}
				r, a, b = faultSetup(newRun, fmt.Sprintf("/%s-%d", state, i+1), held)
			} else if !held && r.keyExists() {
				r.delKey()
			}
			last = r
			if res, broke := injectOne(r, a, b, f); broke {
				return res
			}
			if b.faultFired() != faultNone {
				injected++
			}
			if f.kind == faultLate {
				r.shutdown()
				r = nil
			}
		}
		if r != nil {
			r.shutdown()
		}
	}
	if last == nil {
		r := newRun("/none")
		return r.notApplicable(mFaultsNoCommand.New())
	}
	res, refreshed, ok := refreshFaults(newRun)
	if !ok {
		return res
	}
	if refreshed > 0 {
		return last.holds(mFaultsHoldRefresh.New(mFaultsHold.New(injected, commands), refreshed))
	}
	return last.holds(mFaultsHold.New(injected, commands))
}

// refreshFaults: B holds K and refreshes it to the Long TTL; at each
// command of its Refresh in turn, each fault. A Refresh that reports
// success must have extended K: a lease is not extended on faith. Before
// each fault the suite sets K's expiry back to the TTL B acquired with.
// It returns how many faults it injected, or ok false with the break.
func refreshFaults(newRun func(string) *run) (res outcome, injected int, ok bool) {
	r, _, b := faultSetup(newRun, "/refresh-count", false)
	l := b.mustAcquire(faultTTL(r))
	rf, refresher := l.(strategy.Refresher)
	if !refresher {
		r.shutdown()
		return outcome{}, 0, true
	}
	b.watchCommands()
	b.refreshErr(r.ctx, rf, r.tm.Long)
	cmds := b.watched()
	r.shutdown()
	r, b, rf = nil, nil, nil
	for i, f := range faultPoints("refresh", cmds) {
		if r == nil || f.kind == faultLate || f.firstAt {
			if r != nil {
				r.shutdown()
			}
			r, _, b = faultSetup(newRun, fmt.Sprintf("/refresh-%d", i+1), false)
			l := b.mustAcquire(faultTTL(r))
			rf = l.(strategy.Refresher)
		} else {
			r.expireKey(faultTTL(r))
		}
		ctx, cancel := faultContext(r, &f)
		b.armFault(f.fault())
		err := b.refreshErr(ctx, rf, r.tm.Long)
		cancel()
		b.disarmFault()
		if b.faultFired() != faultNone {
			injected++
			// Extended, K lives past the TTL B acquired with.
			if ms := r.readPTTL(); err == nil && ms != -1 && time.Duration(ms)*time.Millisecond <= faultTTL(r)+r.tm.Slack/5 {
				return r.breaks(mFaultsRefreshFaith.New(f.what(), r.viewKey().msg())), 0, false
			}
		}
		if f.kind == faultLate {
			r.shutdown()
			r = nil
		}
	}
	if r != nil {
		r.shutdown()
	}
	return outcome{}, injected, true
}

// delKey deletes K (the lock's keys, strategy.Keyed) on the suite's own
// connection, for the next fault to find it free.
func (r *run) delKey() {
	keys := r.lockKeys()
	r.redis(func(c redis.Conn) error { _, err := c.Do("DEL", redis.Args{}.AddFlat(keys)...); return err })
	r.note(mFaultsFreed.New())
}

// expireKey sets the expiry of K (the lock's keys) back to ttl on the
// suite's own connection.
func (r *run) expireKey(ttl time.Duration) {
	keys := r.lockKeys()
	r.redis(func(c redis.Conn) error {
		for _, k := range keys {
			if _, err := c.Do("PEXPIRE", k, ttl.Milliseconds()); err != nil {
				return err
			}
		}
		return nil
	})
	r.note(mFaultsExpiry.New(ttl))
}

// faultContext is the context B's operation runs with: the run's, or,
// for a late reply, one whose deadline is Short away, the reply held
// faultHold past it.
func faultContext(r *run, f *faultPoint) (context.Context, context.CancelFunc) {
	if f.kind != faultLate {
		return r.ctx, func() {}
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.tm.Short)
	dl, _ := ctx.Deadline()
	f.until = dl.Add(faultHold)
	return ctx, cancel
}

// fault is the fault to arm for f.
func (f faultPoint) fault() fault {
	return fault{kind: f.kind, reply: f.code, at: f.at, until: f.until}
}

// faultTTL is the TTL B asks for: long enough to read K before it ends
// on a loaded machine, short enough to wait for past it.
func faultTTL(r *run) time.Duration { return r.tm.renewedTTL() }

// faultSetup starts a run with A and B, B warm: it has acquired and
// released once, so that its connections are open and logged in and its
// scripts loaded (on another key), and a fault falls on a command of the acquire itself.
// With held, A then holds K; a is nil otherwise.
func faultSetup(newRun func(string) *run, name string, held bool) (r *run, a, b *client) {
	r = newRun(name)
	b = r.newClient("B", 0)
	b.warmUp(mFaultsWarm.New())
	if held {
		a = r.newClient("A", 0)
		// Long, thrice: B's faulted attempt may take a program's own
		// timeout (seconds) to fail, and A's lock must not expire
		// meanwhile.
		a.mustAcquire(3 * r.tm.Long)
		a.settle()
		r.det.enter("A")
		r.note(mFaultsAHolds.New(3 * r.tm.Long))
	} else {
		r.note(mFaultsFree.New())
	}
	return r, a, b
}

// warmUp has c acquire and release a lock once, on a key of its own (a
// lock whose release frees nothing, see release-frees, would keep K),
// then forgets the timeline so far and says so with m.
func (c *client) warmUp(m Message) {
	r := c.r
	start := time.Now()
	l, err := c.attempt(r.ctx, r.key+":warm-up", faultTTL(r))
	if l == nil {
		c.refusedSlowly(start)
		r.fail(mFailNotFreeErr.New(c.name, fmt.Sprint(err)))
	}
	c.releaseErr(l)
	r.rec.forget()
	r.note(m)
}

// injectOne runs B's acquire with f and judges what it did; broke says
// whether res is a break. a is A, who holds K, or nil when K is free.
func injectOne(r *run, a, b *client, f faultPoint) (res outcome, broke bool) {
	held := a != nil
	ttl := faultTTL(r)
	before := r.viewKey()
	aSent := 0
	if held {
		aSent = a.commandsSent()
	}
	ctx, cancel := faultContext(r, &f)
	defer cancel()
	b.armFault(f.fault())
	lb, err := b.attemptErr(ctx, ttl)
	b.disarmFault()
	if b.faultFired() == faultNone {
		return outcome{}, false // the acquire took another path this time
	}
	what := f.what()
	if held {
		if lb != nil {
			r.det.enter("B")
			return r.breaksRule(history.OneHolder, mFaultsGrantedHeld.New(what)), true
		}
		// A change is B's doing only if A sent nothing meanwhile (its
		// renewals, the keys it writes after its acquire returned).
		if changed := r.viewKey().changedFrom(before, "B", b.name, "acquire", "A", false); !changed.IsZero() && a.commandsSent() == aSent {
			return r.breaks(mFaultsChangedHeld.New(what, changed)), true
		}
		return outcome{}, false
	}
	if lb != nil {
		if !r.keyExists() {
			return r.breaks(mFaultsGrantedFree.New(what)), true
		}
		owned := r.viewKey()
		rerr := b.releaseErr(lb)
		if after := r.viewKey(); rerr != nil || (after.pttl != -2 && slices.Equal(after.values, owned.values)) {
			why := "K unchanged"
			if rerr != nil {
				why = r.errText(rerr)
			}
			return r.breaks(mFaultsNotOwn.New(what, why)), true
		}
		return outcome{}, false
	}
	reason := "ErrNotAcquired"
	if err != nil && !errors.Is(err, strategy.ErrNotAcquired) {
		reason = r.errText(err)
	}
	switch ms := r.readPTTL(); {
	case ms == -2:
	case ms >= 0:
		if left := time.Duration(ms) * time.Millisecond; left > ttl+r.tm.Slack {
			return r.breaks(mFaultsTooLong.New(what, reason, shown(ms), ttl)), true
		}
	default:
		// K has no expiry of its own: a lock whose expiry is a time in
		// its value frees once that time has passed. C tries for the
		// TTL and the slack.
		wait := ttl + r.tm.Slack
		c := r.newClient("C", 0)
		r.note(mFaultsCWaits.New(wait))
		since := r.rec.now()
		if c.waitFree(ttl, wait, ttl+r.tm.staleAfter()) == nil {
			return r.breaksUnfreed("C", since, wait-r.tm.Poll, mFaultsOrphan.New(what, reason, ttl+r.tm.Slack, r.lifeLeft(ttl, ttl+r.tm.Slack))), true
		}
	}
	return outcome{}, false
}

// refreshErr refreshes l with ctx and records what Refresh returned.
func (c *client) refreshErr(ctx context.Context, l strategy.Refresher, ttl time.Duration) error {
	var err error
	o := c.begin(ttl)
	c.r.guard(c.name, "Refresh", func() { err = l.Refresh(ctx, ttl) })
	c.r.rec.add(c.outcome(o, history.EvRefreshed, err))
	return err
}

// attemptErr makes one attempt with ctx and records what it returned,
// whatever it is.
func (c *client) attemptErr(ctx context.Context, ttl time.Duration) (strategy.Lock, error) {
	o := c.begin(ttl)
	l, err := c.attempt(ctx, c.r.key, ttl)
	c.recordAttempt(o, l, err)
	return l, err
}

// acquire-faults' messages.
var (
	mFaultsAHolds = msg.Define("acquire-faults.a-holds", msg.K(msg.Duration),
		"A holds K for {0}; B's acquire meets a fault")
	mFaultsWarm = msg.Define("acquire-faults.warm", nil,
		"B has acquired and released a lock once, on a key of its own: its connections are open and logged in")
	mFaultsFree = msg.Define("acquire-faults.free", nil,
		"K is free; B's acquire meets a fault")
	mFaultIsReply   = msg.Define("acquire-faults.reply", msg.K(msg.Text), "the error reply {0}")
	mFaultIsLost    = msg.Define("acquire-faults.lost", nil, "a lost reply")
	mFaultIsDropped = msg.Define("acquire-faults.dropped", nil,
		"a connection dropped before the command")
	mFaultIsLate = msg.Define("acquire-faults.late", nil,
		"a reply after the caller's deadline")
	mFaultAt = msg.Define("acquire-faults.at", msg.K(msg.Sub, msg.Ordinal, msg.Op, msg.Text),
		"{0} at the {1} command of B's {2} ({3})")
	mFaultsCWaits = msg.Define("acquire-faults.c-waits", msg.K(msg.Duration),
		"K has no expiry; C tries for {0}")
	mFaultsNoFault = msg.Define("acquire-faults.breaks-no-fault", nil,
		"A held K, and B's acquire returned a lock without any fault: two holders")
	mFaultsGrantedHeld = msg.Define("acquire-faults.breaks-granted", msg.K(msg.Sub),
		"A held K; with {0}, B's acquire returned a lock: two holders")
	mFaultsChangedHeld = msg.Define("acquire-faults.breaks-changed", msg.K(msg.Sub, msg.Sub),
		"A held K; with {0}, B's acquire failed, and {1}")
	mFaultsGrantedFree = msg.Define("acquire-faults.breaks-granted-free", msg.K(msg.Sub),
		"K was free; with {0}, B's acquire returned a lock, but K is not there: B holds nothing, and anyone can acquire")
	mFaultsNotOwn = msg.Define("acquire-faults.breaks-not-own", msg.K(msg.Sub, msg.Text),
		"K was free; with {0}, B's acquire returned a lock that its own release did not free ({1})")
	mFaultsTooLong = msg.Define("acquire-faults.breaks-too-long", msg.K(msg.Sub, msg.Text, msg.Duration, msg.Duration),
		"K was free; with {0}, B's acquire failed ({1}) and left K to live {2}, past the {3} B asked for")
	mFaultsOrphan = msg.Define("acquire-faults.breaks-orphan", msg.K(msg.Sub, msg.Text, msg.Duration, msg.Sub),
		"K was free; with {0}, B's acquire failed ({1}) and left K behind, and nobody could acquire it {2} later: {3}")
	mFaultsRefreshFaith = msg.Define("acquire-faults.breaks-refresh", msg.K(msg.Sub, msg.Sub),
		"B held K; with {0}, B's Refresh reported success, but {1}: the lease was not extended, and B goes on working on faith")
	mFaultsHoldRefresh = msg.Define("acquire-faults.holds-refresh", msg.K(msg.Sub, msg.Count),
		"{0}; and B's Refresh, with {1} faults injected in turn at its commands, reported success only when it had extended K")
	mFaultsFreed = msg.Define("acquire-faults.freed", nil,
		"the suite deletes K: it is free for the next fault")
	mFaultsExpiry = msg.Define("acquire-faults.expiry-back", msg.K(msg.Duration),
		"the suite sets K's expiry back to {0} for the next fault")
	mFaultsNoCommand = msg.Define("acquire-faults.n/a", nil,
		"B's acquire sent no command to fault")
	mFaultsHold = msg.Define("acquire-faults.holds", msg.K(msg.Count, msg.Count),
		"with {0} faults injected in turn at the commands of B's acquire ({1} commands, with A holding K and with K free), B took no lock it did not hold, left A's lock as it was and left nothing that outlives its TTL")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("acquire-faults.scenario", nil,
		"at each command of a client's acquire in turn, with the lock held by another and with the key free, the suite answers the command with an error reply in Redis's place (`ERR`, `LOADING`, `BUSY`, `MASTERDOWN`, `OOM`, and `NOSCRIPT` for an `EVALSHA`), lets it run and drops the connection before the reply, drops the connection before the command, or holds the reply past the caller's deadline. The client has acquired and released once before, so its connections are open and logged in; after a drop it cannot reconnect until its attempt returns. Then the same at each command of a `Refresh`")
	_ = msg.Define("acquire-faults.must", nil,
		"the attempt fails, says the lock is taken, or returns a lock only when it holds the key: never while another holds it, whose lock stays as it was; with the key free, what the attempt left is its own lock, which its release frees, or frees within its TTL and the slack, never a key without expiry that nobody can take. A `Refresh` that met a fault reports success only if the key was extended")
)
