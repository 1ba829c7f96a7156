package props

import (
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// ReaderReleaseFrees, PermitReleaseFrees (liveness): release-frees for a
// reader and for a permit. Right after A releases its read lock (alone,
// then beside B's, which B releases next), W's single attempt to write
// must succeed; right after A releases the last permit while the others
// hold theirs, X's single attempt must take it. A refusal with no valid
// hold in its way is a break the judge finds (history.FreeRefused, over
// the permits). And a Release that reports success when its commands
// failed must have freed the hold all the same.

func init() {
	register(Property{
		id: "reader-release-frees", order: 1026, Kind: strategy.ReadWrite,
		Scenario: modeReleaseFrees(strategy.ReadWrite, modeFreesMsgs{
			released: mReaderFreesReleased, beside: mReaderFreesBeside, breaks: mReaderFreesBreaks,
			lied: mReaderFreesLied, saidSo: mReaderFreesSaidSo, holds: mReaderFreesHolds,
		}),
		breaks: "a reader's release did not free the lock for a writer's attempt right after",
	}, freesFloor)
	register(Property{
		id: "permit-release-frees", order: 1116, Kind: strategy.Semaphore,
		Scenario: modeReleaseFrees(strategy.Semaphore, modeFreesMsgs{
			released: mPermitFreesReleased, breaks: mPermitFreesBreaks,
			lied: mPermitFreesLied, saidSo: mPermitFreesSaidSo, holds: mPermitFreesHolds,
		}),
		breaks: "a release did not give its permit back for the next client's attempt right after",
	}, freesFloor)
}

// freesFloor: the holds take the Long TTL, which never runs out: nothing
// to wait for.
func freesFloor(sim.Timing) floors { return floors{} }

// modeFreesMsgs are what release-frees says in a mode: how A released
// (alone; beside another reader, nil for a semaphore), that the next
// attempt was refused, that a failed release lied or said so, and that
// it holds.
type modeFreesMsgs struct{ released, beside, breaks, lied, saidSo, holds *msg.Def }

// modeReleaseFrees is release-frees in kind's mode: a round for each way
// A releases (alone, and for a reader beside B), then the round in which
// A's release commands fail.
func modeReleaseFrees(kind strategy.Kind, ms modeFreesMsgs) Scenario {
	return func(newRun func(string) *harness.Run) harness.Outcome {
		m, res := modeOf(newRun, kind)
		if res != nil {
			return *res
		}
		for _, beside := range []bool{false, true} {
			if beside && ms.beside == nil {
				continue
			}
			name, how := "/release", ms.released
			if beside {
				name, how = "/release-beside", ms.beside
			}
			r := newRun(name)
			a, h, release, res := freesTake(r, m, beside)
			if res != nil {
				return *res
			}
			err := a.ReleaseHeldErr(h)
			release()
			if w := m.Intruder(); !m.Intrude(r.NewClient(w, 0), r.Tm.Long) {
				return m.BreaksRefused(r, w, ms.breaks.New(how.New(), errText(r, err), r.Tm.Long))
			}
			r.Shutdown()
		}

		r := newRun("/failed-release")
		a, h, _, res := freesTake(r, m, false)
		if res != nil {
			return *res
		}
		// Every command A sends until its release returns fails, as on a
		// dropped connection (release-frees).
		a.SetFailing(true)
		r.Note(mNextFails.New())
		err := a.ReleaseHeldErr(h)
		a.SetFailing(false)
		if err != nil {
			return r.Holds(ms.saidSo.New(errText(r, err)))
		}
		if w := m.Intruder(); !m.Intrude(r.NewClient(w, 0), r.Tm.Long) {
			return m.BreaksRefused(r, w, ms.lied.New())
		}
		return r.Holds(ms.holds.New())
	}
}

// freesTake has A take its hold in m with the Long TTL: after the others
// (harness.KindMode.Others), and, beside, after B's read lock, which
// release gives up. A refusal is the run's break, returned.
func freesTake(r *harness.Run, m harness.KindMode, beside bool) (a *harness.Client, h sim.Held, release func(), res *harness.Outcome) {
	release = func() {}
	if res := m.Others(r); res != nil {
		return nil, sim.Held{}, release, res
	}
	if beside {
		release, _ = m.Beside(r, "B")
	}
	a = r.NewClient("A", 0)
	h, ok := m.Take(a, r.Tm.Long)
	if !ok {
		res := m.BreaksRefused(r, "A", mFreesTakeRefused.New())
		return nil, sim.Held{}, release, &res
	}
	return a, h, release, nil
}

// The release-frees properties' messages of the kinds.
var (
	mFreesTakeRefused = msg.Define("modes.frees-take-refused", nil,
		"A was refused a hold that nothing stood in the way of")
	mReaderFreesReleased = msg.Define("reader-release-frees.released", nil,
		"A, the only reader, released its read lock")
	mReaderFreesBeside = msg.Define("reader-release-frees.released-beside", nil,
		"A released its read lock beside B's, and then B released its own")
	mReaderFreesBreaks = msg.Define("reader-release-frees.breaks", msg.K(msg.Sub, msg.Text, msg.Duration),
		"{0} (A's release returned {1}), and W's attempt to write right after was refused: the release did not free the lock, which goes only when the TTL ({2}) runs out")
	mReaderFreesLied = msg.Define("reader-release-frees.breaks-lied", nil,
		"A's release of its read lock reported success although its commands failed and never reached Redis: W's attempt to write right after was refused")
	mReaderFreesSaidSo = msg.Define("reader-release-frees.holds-said-so", msg.K(msg.Text),
		"after A released its read lock, W wrote at once, A alone and beside another reader; a release whose commands failed said so ({0})")
	mReaderFreesHolds = msg.Define("reader-release-frees.holds", nil,
		"after A released its read lock, W wrote at once, A alone and beside another reader, and even when A's release commands failed")
	mPermitFreesReleased = msg.Define("permit-release-frees.released", nil,
		"A released the last permit while the others held theirs")
	mPermitFreesBreaks = msg.Define("permit-release-frees.breaks", msg.K(msg.Sub, msg.Text, msg.Duration),
		"{0} (A's release returned {1}), and X's attempt right after was refused: the release did not give the permit back, which comes back only when the TTL ({2}) runs out")
	mPermitFreesLied = msg.Define("permit-release-frees.breaks-lied", nil,
		"A's release of its permit reported success although its commands failed and never reached Redis: X's attempt right after was refused")
	mPermitFreesSaidSo = msg.Define("permit-release-frees.holds-said-so", msg.K(msg.Text),
		"after A released the last permit, X took it at once; a release whose commands failed said so ({0})")
	mPermitFreesHolds = msg.Define("permit-release-frees.holds", nil,
		"after A released the last permit, X took it at once, even when A's release commands failed")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("reader-release-frees.scenario", nil,
		"a reader releases, alone and then beside another reader that releases next; then again alone with the release's commands failing on the wire")
	_ = msg.Define("reader-release-frees.must", nil,
		"a writer's single attempt right after succeeds, unless the release reported its failure")
	_ = msg.Define("permit-release-frees.scenario", nil,
		"the other permits held, the holder of the last releases it; then again with the release's commands failing on the wire")
	_ = msg.Define("permit-release-frees.must", nil,
		"another client's single attempt right after takes the permit, unless the release reported its failure")
)
