// Package explore generates runs that no scenario wrote: a plan drawn
// from a seed (who does what, which faults strike where, in which order
// the clients' commands go), run on a real Redis through the same
// simulated clients as the scenarios, judged from its history alone, and
// shrunk to a small counterexample when the judge finds a violation.
//
// A seed is the whole plan: drawn again from the same seed, it is the same
// plan, so a run is replayed by its seed. Three streams of the seed draw
// its three parts apart (the workload, the faults, the schedule), so that
// shrinking one leaves the others as they were.
package explore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest/internal/servererr"
	"github.com/locklab/locklab/strategy"
)

// Lock is what the plan needs to know of the lock under test.
type Lock struct {
	Kind    strategy.Kind
	Permits int  // a semaphore's, else 0
	Shared  bool // it takes readers (strategy.Shared)
	Weight  bool // it takes several permits at once (strategy.Weighted)
	Refresh bool // its locks refresh (strategy.Refresher)
	Fenced  bool // it promises fencing tokens (strategy.Fenced)
	Leased  bool // it promises a lease signal (strategy.Leased)
	// Renews: it renews its holds on its own, unseen by the history, so
	// a hold's end is not its call plus its TTL.
	Renews bool
	// WriterIntent: how long a write attempt may keep readers out
	// (strategy.WriterFirst).
	WriterIntent time.Duration
	// Commands: what an acquire of a free lock, its refresh and its
	// release sent when the lock was probed (a warm round, its scripts
	// loaded), by the operation's kind (Acquire, Refresh, Release); a
	// fault strikes one of them, and a server state one that it applies
	// to. An operation not probed draws its faults blind.
	Commands map[OpKind][]servererr.Command
	Short    time.Duration
	Slack    time.Duration
	Long     time.Duration
	Poll     time.Duration
}

// Plan is one generated run.
type Plan struct {
	Seed    int64
	Clients []Script
	Sched   Schedule
	Swarm   Swarm
}

// Script is what one client does, in order.
type Script struct {
	Name string
	Skew time.Duration // how far its clock is off
	Ops  []Op
}

// OpKind is a kind of operation of a script.
type OpKind int

// The operations a client takes on the lock.
const (
	Acquire      OpKind = iota // try until granted, for For at most
	Try                        // one attempt
	Work                       // stay inside the critical section for For
	Refresh                    // extend the lock to TTL
	Release                    // give the lock up
	ReleaseAgain               // give it up a second time
	Crash                      // die: send nothing more
)

var opNames = map[OpKind]string{Acquire: "acquire", Try: "try", Work: "work", Refresh: "refresh",
	Release: "release", ReleaseAgain: "release again", Crash: "crash"}

// Op is one operation.
type Op struct {
	Kind  OpKind
	Mode  history.Mode // an acquire's: exclusive, shared or permit
	N     int          // permits
	TTL   time.Duration
	For   time.Duration
	Fault Fault // on one of the operation's commands
}

// FaultKind is a kind of fault a plan puts on an operation's command.
type FaultKind int

// The faults: a crash or a pause of the client, and what the network and
// the server can do to one of its commands.
const (
	NoFault FaultKind = iota
	CrashAt           // the client dies once its At-th command has returned
	PauseAt           // its connection stalls before its At-th command, for For; At 0: at once, in its work
	Dropped           // the At-th command never reaches Redis: the connection drops
	Lost              // Redis runs it; its reply is lost, and the connection drops
	Late              // its reply comes For late
	InState           // the server enters State at it, for For: every command the state applies to gets its error reply
)

var faultNames = map[FaultKind]string{CrashAt: "crash after", PauseAt: "pause before", Dropped: "drop",
	Lost: "lose the reply of", Late: "delay the reply of", InState: "the server turns"}

// Fault is one fault on an operation.
type Fault struct {
	Kind  FaultKind
	At    int // the command of the operation it strikes, from 1
	For   time.Duration
	State servererr.State // InState's
}

// SchedKind is how the commands of the clients are ordered.
type SchedKind int

