package explore

import (
	"slices"
	"sync"
)

// Exhaustive search of small plans. A run's order is made at its choice
// points: the steps at which two or more clients wait at the gate, and
// the scheduler lets one of them go. A run met a sequence of them, and
// at each it chose one client of those waiting (its rank among them, in
// the plan's order of clients). A plan whose first run met few choice
// points is small: its other schedules are run too, depth first, the
// last choice point that has an alternative left changed first, each
// complete schedule one run on the real server.
//
// Real time takes part: which clients wait at a step depends on how
// long each took to get there, so a run given a prefix of choices can
// meet other choice points than the run it was derived from. The search
// takes what it met: where the prefix named a rank that was not there,
// the last one waiting went, and the next schedule is derived from the
// prefix as given and the choice points met past it. Each schedule is
// then further along, in the depth-first order, than the one before, so
// the search ends; it stops at maxSchedules runs of the plan in any case.

// smallSchedules bounds a small plan: the choice points of its first run,
// each multiplied by how many clients waited at it, give at most this
// many schedules (5 choices between two clients: 32).
const smallSchedules = 32

// maxSchedules bounds the runs of a plan's enumeration, its first
// included: a later run can meet more choice points than the first.
const maxSchedules = 48

// searchShare: by default, searches take at most one run in searchShare
// of an exploration, the rest going to new plans. Most breaks are in a
// plan's workload and faults, not its order: with no bound, the searches
// of small plans took most of the runs, and an exploration of 300 runs
// found fewer locks than PCT alone (BenchmarkExploreParts, seed 1001).
const searchShare = 4

// point is a choice point a run met: the client that went was the one of
// rank rank among the of clients that waited.
type point struct{ rank, of int }

// trail is where a run's scheduler leaves the choice points it met, and
// the order in which its clients' commands went (replay.go).
type trail struct {
	mu     sync.Mutex
	points []point
	order  []int
}

func (t *trail) set(ps []point, order []int) {
	t.mu.Lock()
	t.points, t.order = slices.Clone(ps), slices.Clone(order)
	t.mu.Unlock()
}

// went is the order in which the run's clients' commands went.
func (t *trail) went() []int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.order)
}

func (t *trail) get() []point {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.points)
}

// schedulesOf is how many schedules the choice points ps span, if every
// run met the same ones: the product of their choices, up to a bound
// above smallSchedules.
func schedulesOf(ps []point) int {
	n := 1
	for _, p := range ps {
		n *= p.of
		if n > smallSchedules {
			return smallSchedules + 1
		}
	}
	return n
}

// nextChoices is the prefix of the schedule after the run given prefix,
// which met ps, in depth-first order; false when none is left. Up to the
// prefix's length, the prefix's choices stand, with the alternatives the
// run met there (none where the run met fewer clients, or no choice
// point); past it, the run's own.
func nextChoices(prefix []int, ps []point) ([]int, bool) {
	n := max(len(prefix), len(ps))
	v := make([]point, n)
	for j := range n {
		switch {
		case j < len(prefix) && j < len(ps):
			v[j] = point{rank: prefix[j], of: max(ps[j].of, prefix[j]+1)}
		case j < len(prefix):
			v[j] = point{rank: prefix[j], of: prefix[j] + 1}
		default:
			v[j] = ps[j]
		}
	}
	for j := n - 1; j >= 0; j-- {
		if v[j].rank+1 < v[j].of {
			next := make([]int, j+1)
			for i := range j {
				next[i] = v[i].rank
			}
			next[j] = v[j].rank + 1
			return next, true
		}
	}
	return nil, false
}

// covers says whether the run that met ps ran the schedule of prefix: its
// choices are the prefix's, then the first waiting at every choice point.
func covers(ps []point, prefix []int) bool {
	if len(ps) < len(prefix) {
		return false
	}
	for j, p := range ps {
		want := 0
		if j < len(prefix) {
			want = prefix[j]
		}
		if p.rank != want {
			return false
		}
	}
	return true
}

// enumeration is the state of one plan's exhaustive search.
type enumeration struct {
	plan Plan
	seen [][]point // the choice points of each schedule run
	runs int       // the runs of the plan, its first included
}

// enumerate runs the schedules of p that its first run (which met first)
// did not, depth first, through try, which runs a plan and gives the
// choice points it met, or false to stop the search (a break, the end of
// the budget). It returns how many runs it made, and whether the search
// ended because every schedule was run.
func enumerate(p Plan, first []point, try func(Plan) ([]point, bool)) (runs int, complete bool) {
	e := enumeration{plan: p, seen: [][]point{first}, runs: 1}
	// The search starts at its root, the first waiting at every choice
	// point, which the first run was when it was not drawn otherwise.
	return e.search(nil, try)
}

// search runs the schedules from prefix on, in depth-first order.
func (e *enumeration) search(prefix []int, try func(Plan) ([]point, bool)) (int, bool) {
	made := 0
	// Each pass moves further along the depth-first order, and a pass
	// that finds its schedule already run runs nothing: bound them too.
	for range 4 * maxSchedules {
		if e.runs >= maxSchedules {
			return made, false
		}
		var met []point
		if i := slices.IndexFunc(e.seen, func(ps []point) bool { return covers(ps, prefix) }); i >= 0 {
			met = e.seen[i] // this schedule ran already
		} else {
			q := e.plan.clone()
			q.Sched = Schedule{Kind: Exhaustive, Choices: prefix, Index: e.runs + 1}
			var ok bool
			met, ok = try(q)
			e.runs++
			made++
			if !ok {
				return made, false
			}
			e.seen = append(e.seen, met)
		}
		next, ok := nextChoices(prefix, met)
		if !ok {
			return made, true
		}
		prefix = next
	}
	return made, false
}
