package props

import (
	"fmt"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReleaseFaults: at each command of A's release in turn, the suite
// injects each fault of acquire-faults (fault.go): an error reply in
// Redis's place, a lost reply, a connection dropped before the command,
// a reply held past the caller's deadline. A release that sends another
// command after the fault (a retry, a fallback) is paused there until
// A's TTL has run out and B has acquired, then taken on one command at a
// time, B paused, K read after each and C trying at each boundary
// (lateSteps): whatever it does, it must leave B's lock as B took it. A
// release that returns at once has B wait for the lock all the same,
// and must leave B's lock alone afterwards too. A release that reports
// success must have freed A's lock; after a fault whose command ran (a
// lost or late reply), K must free within the TTL and the slack.

func init() {
	register(Property{
		id: "release-faults", order: 127, Scenario: releaseFaults,
		breaks: "a release whose command met an error reply, a lost reply, a dropped connection or a late reply went on to change the next holder's lock, reported success without freeing its own, or, its command run, left a lock that outlives its TTL",
	}, func(tm sim.Timing) floors {
		// At least a connection dropped before the release's first
		// command, which leaves A's lock to its TTL (Short) for B to wait
		// on, and a late reply past a deadline Short away; a break may
		// come at the first fault.
		return floors{Holds: 2 * tm.Short}
	})
}

// releaseFaults counts the commands of A's release, then injects each
// fault of faultPoints in turn, each on a run of its own in which A,
// warm, holds K with the Short TTL.
func releaseFaults(newRun func(string) *harness.Run) harness.Outcome {
	r, a, la, _ := releaseFaultSetup(newRun, "/count", true)
	a.WatchCommands()
	a.ReleaseErr(la)
	cmds := a.Watched()
	if len(cmds) == 0 {
		return r.NotApplicable(mRelFaultsNoCommand.New())
	}
	r.Shutdown()
	var last *harness.Run
	injected := 0
	for i, f := range faultPoints("release", cmds) {
		r, a, la, since := releaseFaultSetup(newRun, fmt.Sprintf("/%d", i+1), false)
		last = r
		fired, broke := releaseFault(r, a, la, since, f, len(cmds))
		if !broke.IsZero() {
			return r.Breaks(broke)
		}
		if fired {
			injected++
		}
		r.Shutdown()
	}
	return last.Holds(mRelFaultsHold.New(injected, len(cmds)))
}

// releaseFaultSetup starts a run in which A, warm (it has acquired and
// released once, on a key of its own), holds K: with the Long TTL to
// count the commands of a release that finds its lock held, else with
// the Short one, which B waits on. since is when A's acquire began.
func releaseFaultSetup(newRun func(string) *harness.Run, name string, long bool) (r *harness.Run, a *harness.Client, la strategy.Lock, since time.Time) {
	r = newRun(name)
	a = r.NewClient("A", 0)
	warmUp(a, mRelFaultsWarm.New())
	ttl := r.Tm.Short
	if long {
		ttl = r.Tm.Long
	}
	since = time.Now()
	la = a.MustAcquire(ttl)
	// What the lock does on its own goroutines right after the acquire
	// (rueidislock takes the rest of its keys) is done before a fault is
	// armed for the release's commands.
	a.Settle()
	return r, a, la, since
}

// releaseFault runs A's release of la, acquired from since on, with f,
// and judges what it did and what it left. It returns whether f fired,
// and why the property breaks, or no message.
func releaseFault(r *harness.Run, a *harness.Client, la strategy.Lock, since time.Time, f faultPoint, n int) (fired bool, broke msg.Msg) {
	ttl := r.Tm.Short
	what := mRelFaultAt.New(f.is(), f.at, f.cmd)
	own := r.ViewKey()
	r.Note(mRelFaultsArmed.New(ttl, what))
	ctx, cancel := faultContext(r, &f)
	defer cancel()
	var err error
	a.ArmFault(f.fault())
	p := a.PauseInside(f.at, n, "release", func() { err = a.ReleaseWith(ctx, la) })
	if a.FaultFired() == sim.FaultNone {
		// The release took another path this time: K had expired before
		// it ran, on a slow machine, or the lock chose so.
		if !p.Done {
			a.Resume()
			p.Wait()
		}
		a.DisarmFault()
		if time.Since(since) > ttl {
			r.Disturbed(mRelFaultsTooSlow.New(a.Name, f.at, ttl))
		}
		return false, msg.Msg{}
	}
	ran := f.kind == sim.FaultLost || f.kind == sim.FaultLate
	b := r.NewClient("B", 0)
	wait := ttl + r.Tm.Slack
	if p.Reached {
		c := r.NewClient("C", 0)
		lb, why := harness.WaitWhilePaused(r, p, b)
		switch {
		case lb == nil:
			a.DisarmFault()
			if ran {
				return true, mRelFaultsStuck.New(what, returned(r, err), wait, why)
			}
			r.Note(mRelFaultsNoB.New(wait, why))
			return true, faith(r, what, err, own)
		case aStillHolds(r.ViewKey(), own, ttl):
			// B's grant is not at K, where A's lock still is: that is
			// the acquire's doing (exclusion), not the release's.
			r.Note(mRelFaultsNotAtK.New())
			a.Resume()
			p.Wait()
			a.DisarmFault()
			return true, msg.Msg{}
		}
		held, went := harness.StepsAfterTakeover(r, p, b, c)
		a.DisarmFault()
		if !went.IsZero() {
			return true, mRelFaultsWentOn.New(what, went.Msg)
		}
		if freed := harness.WhoFreed(r, held, "release"); c.TryAcquire(r.Tm.Long) != nil {
			return true, mRelFaultsWentOn.New(what, freed)
		}
		return true, msg.Msg{}
	}
	a.DisarmFault()
	if m := faith(r, what, err, own); !m.IsZero() {
		return true, m
	}
	r.Note(mBWaitsTTL.New(wait, ttl))
	lb := b.WaitFree(r.Tm.Long, wait, ttl+r.Tm.StaleAfter())
	if lb == nil {
		why := r.LifeLeft(ttl, wait)
		if ran {
			return true, mRelFaultsStuck.New(what, returned(r, err), wait, why)
		}
		r.Note(mRelFaultsNoB.New(wait, why))
		return true, msg.Msg{}
	}
	// What the release left running (a retry on a goroutine of its own)
	// must leave B's lock alone too. B settles first (rueidislock takes
	// the rest of its keys after its acquire returns), then is paused, so
	// that a change of K is none of its own.
	b.Settle()
	b.Pause()
	defer b.Resume()
	view := r.ViewKey()
	if aStillHolds(view, own, ttl) {
		r.Note(mRelFaultsNotAtK.New())
		return true, msg.Msg{}
	}
	a.Settle()
	if changed := r.ViewKey().ChangedFrom(view, "A", a.Name, "release", "B", false); !changed.IsZero() {
		return true, mRelFaultsAfter.New(what, changed)
	}
	return true, msg.Msg{}
}

// faith says why the property breaks when A's release, having met the
// fault what, reported success (err nil) while a key of A's lock still
// holds what it held before the release (own): for a lock of several
// keys, any one, so that the verdict does not hang on which of the
// deletes it sends at once met the fault. No message otherwise.
func faith(r *harness.Run, what msg.Msg, err error, own harness.KeyView) msg.Msg {
	if err == nil && stillOwn(r.ViewKey(), own) {
		return mRelFaultsFaith.New(what)
	}
	return msg.Msg{}
}

// aStillHolds says whether K, read once B has acquired, is still A's
// lock: a key holds what it held in own, and K expires within ttl, A's
// TTL, where B asked for the Long one (locks whose clients all write the
// same value, shared-token's, cannot be told apart by value alone).
func aStillHolds(now, own harness.KeyView, ttl time.Duration) bool {
	return stillOwn(now, own) && now.Pttl >= 0 && now.Pttl <= ttl.Milliseconds()
}

// stillOwn says whether a key of the lock holds in now what it held in
// own, A's lock before its release.
func stillOwn(now, own harness.KeyView) bool {
	for i, v := range own.Values {
		if v != "" && i < len(now.Values) && now.Values[i] == v {
			return true
		}
	}
	return false
}

// returned is what an operation returned, for a reason: its error, or
// nil.
func returned(r *harness.Run, err error) string {
	if err == nil {
		return "nil"
	}
	return r.ErrText(err)
}

// release-faults' messages.
var (
	mRelFaultsWarm = msg.Define("release-faults.warm", nil,
		"A has acquired and released a lock once, on a key of its own: its connections are open and logged in")
	mRelFaultsArmed = msg.Define("release-faults.armed", msg.K(msg.Duration, msg.Sub),
		"A holds K with a TTL of {0}; next, {1}: A is paused at the command after it, if its release sends one")
	mRelFaultAt = msg.Define("release-faults.at", msg.K(msg.Sub, msg.Ordinal, msg.Text),
		"{0} at the {1} command of A's release ({2})")
	mRelFaultsNoB = msg.Define("release-faults.no-b", msg.K(msg.Duration, msg.Sub),
		"B could not acquire the lock within {0}: {1}; the faulted command never ran, so A's lock stands as A left it")
	mRelFaultsWentOn = msg.Define("release-faults.breaks-went-on", msg.K(msg.Sub, msg.Sub),
		"with {0}, A's release went on once its TTL had run out and B had acquired, and {1}")
	mRelFaultsAfter = msg.Define("release-faults.breaks-after", msg.K(msg.Sub, msg.Sub),
		"with {0}, A's release returned; once its TTL had run out and B had acquired, {1}")
	mRelFaultsFaith = msg.Define("release-faults.breaks-faith", msg.K(msg.Sub),
		"with {0}, A's release reported success, but K still holds A's value where the release was to delete it: A was told of a release that did not happen, and the value stays until its TTL runs out")
	mRelFaultsStuck = msg.Define("release-faults.breaks-stuck", msg.K(msg.Sub, msg.Text, msg.Duration, msg.Sub),
		"with {0}, whose command Redis ran, A's release returned ({1}), and B still could not acquire the lock {2} later: {3}")
	mRelFaultsNotAtK = msg.Define("release-faults.not-at-k", nil,
		"B's acquire returned a lock while K still holds A's: B's lock is not at K, and what A's release does next is not judged")
	mRelFaultsNoCommand = msg.Define("release-faults.n/a", nil,
		"A's release sent no command to fault")
	mRelFaultsHold = msg.Define("release-faults.holds", msg.K(msg.Count, msg.Count),
		"with {0} faults injected in turn at the commands of A's release ({1} {1|command|commands}), A's release left B's lock as B took it, reported success only when it had freed A's own lock, and left nothing that outlives its TTL")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("release-faults.scenario", nil,
		"at each command of the holder A's release in turn, the faults of `acquire-faults`: an error reply in Redis's place, a lost reply, a connection dropped before the command, a reply past the caller's deadline. A's release that sends another command after the fault (a retry, a fallback) is paused there until A's TTL has run out and B has acquired, then goes on one command at a time, B paused, K read after each and C trying at each boundary; one that returns at once has B wait for the lock all the same")
	_ = msg.Define("release-faults.must", nil,
		"whatever A's release does after the fault, retries included, B's lock stays as B took it and C never gets in; a release that reports success has freed A's lock; after a lost or late reply, whose command ran, the lock frees within its TTL and the slack")
)

// A release slower than its TTL, which says nothing of the lock.
var mRelFaultsTooSlow = msg.Define("release-faults.too-slow", msg.K(msg.Client, msg.Count, msg.Duration),
	"{0}'s release met no fault at its command {1}, and its TTL ({2}) had passed by its end: the machine was too slow for the scenario's timing")