// The schedules.
const (
	PCT        SchedKind = iota // priorities, lowered at a few change points (Burckhardt et al. 2010)
	Walk                        // a random walk: any waiting client, at random
	Exhaustive                  // one schedule of a depth-first search over a small plan's choice points (exhaust.go)
	Ordered                     // the order in which a run's commands went, given again (replay.go)
)

// Schedule orders the clients' commands: one command goes at a time.
type Schedule struct {
	Kind       SchedKind
	Priorities []int // PCT: each client's, highest first to go
	Changes    []int // PCT: the steps at which the client going drops to the lowest
	Seed       int64 // Walk: its stream
	// Exhaustive: at its i-th choice point (a step at which two or more
	// clients wait), the waiting client of rank Choices[i] goes, in the
	// plan's order of clients; past them, the first waiting.
	Choices []int
	// Exhaustive: this schedule is the Index-th run of its plan's
	// enumeration (the plan's first run is 1), which -seed runs again.
	Index int
	// Ordered: the client whose command went at each step of the run
	// that broke (its index in the plan's clients), in order.
	Order []int
	trail *trail // where the scheduler writes the choice points it met; nil: nowhere
}

// Swarm says which kinds of operation and fault a run may draw: each run
// turns a random subset off (swarm testing, Groce et al. 2012).
type Swarm struct {
	Refresh, Again, Crash, Pause, Drop, Lose, Late, Errors, Skew, Overrun bool
	// Greedy: every acquire of a semaphore that takes several permits
	// at once (strategy.Weighted) asks for all of them, so that rivals
	// for the whole semaphore meet at its start.
	Greedy bool
}

// streams of a seed.
const (
	workloadStream = iota + 1
	faultStream
	scheduleStream
	swarmStream
)

func stream(seed int64, n uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), n))
}

// Knobs turn parts of the drawing off, to measure what each buys.
type Knobs struct {
	// Sched: "pct" or "walk": every run's schedule, drawn, and no
	// enumeration; "exhaustive": every plan's schedules depth first,
	// where the plan is small (exhaust.go); "": PCT or a walk, drawn,
	// then the rest of a small plan's schedules, while searches have
	// taken fewer than one run in searchShare.
	Sched   string
	NoSwarm bool // every kind of operation and fault on in every run
	// NoShrink: report the first run that broke as it was drawn, without
	// shrinking or replaying it.
	NoShrink bool
	// Workers: runs at once; 0: the explorer's default.
	Workers int
}

// Draw draws the plan of seed for lock.
func Draw(seed int64, lock Lock, k Knobs) Plan {
	p := Plan{Seed: seed}
	p.Swarm = drawSwarm(stream(seed, swarmStream), lock)
	if k.NoSwarm {
		p.Swarm = Swarm{Refresh: lock.Refresh, Again: true, Crash: true, Pause: true, Drop: true, Lose: true,
			Late: true, Errors: true, Skew: true, Overrun: true}
	}
	p.Clients = drawWorkload(stream(seed, workloadStream), lock, p.Swarm)
	drawFaults(stream(seed, faultStream), lock, &p)
	p.Sched = drawSchedule(stream(seed, scheduleStream), p, k.Sched)
	return p
}

func drawSwarm(r *rand.Rand, lock Lock) Swarm {
	on := func() bool { return r.IntN(2) == 0 }
	return Swarm{Refresh: lock.Refresh && on(), Again: on(), Crash: on(), Pause: on(), Drop: on(), Lose: on(),
		Late: on(), Errors: on(), Skew: on(), Overrun: on(), Greedy: lock.Weight && lock.Permits > 1 && on()}
}

// names of the clients.
var names = []string{"A", "B", "C", "D", "E", "F", "G", "H"}

func drawWorkload(r *rand.Rand, lock Lock, sw Swarm) []Script {
	n := 2
	switch x := r.IntN(10); {
	case x >= 8:
		n = 4 + r.IntN(5) // 4 to 8
	case x >= 5:
		n = 3
	}
	clients := make([]Script, n)
	for i := range clients {
		s := Script{Name: names[i]}
		for range 1 + r.IntN(3) {
			s.Ops = append(s.Ops, drawSession(r, lock, sw)...)
			if len(s.Ops) > 0 && s.Ops[len(s.Ops)-1].Kind == Crash {
				break
			}
		}
		lateSecondRelease(r, &s)
		clients[i] = s
	}
	return clients
}

