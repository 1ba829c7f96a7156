package props

import (
	"errors"
	"fmt"
	"strings"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderFaults: acquire-faults and release-faults for a reader. At each
// command of a reader's acquire, and then of its release, in turn, the
// suite injects a fault of acquire-faults (modeFaultKept): the error
// reply ERR, or NOSCRIPT to an EVALSHA, in Redis's place, a lost reply,
// a connection dropped before the command.
// A read lock the faulted acquire returns must keep a writer out, and its
// release let the writer in; whatever else the faulted call left must
// let a reader in and keep a writer out, and let the writer in once
// that reader has gone, once the reader's TTL has passed
// (KindMode.LeftFree).

func init() {
	register(Property{
		id: "reader-faults", order: 1036, Kind: strategy.ReadWrite,
		Scenario: modeFaults(strategy.ReadWrite, modeFaultMsgs{
			granted: mReaderFaultGranted, refused: mReaderFaultRefused, released: mReaderFaultReleased,
			none: mReaderFaultsNone, holds: mReaderFaultsHold,
		}),
		breaks: "a reader's acquire or release that met an error reply, a lost reply or a dropped connection left what kept a writer out past its TTL, or let a reader and a writer in together",
	}, func(tm sim.Timing) floors {
		// At least a connection dropped before the acquire's first
		// command, then C reads once the Short TTL has passed; a break
		// may come at the first fault.
		return floors{Holds: tm.Short}
	})
}

// modeFaultMsgs are what a faults property of a kind says: what B's
// faulted acquire did (granted, refused), what its faulted release
// returned, that it sends no command, and that it holds.
type modeFaultMsgs struct{ granted, refused, released, none, holds *msg.Def }

// modeFaults: for B's acquire in kind's mode, then its release, it counts
// the commands, then injects each fault of faultPoints but the late
// reply in turn, each on a run of its own in which B is warm; what the
// faulted call left is judged by modeFault.
func modeFaults(kind strategy.Kind, ms modeFaultMsgs) Scenario {
	return func(newRun func(string) *harness.Run) harness.Outcome {
		m, res := modeOf(newRun, kind)
		if res != nil {
			return *res
		}
		var last *harness.Run
		injected, commands := 0, 0
		for _, op := range []string{"acquire", "release"} {
			r, b := modeFaultSetup(newRun, m, "/"+op+"-count")
			var h sim.Held
			if op == "release" {
				h = mustTake(r, m, b)
			}
			b.WatchCommands()
			if op == "acquire" {
				h = mustTake(r, m, b)
			}
			b.ReleaseHeld(h)
			cmds := b.Watched()
			r.Shutdown()
			commands += len(cmds)
			for i, f := range faultPoints(op, cmds) {
				if !modeFaultKept(f) {
					continue
				}
				r, b := modeFaultSetup(newRun, m, fmt.Sprintf("/%s-%d", op, i+1))
				last = r
				res, fired := modeFault(r, m, b, f, ms)
				if res != nil {
					return *res
				}
				if fired {
					injected++
				}
				r.Shutdown()
			}
		}
		if last == nil {
			return newRun("/none").NotApplicable(ms.none.New())
		}
		return last.Holds(ms.holds.New(injected, commands))
	}
}

// modeFaultKept says whether a kind's faults properties inject f: not a
// late reply (a call in a mode takes no deadline of its own here), and
// of the error replies a real server sends the command only LOADING,
// which stands for those a lock can only fail on, and NOSCRIPT, which a
// lock answers by sending its script again: a third of the mutex's
// faults, each of which waits out a TTL.
func modeFaultKept(f faultPoint) bool {
	switch f.kind {
	case sim.FaultLate:
		return false
	case sim.FaultReply:
		return strings.HasPrefix(f.code, "LOADING ") || strings.HasPrefix(f.code, "NOSCRIPT ")
	}
	return true
}

// modeFaultSetup starts a run in which B, warm, has taken the lock in m
// and released it once: its connections are open and logged in and its
// scripts loaded, so that a fault falls on a command of the call itself.
func modeFaultSetup(newRun func(string) *harness.Run, m harness.KindMode, name string) (*harness.Run, *harness.Client) {
	r := newRun(name)
	b := r.NewClient("B", 0)
	b.ReleaseHeld(mustTake(r, m, b))
	r.Rec.Forget()
	r.Note(mModeFaultsWarm.New())
	return r, b
}

// mustTake has c take the free lock in m with the Short TTL.
func mustTake(r *harness.Run, m harness.KindMode, c *harness.Client) sim.Held {
	h, ok := m.Take(c, r.Tm.Short)
	if !ok {
		r.Fail(harness.MsgFailNotFree.New(c.Name))
	}
	return h
}

// modeFault runs B's call with f and judges what it left; fired says
// whether f fired (the call may have taken another path this time).
func modeFault(r *harness.Run, m harness.KindMode, b *harness.Client, f faultPoint, ms modeFaultMsgs) (res *harness.Outcome, fired bool) {
	ttl, what := r.Tm.Short, f.what()
	at := r.Rec.Now()
	if f.op == "release" {
		h := mustTake(r, m, b)
		b.ArmFault(f.fault())
		err := b.ReleaseErr(h.L)
		b.DisarmFault()
		if b.FaultFired() == sim.FaultNone {
			return nil, false
		}
		return m.LeftFree(r, "B", at, ttl, 0, ms.released.New(what, errText(r, err))), true
	}
	b.ArmFault(f.fault())
	h, err := m.TakeErr(b, ttl)
	b.DisarmFault()
	if b.FaultFired() == sim.FaultNone {
		if err == nil {
			b.ReleaseHeld(h)
		}
		return nil, false
	}
	if err != nil {
		return m.LeftFree(r, "B", at, ttl, 0, ms.refused.New(what, errText(r, err))), true
	}
	granted := ms.granted.New(what)
	res, held := m.Excludes(r, "B", granted)
	if res != nil {
		return res, true
	}
	b.ReleaseHeld(h)
	return m.Released(r, "B", held, granted), true
}

// errText is what a call returned, for the reasons: nil, the name of a
// strategy's error, or the error.
func errText(r *harness.Run, err error) string {
	switch {
	case err == nil:
		return "nil"
	case errors.Is(err, strategy.ErrNotHeld):
		return "ErrNotHeld"
	case errors.Is(err, strategy.ErrNotAcquired):
		return "ErrNotAcquired"
	}
	return r.ErrText(err)
}

// reader-faults' messages, and those the faults properties of the kinds
// share.
var (
	mModeFaultsWarm = msg.Define("modes.faults-warm", nil,
		"B has taken the lock and released it once: its connections are open and logged in")
	mReaderFaultGranted = msg.Define("reader-faults.granted", msg.K(msg.Sub),
		"with {0}, B's acquire returned a read lock, which B then released")
	mReaderFaultRefused = msg.Define("reader-faults.refused", msg.K(msg.Sub, msg.Text),
		"with {0}, B's acquire of a read lock failed ({1})")
	mReaderFaultReleased = msg.Define("reader-faults.released", msg.K(msg.Sub, msg.Text),
		"with {0}, B's release of its read lock returned {1}")
	mReaderFaultsNone = msg.Define("reader-faults.n/a", nil,
		"a reader's acquire and release sent no command to fault")
	mReaderFaultsHold = msg.Define("reader-faults.holds", msg.K(msg.Count, msg.Count),
		"with {0} faults injected in turn at the commands of a reader's acquire and release ({1} commands), no writer got in beside a read lock, and every read lock left the lock free once its TTL had passed")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-faults.scenario", nil,
		"at each command of a reader's acquire, then of its release, in turn, the suite answers the command with an error reply in Redis's place (`LOADING`, and `NOSCRIPT` for an `EVALSHA`), lets it run and drops the connection before the reply, or drops the connection before the command")
	_ = msg.Define("reader-faults.must", nil,
		"a read lock the acquire returns keeps a writer out, and its release lets the writer in; once the reader's TTL has passed, whatever the faulted call left lets a reader in, keeps a writer out while it reads, and lets the writer in once it has gone")
)
