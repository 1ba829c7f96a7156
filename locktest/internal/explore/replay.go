package explore

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Replaying the run that broke. A plan's schedule (PCT, a walk) chooses
// among the clients waiting at the gate, and which wait depends on real
// time: run again under another load, the same schedule can let the
// clients go in another order. On the explorer's catalog a plan that
// broke once broke in 1 of 10 runs again, its second choice point met
// with four clients waiting instead of three. The scheduler therefore
// records which client went at each step, and an Ordered schedule gives
// that order again: at each step the client the order names goes, once
// it waits at its gate, however many others wait.
//
// A client the order names may not come: a shrunk plan gave it fewer
// operations, a refusal sent it to sleep where the run that broke was
// granted. The scheduler waits for it orderWait at most, then lets go the
// waiting client whose next step in the order is the nearest, and takes
// that step out of the order; a client that ended (its script done, or
// crashed) has its steps dropped. Past the order, the first waiting goes.

// orderWait bounds how long the scheduler holds the waiting clients for
// the client the order names: about what a loaded machine adds to a
// command's round trip, and below the TTLs of the explorer's plans.
const orderWait = 20 * quantum

// orderedPick is the waiting client an Ordered schedule lets go, and the
// order left after it; -1 (and the order as it was) when it waits on for
// the client named first. waiting says which clients wait, gone which
// ended, and blocked how long the client named first has been waited for.
func orderedPick(rest []int, waiting, gone []bool, blocked time.Duration) (int, []int) {
	rest = slices.DeleteFunc(rest, func(i int) bool { return i < len(gone) && gone[i] })
	if len(rest) == 0 {
		return firstWaiting(waiting), rest
	}
	if w := rest[0]; w < len(waiting) && waiting[w] {
		return w, rest[1:]
	}
	if blocked < orderWait {
		return -1, rest
	}
	for j, i := range rest {
		if i < len(waiting) && waiting[i] {
			return i, slices.Delete(slices.Clone(rest), j, j+1)
		}
	}
	return firstWaiting(waiting), rest
}

func firstWaiting(waiting []bool) int {
	return slices.Index(waiting, true)
}

// withoutClient is order once client i is taken out of the plan: its
// steps dropped, the clients after it one lower.
func withoutClient(order []int, i int) []int {
	if order == nil {
		return nil
	}
	out := make([]int, 0, len(order))
	for _, c := range order {
		switch {
		case c < i:
			out = append(out, c)
		case c > i:
			out = append(out, c-1)
		}
	}
	return out
}

// orderString writes order by the clients' names, a run of steps of one
// client as its name and their count: "A×2 B C×3".
func orderString(clients []Script, order []int) string {
	name := func(i int) string {
		if i >= 0 && i < len(clients) {
			return clients[i].Name
		}
		return fmt.Sprint(i)
	}
	var parts []string
	for j := 0; j < len(order); {
		k := j + 1
		for k < len(order) && order[k] == order[j] {
			k++
		}
		s := name(order[j])
		if k-j > 1 {
			s += fmt.Sprintf("×%d", k-j)
		}
		parts = append(parts, s)
		j = k
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}