// lateSecondRelease moves, one time in two, a session's second release
// into the session after it, once that one is inside its critical
// section: a late second release of the earlier hold, while the client
// holds the lock again. A lock that tells its holds apart frees nothing
// with it; one whose token is the client's own (one per strategy
// instance, shared by its goroutines) frees the client's current hold.
func lateSecondRelease(r *rand.Rand, s *Script) {
	for i, op := range s.Ops {
		if op.Kind != ReleaseAgain || r.IntN(2) != 0 {
			continue
		}
		// The next session's first work, if there is one.
		j := slices.IndexFunc(s.Ops[i+1:], func(o Op) bool { return o.Kind == Work })
		if j < 0 {
			return
		}
		j += i + 1
		again := s.Ops[i]
		copy(s.Ops[i:j], s.Ops[i+1:j+1])
		s.Ops[j] = again
		return
	}
}

// drawSession draws one hold: an acquire, work inside, maybe a refresh,
// and its end: a release (maybe twice) or a crash.
func drawSession(r *rand.Rand, lock Lock, sw Swarm) []Op {
	ttl := lock.Short
	if r.IntN(4) == 0 {
		ttl = 2 * lock.Short
	}
	// A waiter keeps trying past the TTL and the judge's slack (Short):
	// a lock that stays taken once every hold has ended shows.
	acq := Op{Kind: Acquire, Mode: history.Exclusive, N: 1, TTL: ttl, For: ttl + 3*lock.Short}
	if r.IntN(3) == 0 {
		acq.Kind = Try
	}
	switch lock.Kind {
	case strategy.ReadWrite:
		if lock.Shared && r.IntN(5) < 3 {
			acq.Mode = history.Shared
			// A reader refused while a writer waits proves nothing for
			// the lock's writer intent after the write attempt
			// (judge.Options.WriterIntent): it keeps trying past it, so
			// that an intent that outlives what the lock says shows.
			acq.For += lock.WriterIntent
		}
	case strategy.Semaphore:
		acq.Mode = history.Permit
		switch {
		case sw.Greedy:
			acq.N = lock.Permits
		case lock.Weight && lock.Permits > 1 && r.IntN(4) == 0:
			acq.N = 2 + r.IntN(lock.Permits-1)
		}
	}
	ops := []Op{acq}
	// Work below the TTL, near it, or past it.
	work := ttl / 4
	switch x := r.IntN(6); {
	case x == 5 && sw.Overrun:
		work = ttl + ttl/2
	case x >= 3:
		work = ttl * 8 / 10
	}
	ops = append(ops, Op{Kind: Work, For: work})
	for n := 0; sw.Refresh && n < 2 && r.IntN(3) == n; n++ {
		// Work on after it, short or near the TTL: a refresh that
		// claims what it did not do shows once its holder stays past
		// the TTL it had before. One refresh in three, the second of
		// two: one that adds its TTL to what the key has left keeps it
		// past its holder's crash by what was left at each, which two
		// of them, early in their hold, push beyond the judge's slack.
		// One refresh in three asks for twice the TTL (a holder that
		// wants more time than it first asked): a refresh that renews
		// more than its own hold (every reader's entry, a crashed
		// one's) keeps what it renews past its TTL by more than the
		// judge's slack.
		more := ttl / 4
		if r.IntN(2) == 0 {
			more = ttl * 8 / 10
		}
		ask := ttl
		if r.IntN(3) == 0 {
			ask = 2 * ttl
		}
		ops = append(ops, Op{Kind: Refresh, TTL: ask}, Op{Kind: Work, For: more})
	}
	switch x := r.IntN(10); {
	case sw.Crash && x == 0:
		return append(ops, Op{Kind: Crash})
	case sw.Again && x <= 2:
		return append(ops, Op{Kind: Release}, Op{Kind: ReleaseAgain})
	}
	return append(ops, Op{Kind: Release})
}

