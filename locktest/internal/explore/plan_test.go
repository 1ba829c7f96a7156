package explore

import (
	"testing"
	"time"

	"github.com/locklab/locklab/locktest/internal/servererr"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
)

func command(args ...string) servererr.Command {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	return servererr.FromArgs(b)
}

// TestFaultsAtProbedCommands: where the probe saw an operation's
// commands, its faults strike one of them or the one after them (a
// fallback's), every one of them in turn, and a server state is mostly one that meets that command: at an
// EVALSHA, NOSCRIPT (the scripts flushed) in about half the draws, the
// one error a client recovers from. A late refresh meets it at its
// EVALSHA about once in 300 plans, against once in 2,000 drawn blind
// (measured on these 40,000 seeds when this was written; once in 2,000
// and 10,000 before late operations drew more faults).
func TestFaultsAtProbedCommands(t *testing.T) {
	lock := Lock{Kind: strategy.Mutex, Refresh: true, Short: 60 * time.Millisecond, Long: 300 * time.Millisecond,
		Slack: 500 * time.Millisecond, Poll: 5 * time.Millisecond}
	blind := lock
	lock.Commands = map[OpKind][]servererr.Command{
		Acquire: {command("SET", "k", "t", "NX", "PX", "60")},
		Refresh: {command("SCRIPT", "LOAD", "return 1"), command("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "1", "k")},
		Release: {command("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "1", "k")},
	}
	hits := map[*Lock]int{}
	at := map[OpKind]map[int]int{Acquire: {}, Refresh: {}, Release: {}}
	var states, applying, flushed, atEvalsha, past, within int
	for seed := int64(1); seed <= 40000; seed++ {
		for _, l := range []*Lock{&lock, &blind} {
			for _, c := range Draw(seed, *l, Knobs{}).Clients {
				var ttl, worked time.Duration
				for _, op := range c.Ops {
					switch op.Kind {
					case Acquire, Try:
						ttl, worked = op.TTL, 0
					case Work:
						worked += op.For
					}
					f := op.Fault
					if f.Kind == InState && op.Kind == Refresh && f.At == 2 && f.State == servererr.ScriptsFlushed && worked > ttl {
						hits[l]++
					}
					if l == &blind || f.Kind == NoFault || op.Kind == Work {
						continue
					}
					cmds := lock.commandsOf(op.Kind)
					if !assert.LessOrEqual(t, f.At, len(cmds)+1, "%s: a fault past its commands and the one after them", op) {
						return
					}
					if f.At > len(cmds) {
						past++
						continue
					}
					within++
					base := op.Kind
					switch base {
					case Try:
						base = Acquire
					case ReleaseAgain:
						base = Release
					}
					at[base][f.At]++
					if f.Kind != InState {
						continue
					}
					states++
					if f.State.Meets(cmds[f.At-1]) {
						applying++
					}
					if cmds[f.At-1].Name() == "EVALSHA" {
						atEvalsha++
						if f.State == servererr.ScriptsFlushed {
							flushed++
						}
					}
				}
			}
		}
	}
	for k, n := range at {
		for i := range lock.commandsOf(k) {
			assert.NotZero(t, n[i+1], "no fault at command %d of %s", i+1, opNames[k])
		}
	}
	t.Logf("%d states drawn, %d applying; %d of %d at an EVALSHA NOSCRIPT; late refreshes meeting NOSCRIPT: %d probed, %d blind",
		states, applying, flushed, atEvalsha, hits[&lock], hits[&blind])
	assert.Greater(t, float64(applying)/float64(states), 0.7, "states that meet the command")
	assert.InDelta(t, 0.45, float64(past)/float64(past+within), 0.07, "faults past the probed commands, where a fallback's go")
	assert.InDelta(t, 0.5, float64(flushed)/float64(atEvalsha), 0.1, "NOSCRIPT at an EVALSHA")
	assert.Greater(t, hits[&lock], 4*hits[&blind], "a late refresh meets NOSCRIPT more often")
}

// TestLateOperationsDrawFaults: a refresh or a release after its holder
// worked past its TTL, and a second release, draw a fault one time in
// two, a server's error reply in most of them where the swarm allows
// errors; any other operation, one time in five. One refresh in three
// asks for twice its hold's TTL.
func TestLateOperationsDrawFaults(t *testing.T) {
	lock := Lock{Kind: strategy.Mutex, Refresh: true, Short: 60 * time.Millisecond, Long: 300 * time.Millisecond,
		Slack: 500 * time.Millisecond, Poll: 5 * time.Millisecond}
	var late, lateFaults, lateErrors, lateWithErrors, other, otherFaults, refreshes, longer int
	for seed := int64(1); seed <= 20000; seed++ {
		p := Draw(seed, lock, Knobs{})
		if !p.Swarm.Crash && !p.Swarm.Pause && !p.Swarm.Drop && !p.Swarm.Lose && !p.Swarm.Late && !p.Swarm.Errors {
			continue // no fault at all
		}
		for _, c := range p.Clients {
			var asked, held, worked time.Duration
			for _, op := range c.Ops {
				isLate := false
				switch op.Kind {
				case Acquire, Try:
					asked, held, worked = op.TTL, op.TTL, 0
				case Work:
					worked += op.For
					continue
				case Refresh:
					refreshes++
					if op.TTL == 2*asked {
						longer++
					}
					isLate = worked >= held
					held, worked = op.TTL, 0
				case Release:
					isLate = worked >= held
				case ReleaseAgain:
					isLate = true
				case Crash:
					continue
				}
				hit := op.Fault.Kind != NoFault
				switch {
				case isLate:
					late++
					if hit {
						lateFaults++
						if p.Swarm.Errors {
							lateWithErrors++
							if op.Fault.Kind == InState {
								lateErrors++
							}
						}
					}
				default:
					other++
					if hit {
						otherFaults++
					}
				}
			}
		}
	}
	t.Logf("late operations %d, with a fault %d (%d of %d an error state); others %d, with a fault %d; refreshes %d, twice the TTL %d",
		late, lateFaults, lateErrors, lateWithErrors, other, otherFaults, refreshes, longer)
	assert.InDelta(t, 0.5, float64(lateFaults)/float64(late), 0.03, "late operations with a fault")
	assert.InDelta(t, 0.2, float64(otherFaults)/float64(other), 0.02, "other operations with a fault")
	assert.Greater(t, float64(lateErrors)/float64(lateWithErrors), 0.5, "error states among the faults of late operations")
	assert.InDelta(t, 1.0/3, float64(longer)/float64(refreshes), 0.03, "refreshes that ask for twice the TTL")
}

// TestDrawGreedyAndRefreshes: on a semaphore that takes several permits
// at once, about one run in two is greedy, and every acquire of a
// greedy run asks for all the permits; a lock that takes one permit at
// a time is never greedy. A session that refreshes refreshes twice in
// about one case of three, never more.
func TestDrawGreedyAndRefreshes(t *testing.T) {
	base := Lock{Kind: strategy.Semaphore, Permits: 3, Refresh: true, Short: 60 * time.Millisecond,
		Long: 300 * time.Millisecond, Slack: 500 * time.Millisecond, Poll: 5 * time.Millisecond}
	weighted := base
	weighted.Weight = true
	var greedy, runs, once, twice int
	for seed := int64(1); seed <= 4000; seed++ {
		p := Draw(seed, weighted, Knobs{})
		runs++
		if p.Swarm.Greedy {
			greedy++
		}
		for _, c := range p.Clients {
			refreshes := 0
			for _, op := range c.Ops {
				switch op.Kind {
				case Acquire, Try:
					if p.Swarm.Greedy {
						assert.Equal(t, weighted.Permits, op.N, "seed %d: a greedy run's acquire", seed)
					}
					if refreshes == 1 {
						once++
					} else if refreshes == 2 {
						twice++
					}
					refreshes = 0
				case Refresh:
					refreshes++
					assert.LessOrEqual(t, refreshes, 2, "seed %d: refreshes in a session", seed)
				}
			}
			if refreshes == 1 {
				once++
			} else if refreshes == 2 {
				twice++
			}
		}
		assert.False(t, Draw(seed, base, Knobs{}).Swarm.Greedy, "seed %d: greedy without strategy.Weighted", seed)
	}
	assert.InDelta(t, 0.5, float64(greedy)/float64(runs), 0.05, "greedy runs")
	assert.InDelta(t, 1.0/3, float64(twice)/float64(once+twice), 0.05, "sessions refreshed twice, of those refreshed")
}
