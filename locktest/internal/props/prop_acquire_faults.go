package props

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
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/servererr"
	"github.com/locklab/locklab/locktest/internal/sim"
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
	register(Property{
		id: "acquire-faults", order: 125, Scenario: acquireFaults,
		breaks: "an acquire whose command met an error reply, a lost reply, a dropped connection or a late reply gave a lock it did not hold, changed the holder's lock, or left a key that outlives its TTL; or a Refresh that met one reported success without extending the lock",
	}, func(tm sim.Timing) floors {
		// At least one late reply with A holding K and one with K free,
		// each past a deadline Short away; a break may come at the first
		// fault.
		return floors{Holds: 2 * tm.Short}
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
	kind  sim.FaultKind
	code  string    // faultReply: the error reply
	until time.Time // faultLate: set by faultContext
	// firstAt marks the first fault at its command: the faults at one
	// command share a run.
	firstAt bool
}

// what says the fault and where B met it, for the reasons.
func (f faultPoint) what() msg.Msg { return mFaultAt.New(f.is(), f.at, f.op, f.cmd) }

// is says which fault f is: an error reply (its code), a lost reply...
func (f faultPoint) is() msg.Msg {
	switch f.kind {
	case sim.FaultReply:
		code, _, _ := strings.Cut(f.code, " ")
		return mFaultIsReply.New(code)
	case sim.FaultLost:
		return mFaultIsLost.New()
	case sim.FaultDropped:
		return mFaultIsDropped.New()
	}
	return mFaultIsLate.New()
}

// faultPoints lists the faults to inject into an acquire that sends cmds
// when nothing goes wrong: at each command, every fault; as error
// replies, those a real server can send the command
// (servererr.Replies: none to MULTI, OOM only to a command that may grow
// memory, NOSCRIPT only to EVALSHA), and none to a command Redis only
// queues inside MULTI, or to EXEC (a server that refuses those aborts the
// transaction, which a reply alone cannot do).
func faultPoints(op string, cmds []sim.SentCommand) []faultPoint {
	var out []faultPoint
	for i, c := range cmds {
		at := i + 1
		first := len(out)
		if !c.InMulti && c.Name != "EXEC" {
			for _, code := range servererr.Replies(servererr.FromArgs(c.Args)) {
				out = append(out, faultPoint{op: op, at: at, cmd: c.Name, kind: sim.FaultReply, code: code})
			}
		}
		for _, k := range []sim.FaultKind{sim.FaultLost, sim.FaultDropped, sim.FaultLate} {
			out = append(out, faultPoint{op: op, at: at, cmd: c.Name, kind: k})
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
func acquireFaults(newRun func(string) *harness.Run) harness.Outcome {
	var last *harness.Run
	injected, commands := 0, 0
	for _, held := range []bool{true, false} {
		state := "free"
		if held {
			state = "held"
		}
		r, _, b := faultSetup(newRun, "/"+state+"-count", held)
		b.WatchCommands()
		l, _ := attemptErr(b, r.Ctx, faultTTL(r))
		cmds := b.Watched()
		if l != nil && held {
			b.R.Det.Enter("A")
			b.R.Det.Enter("B")
			return r.BreaksRule(history.OneHolder, mFaultsNoFault.New())
		}
		r.Shutdown()
		commands += len(cmds)
		var a *harness.Client
		r, b = nil, nil
		for i, f := range faultPoints("acquire", cmds) {
			if r == nil || f.kind == sim.FaultLate || f.firstAt {
				if r != nil {
					r.Shutdown()
				}
				r, a, b = faultSetup(newRun, fmt.Sprintf("/%s-%d", state, i+1), held)
			} else if !held && r.KeyExists() {
				delKey(r)
			}
			last = r
			if res, broke := injectOne(r, a, b, f); broke {
				return res
			}
			if b.FaultFired() != sim.FaultNone {
				injected++
			}
			if f.kind == sim.FaultLate {
				r.Shutdown()
				r = nil
			}
		}
		if r != nil {
			r.Shutdown()
		}
	}
	if last == nil {
		r := newRun("/none")
		return r.NotApplicable(mFaultsNoCommand.New())
	}
	res, refreshed, ok := refreshFaults(newRun)
	if !ok {
		return res
	}
	if refreshed > 0 {
		return last.Holds(mFaultsHoldRefresh.New(mFaultsHold.New(injected, commands), refreshed))
	}
	return last.Holds(mFaultsHold.New(injected, commands))
}

// refreshFaults: B holds K and refreshes it to the Long TTL; at each
// command of its Refresh in turn, each fault. A Refresh that reports
// success must have extended K: a lease is not extended on faith. Before
// each fault the suite sets K's expiry back to the TTL B acquired with.
// It returns how many faults it injected, or ok false with the break.
func refreshFaults(newRun func(string) *harness.Run) (res harness.Outcome, injected int, ok bool) {
	r, _, b := faultSetup(newRun, "/refresh-count", false)
	l := b.MustAcquire(faultTTL(r))
	rf, refresher := l.(strategy.Refresher)
	if !refresher {
		r.Shutdown()
		return harness.Outcome{}, 0, true
	}
	b.WatchCommands()
	refreshErr(b, r.Ctx, rf, r.Tm.Long)
	cmds := b.Watched()
	r.Shutdown()
	r, b, rf = nil, nil, nil
	for i, f := range faultPoints("refresh", cmds) {
		if r == nil || f.kind == sim.FaultLate || f.firstAt {
			if r != nil {
				r.Shutdown()
			}
			r, _, b = faultSetup(newRun, fmt.Sprintf("/refresh-%d", i+1), false)
			l := b.MustAcquire(faultTTL(r))
			rf = l.(strategy.Refresher)
		} else {
			expireKey(r, faultTTL(r))
		}
		ctx, cancel := faultContext(r, &f)
		b.ArmFault(f.fault())
		err := refreshErr(b, ctx, rf, r.Tm.Long)
		cancel()
		b.DisarmFault()
		if b.FaultFired() != sim.FaultNone {
			injected++
			// Extended, K lives past the TTL B acquired with.
			if ms := r.ReadPTTL(); err == nil && ms != -1 && time.Duration(ms)*time.Millisecond <= faultTTL(r)+r.Tm.Slack/5 {
				// Observed: the suite shortens K itself between the
				// faults of a run (expireKey), which no hold in the
				// history does, so FullLease cannot tell this key's
				// short life from the suite's.
				return r.Breaks(mFaultsRefreshFaith.New(f.what(), r.ViewKey().Msg())), 0, false
			}
		}
		if f.kind == sim.FaultLate {
			r.Shutdown()
			r = nil
		}
	}
	if r != nil {
		r.Shutdown()
	}
	if res, broke := lateRefreshFaults(newRun, cmds); broke {
		return res, 0, false
	}
	return harness.Outcome{}, injected, true
}

// lateRefreshFaults: B's lock, taken with the Short TTL, has expired,
// and A holds K with the Long TTL; at each command of B's late Refresh,
// to three Long TTLs, in turn, each fault. It must not report success,
// and must leave A's lock as it was: a refresh that falls back, on a
// fault, to a command that compares no token (a bare PEXPIRE on
// NOSCRIPT) pushes A's expiry back. One run serves every fault but a
// late reply, after which the next fault starts a run of its own. It
// says whether that broke, with the outcome.
func lateRefreshFaults(newRun func(string) *harness.Run, cmds []sim.SentCommand) (harness.Outcome, bool) {
	var r *harness.Run
	var a, b *harness.Client
	var rf strategy.Refresher
	defer func() {
		if r != nil {
			r.Shutdown()
		}
	}()
	for i, f := range faultPoints("refresh", cmds) {
		if r == nil {
			r, _, b = faultSetup(newRun, fmt.Sprintf("/late-refresh-%d", i+1), false)
			rf = b.MustAcquire(r.Tm.Short).(strategy.Refresher)
			// B's connection stalls until A holds K: a lock that renews
			// itself sends nothing meanwhile, and B's lock expires.
			b.Pause()
			a = r.NewClient("A", 0)
			if a.WaitFree(r.Tm.Long, r.Tm.Short+r.Tm.Slack, r.Tm.Short+r.Tm.StaleAfter()) == nil {
				b.Resume()
				return harness.Outcome{}, false // B's lock did not expire: crash-recovery's to judge
			}
			a.Settle()
			b.Resume()
			r.Note(mFaultsLateRefresh.New(r.Tm.Short, r.Tm.Long))
		}
		before := r.ViewKey()
		aSent := a.CommandsSent()
		ctx, cancel := faultContext(r, &f)
		b.ArmFault(f.fault())
		err := refreshErr(b, ctx, rf, 3*r.Tm.Long)
		cancel()
		b.DisarmFault()
		if b.FaultFired() != sim.FaultNone {
			what := f.what()
			if err == nil {
				// B's hold had lapsed: a refresh that returns success
				// revives it beside A's, which the judge reads as two
				// holders.
				return r.BreaksRule(history.OneHolder, mFaultsLateRefreshOK.New(what)), true
			}
			if changed := r.ViewKey().ChangedFrom(before, "B", b.Name, "refresh", "A", true); !changed.IsZero() && a.CommandsSent() == aSent {
				return r.BreaksRule(history.Untouched, mFaultsLateRefreshChanged.New(what, changed)), true
			}
		}
		if f.kind == sim.FaultLate {
			r.Shutdown()
			r = nil
		}
	}
	return harness.Outcome{}, false
}

// delKey deletes K (the lock's keys, strategy.Keyed) on the suite's own
// connection, for the next fault to find it free.
func delKey(r *harness.Run) {
	keys := r.LockKeys()
	r.Redis(func(c redis.Conn) error { _, err := c.Do("DEL", redis.Args{}.AddFlat(keys)...); return err })
	r.Note(mFaultsFreed.New())
}

// expireKey sets the expiry of K (the lock's keys) back to ttl on the
// suite's own connection.
func expireKey(r *harness.Run, ttl time.Duration) {
	keys := r.LockKeys()
	r.Redis(func(c redis.Conn) error {
		for _, k := range keys {
			if _, err := c.Do("PEXPIRE", k, ttl.Milliseconds()); err != nil {
				return err
			}
		}
		return nil
	})
	r.Note(mFaultsExpiry.New(ttl))
}

// faultContext is the context B's operation runs with: the run's, or,
// for a late reply, one whose deadline is Short away, the reply held
// faultHold past it.
func faultContext(r *harness.Run, f *faultPoint) (context.Context, context.CancelFunc) {
	if f.kind != sim.FaultLate {
		return r.Ctx, func() {}
	}
	ctx, cancel := context.WithTimeout(r.Ctx, r.Tm.Short)
	dl, _ := ctx.Deadline()
	f.until = dl.Add(faultHold)
	return ctx, cancel
}

// fault is the fault to arm for f.
func (f faultPoint) fault() sim.Fault {
	return sim.Fault{Kind: f.kind, Reply: f.code, At: f.at, Until: f.until}
}

// faultTTL is the TTL B asks for: long enough to read K before it ends
// on a loaded machine, short enough to wait for past it.
func faultTTL(r *harness.Run) time.Duration { return r.Tm.RenewedTTL() }

// faultSetup starts a run with A and B, B warm: it has acquired and
// released once, so that its connections are open and logged in and its
// scripts loaded (on another key), and a fault falls on a command of the acquire itself.
// With held, A then holds K; a is nil otherwise.
func faultSetup(newRun func(string) *harness.Run, name string, held bool) (r *harness.Run, a, b *harness.Client) {
	r = newRun(name)
	b = r.NewClient("B", 0)
	warmUp(b, mFaultsWarm.New())
	if held {
		a = r.NewClient("A", 0)
		// Long, thrice: B's faulted attempt may take a program's own
		// timeout (seconds) to fail, and A's lock must not expire
		// meanwhile.
		a.MustAcquire(3 * r.Tm.Long)
		a.Settle()
		r.Det.Enter("A")
		r.Note(mFaultsAHolds.New(3 * r.Tm.Long))
	} else {
		r.Note(mFaultsFree.New())
	}
	return r, a, b
}

// warmUp has c acquire and release a lock once, on a key of its own (a
// lock whose release frees nothing, see release-frees, would keep K),
// then forgets the timeline so far and says so with m.
func warmUp(c *harness.Client, m msg.Msg) {
	r := c.R
	start := time.Now()
	l, err := c.Attempt(r.Ctx, r.Key+":warm-up", faultTTL(r))
	if l == nil {
		c.RefusedSlowly(start)
		r.Fail(mFailNotFreeErr.New(c.Name, fmt.Sprint(err)))
	}
	c.ReleaseErr(l)
	r.Rec.Forget()
	r.Note(m)
}

// injectOne runs B's acquire with f and judges what it did; broke says
// whether res is a break. a is A, who holds K, or nil when K is free.
func injectOne(r *harness.Run, a, b *harness.Client, f faultPoint) (res harness.Outcome, broke bool) {
	held := a != nil
	ttl := faultTTL(r)
	before := r.ViewKey()
	aSent := 0
	if held {
		aSent = a.CommandsSent()
	}
	ctx, cancel := faultContext(r, &f)
	defer cancel()
	b.ArmFault(f.fault())
	lb, err := attemptErr(b, ctx, ttl)
	b.DisarmFault()
	if b.FaultFired() == sim.FaultNone {
		return harness.Outcome{}, false // the acquire took another path this time
	}
	what := f.what()
	if held {
		if lb != nil {
			// What K holds once B's acquire returned: A's value and
			// none of B's is also a grant without the lock, which the
			// judge reads (GrantOwned).
			r.ViewKey()
			r.Det.Enter("B")
			return r.BreaksRule(history.OneHolder, mFaultsGrantedHeld.New(what)), true
		}
		// A change is B's doing only if A sent nothing meanwhile (its
		// renewals, the keys it writes after its acquire returned).
		if changed := r.ViewKey().ChangedFrom(before, "B", b.Name, "acquire", "A", false); !changed.IsZero() && a.CommandsSent() == aSent {
			return r.BreaksRule(history.Untouched, mFaultsChangedHeld.New(what, changed)), true
		}
		return harness.Outcome{}, false
	}
	if lb != nil {
		if !r.KeyExists() {
			// Observed: a grant that finds the lock's keys gone holds
			// nothing, but GrantOwned reads another's value in place of
			// the grantee's, and here there is none.
			return r.Breaks(mFaultsGrantedFree.New(what)), true
		}
		owned := r.ViewKey()
		rerr := b.ReleaseErr(lb)
		if after := r.ViewKey(); rerr != nil || (after.Pttl != -2 && slices.Equal(after.Values, owned.Values)) {
			why := "K unchanged"
			if rerr != nil {
				why = r.ErrText(rerr)
			}
			// Observed: a release that frees nothing keeps out only a
			// waiter, and nobody waits here.
			return r.Breaks(mFaultsNotOwn.New(what, why)), true
		}
		return harness.Outcome{}, false
	}
	reason := "ErrNotAcquired"
	if err != nil && !errors.Is(err, strategy.ErrNotAcquired) {
		reason = r.ErrText(err)
	}
	switch ms := r.ReadPTTL(); {
	case ms == -2:
	case ms >= 0:
		if left := time.Duration(ms) * time.Millisecond; left > ttl+r.Tm.Slack {
			// Observed: a key left to live longer than any hold asked
			// keeps out only a waiter, and nobody waits here.
			return r.Breaks(mFaultsTooLong.New(what, reason, harness.Shown(ms), ttl)), true
		}
	default:
		// K has no expiry of its own: a lock whose expiry is a time in
		// its value frees once that time has passed. C tries for the
		// TTL and the slack.
		wait := ttl + r.Tm.Slack
		c := r.NewClient("C", 0)
		r.Note(mFaultsCWaits.New(wait))
		since := r.Rec.Now()
		if c.WaitFree(ttl, wait, ttl+r.Tm.StaleAfter()) == nil {
			return r.BreaksUnfreed("C", since, wait-r.Tm.Poll, mFaultsOrphan.New(what, reason, ttl+r.Tm.Slack, r.LifeLeft(ttl, ttl+r.Tm.Slack))), true
		}
	}
	return harness.Outcome{}, false
}

// refreshErr refreshes l with ctx and records what Refresh returned.
func refreshErr(c *harness.Client, ctx context.Context, l strategy.Refresher, ttl time.Duration) error {
	var err error
	o := c.Begin(ttl)
	c.R.Guard(c.Name, "Refresh", func() { err = l.Refresh(ctx, ttl) })
	c.R.Rec.Add(c.Outcome(o, history.EvRefreshed, err))
	return err
}

// attemptErr makes one attempt with ctx and records what it returned,
// whatever it is.
func attemptErr(c *harness.Client, ctx context.Context, ttl time.Duration) (strategy.Lock, error) {
	o := c.Begin(ttl)
	l, err := c.Attempt(ctx, c.R.Key, ttl)
	c.RecordAttempt(o, l, err)
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
	mFaultsLateRefresh = msg.Define("acquire-faults.late-refresh", msg.K(msg.Duration, msg.Duration),
		"B's lock, taken with a TTL of {0}, has expired, and A holds K with a TTL of {1}; B refreshes late, with a fault")
	mFaultsLateRefreshOK = msg.Define("acquire-faults.breaks-late-refresh", msg.K(msg.Sub),
		"A held K after B's lock had expired; with {0}, B's late Refresh reported success: B goes on working beside A")
	mFaultsLateRefreshChanged = msg.Define("acquire-faults.breaks-late-refresh-changed", msg.K(msg.Sub, msg.Sub),
		"A held K after B's lock had expired; with {0}, B's late Refresh failed, and {1}")
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
		"at each command of a client's acquire in turn, with the lock held by another and with the key free, the suite answers the command with an error reply in Redis's place (those a real server can send it: `LOADING`, `BUSY`, `MASTERDOWN`, `OOM` where it may grow memory, `NOSCRIPT` for an `EVALSHA`, none to `MULTI`), lets it run and drops the connection before the reply, drops the connection before the command, or holds the reply past the caller's deadline. The client has acquired and released once before, so its connections are open and logged in; after a drop it cannot reconnect until its attempt returns. Then the same at each command of a `Refresh`, by the holder, and by a client whose lock has expired while another holds the key")
	_ = msg.Define("acquire-faults.must", nil,
		"the attempt fails, says the lock is taken, or returns a lock only when it holds the key: never while another holds it, whose lock stays as it was; with the key free, what the attempt left is its own lock, which its release frees, or frees within its TTL and the slack, never a key without expiry that nobody can take. A `Refresh` that met a fault reports success only if the key was extended; a late one neither reports success nor changes the other's lock")
)