func drawFaults(r *rand.Rand, lock Lock, p *Plan) {
	var kinds []FaultKind
	add := func(on bool, k FaultKind) {
		if on {
			kinds = append(kinds, k)
		}
	}
	add(p.Swarm.Crash, CrashAt)
	add(p.Swarm.Pause, PauseAt)
	add(p.Swarm.Drop, Dropped)
	add(p.Swarm.Lose, Lost)
	add(p.Swarm.Late, Late)
	add(p.Swarm.Errors, InState)
	for i := range p.Clients {
		if p.Swarm.Skew && r.IntN(4) == 0 {
			skew := lock.Short * 3
			if r.IntN(2) == 0 {
				skew = -skew
			}
			p.Clients[i].Skew = skew
		}
		if len(kinds) == 0 {
			continue
		}
		// The TTL of the hold, and how long its holder worked since it
		// was granted or refreshed.
		var held, worked time.Duration
		for j := range p.Clients[i].Ops {
			op := &p.Clients[i].Ops[j]
			late := false
			switch op.Kind {
			case Acquire, Try:
				held, worked = op.TTL, 0
			case Refresh:
				late = worked >= held
				held, worked = op.TTL, 0
			case Release:
				late = worked >= held
			case ReleaseAgain:
				late = true
			case Work:
				worked += op.For
				// A lock that renews its holds on its own sends them
				// while its holder works: one time in five, its
				// connection stalls there, for the TTL and the Short
				// TTL, and the lock must tell the holder its lease is
				// lost before another gets in (Lock.Leased).
				if lock.Renews && p.Swarm.Pause && r.IntN(5) == 0 {
					op.Fault = Fault{Kind: PauseAt, At: 0, For: held + lock.Short}
				}
				continue
			case Crash:
				continue
			}
			// A late operation (a refresh or a release after its holder
			// worked past its TTL, a second release) is the one that
			// meets the next holder's key: where a fallback that
			// compares no token (a bare PEXPIRE after NOSCRIPT, a DEL
			// after a failed script) takes what is not its own. It
			// draws a fault one time in two, and an error reply of the
			// server in half of those, where the swarm allows them;
			// any other operation, a fault one time in five.
			if late {
				if r.IntN(2) != 0 {
					continue
				}
			} else if r.IntN(5) != 0 {
				continue
			}
			// Any of the commands the operation sent when probed, or the
			// one after them, each as likely: the probe took the path on
			// which nothing fails, and a fallback or an undo sends a
			// command only after an error (a DEL after a failed script).
			// Not probed, the first in half the cases: many an operation
			// is a single command (a script), which a later one misses.
			f := Fault{Kind: kinds[r.IntN(len(kinds))], At: 1}
			if late && p.Swarm.Errors && r.IntN(2) == 0 {
				f.Kind = InState
			}
			cmds := lock.commandsOf(op.Kind)
			switch {
			case len(cmds) > 0:
				f.At = 1 + r.IntN(len(cmds)+1)
			case r.IntN(2) == 0:
				f.At = 2 + r.IntN(2)
			}
			switch f.Kind {
			case PauseAt:
				f.For = op.TTL + lock.Short
				if f.For == 0 {
					f.For = 2 * lock.Short
				}
			case Late:
				f.For = lateFor(lock)
			case InState:
				f.State = drawState(r, cmds, f.At)
				f.For = lock.Short * time.Duration(1+r.IntN(3))
			}
			op.Fault = f
		}
	}
}

// commandsOf is what an operation of kind k sent when probed.
func (l Lock) commandsOf(k OpKind) []servererr.Command {
	switch k {
	case Acquire, Try:
		return l.Commands[Acquire]
	case ReleaseAgain:
		return l.Commands[Release]
	}
	return l.Commands[k]
}

// drawState draws the server state a fault at the at-th of cmds turns
// on. Three times in four, one that meets that command, when it was
// probed: a state that answers it (LOADING, BUSY) or that a script meets
// as it runs (OOM at its first write) is one the operation meets. Of those, an EVALSHA meets NOSCRIPT (the scripts
// flushed) half the time: it is the one error reply a client is
// expected to recover from, by sending its script again, and that
// recovery is code no other fault runs. Else any state: a state lasts,
// and may meet the commands of other clients.
func drawState(r *rand.Rand, cmds []servererr.Command, at int) servererr.State {
	all := servererr.States
	if at >= 1 && at <= len(cmds) && r.IntN(4) != 0 {
		var applies []servererr.State
		for _, st := range all {
			if st.Meets(cmds[at-1]) {
				applies = append(applies, st)
			}
		}
		if slices.Contains(applies, servererr.ScriptsFlushed) && r.IntN(2) == 0 {
			return servererr.ScriptsFlushed
		}
		if len(applies) > 0 {
			return applies[r.IntN(len(applies))]
		}
	}
	return all[r.IntN(len(all))]
}

func drawSchedule(r *rand.Rand, p Plan, kind string) Schedule {
	walk := r.IntN(4) == 0
	switch kind {
	case "walk":
		walk = true
	case "pct":
		walk = false
	case "exhaustive":
		return Schedule{Kind: Exhaustive, Index: 1}
	}
	if walk {
		return Schedule{Kind: Walk, Seed: r.Int64()}
	}
	n := len(p.Clients)
	s := Schedule{Kind: PCT, Priorities: r.Perm(n)}
	// A bug of depth d wants d-1 change points among the k steps of a run:
	// k is about eight commands an operation.
	k := 0
	for _, c := range p.Clients {
		k += 8 * len(c.Ops)
	}
	for range r.IntN(3) { // d = 1 to 3
		s.Changes = append(s.Changes, 1+r.IntN(max(k, 1)))
	}
	return s
}

// Size is how big the plan is: its clients, operations and faults.
func (p Plan) Size() (clients, ops, faults int) {
	for _, c := range p.Clients {
		ops += len(c.Ops)
		for _, op := range c.Ops {
			if op.Fault.Kind != NoFault {
				faults++
			}
		}
		if c.Skew != 0 {
			faults++
		}
	}
	return len(p.Clients), ops, faults
}

// String writes the plan to be read and replayed: its seed, then a line a
// client, then its schedule.
func (p Plan) String() string {
	var b strings.Builder
	c, o, f := p.Size()
	fmt.Fprintf(&b, "seed %d: %s, %s, %s\n", p.Seed, count(c, "client"), count(o, "operation"), count(f, "fault"))
	for _, s := range p.Clients {
		b.WriteString("  " + s.Name + ":")
		if s.Skew != 0 {
			fmt.Fprintf(&b, " (clock %+v)", s.Skew)
		}
		for i, op := range s.Ops {
			if i > 0 {
				b.WriteString(";")
			}
			b.WriteString(" " + op.String())
		}
		b.WriteString("\n")
	}
	switch p.Sched.Kind {
	case PCT:
		fmt.Fprintf(&b, "  schedule: PCT, priorities %v, change points %v", p.Sched.Priorities, p.Sched.Changes)
	case Walk:
		fmt.Fprintf(&b, "  schedule: random walk %d", p.Sched.Seed)
	case Exhaustive:
		fmt.Fprintf(&b, "  schedule: exhaustive, run %d of the plan's, choices %v, then the first waiting", p.Sched.Index, p.Sched.Choices)
	case Ordered:
		fmt.Fprintf(&b, "  schedule: the order of the run that broke, %s, then the first waiting", orderString(p.Clients, p.Sched.Order))
	}
	return b.String()
}

func (op Op) String() string {
	s := opNames[op.Kind]
	switch op.Kind {
	case Acquire, Try:
		if op.Mode == history.Shared {
			s += " read"
		}
		if op.N > 1 {
			s += fmt.Sprintf(" %d permits", op.N)
		}
		s += " ttl " + op.TTL.String()
	case Refresh:
		s += " ttl " + op.TTL.String()
	case Work:
		s += " " + op.For.String()
	}
	if f := op.Fault; f.Kind == PauseAt && f.At == 0 {
		s += " [stall for " + f.For.String() + "]"
	} else if f.Kind != NoFault {
		s += fmt.Sprintf(" [%s command %d", faultNames[f.Kind], f.At)
		switch f.Kind {
		case PauseAt, Late:
			s += " for " + f.For.String()
		case InState:
			s += " " + f.State.String() + " for " + f.For.String()
		}
		s += "]"
	}
	return s
}

// count writes n things: "1 fault", "2 faults".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
