package history

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locklab/locklab/internal/msg"
)

// A timeline repeats itself: a waiter polls the key a hundred times, a
// scenario retries the same commands. Fold finds the repetitions, once
// for every form that shows a timeline: report's diagrams draw each as a
// loop, Format writes it once.

// Repeat is a stretch of a timeline seen len(Events) times in a row, or
// once.
type Repeat struct {
	Events [][]Event // one slice per repetition
	// First and Last are the repetitions to show, merged.
	First, Last int
}

// maxGroup is the longest group of events that collapse looks for.
const maxGroup = 6

// signature is what must be equal for two events to count as the same:
// everything but the time, the times in values and which token a client
// wrote.
func signature(e Event) string {
	sig := func(args []Arg) string {
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = argSig(a.Kind, a.Text, a.Client)
		}
		return strings.Join(parts, "\x01")
	}
	return strings.Join([]string{string(e.Kind), e.Client, e.Node, sig(e.Command), sig(e.Reply), e.Err, msgSig(e.Msg)}, "\x00")
}

// argSig is a value's part of a signature.
func argSig(kind ArgKind, text, owner string) string {
	switch kind {
	case ArgTime:
		return "time"
	case ArgToken:
		return "token:" + owner
	}
	return string(kind) + ":" + text
}

// msgSig is a message's part of a signature: its identifier and its
// arguments, values as argSig has them.
func msgSig(m *Message) string {
	if m == nil {
		return ""
	}
	parts := []string{m.ID}
	for _, a := range m.Args {
		switch {
		case a.Msg != nil:
			parts = append(parts, "("+msgSig(a.Msg)+")")
		case a.Kind == msg.Value:
			parts = append(parts, argSig(ArgKind(a.Value), a.Text, a.Owner))
		default:
			parts = append(parts, fmt.Sprint(a.Kind, a.Text, a.N, a.List))
		}
	}
	return strings.Join(parts, "\x03")
}

// Fold cuts the timeline into repeats, in order: each client's failed
// attempts in a row (see attempts), and between them what collapse makes
// of the rest, blocks of up to six events seen again and again with only
// times and tokens changed.
// A claim (EvCheck) and a typed read (EvRead) are for the judge and are
// never drawn: a read the timeline shows is the note beside it.
func Fold(tl []Event) []Repeat {
	tl = slices.DeleteFunc(slices.Clone(tl), func(e Event) bool { return e.Kind == EvCheck || e.Kind == EvRead })
	var out []Repeat
	plain := 0
	for i := 0; i < len(tl); {
		g, n := attempts(tl[i:])
		if n == 0 {
			i++
			continue
		}
		out = append(out, collapse(tl[plain:i])...)
		out = append(out, g...)
		i += n
		plain = i
	}
	return append(out, collapse(tl[plain:])...)
}

// attempts reads the failed attempts of one client in a row at the start
// of tl: each its commands and clock readings, then its EvNotAcquired, with nothing of anyone else between them. When there are at
// least two, it returns them as groups, and how many events they cover:
// the attempts before the first that went the way most of them did are
// drawn as they are, then that one and all that follow as one loop.
func attempts(tl []Event) ([]Repeat, int) {
	if len(tl) == 0 || tl[0].Client == "" {
		return nil, 0
	}
	c := tl[0].Client
	var reps [][]Event
	for i, j := 0, 0; j < len(tl); j++ {
		e := tl[j]
		if e.Client != c {
			break
		}
		if e.Kind == EvNotAcquired {
			reps = append(reps, tl[i:j+1])
			i = j + 1
			continue
		}
		if e.Kind != EvCommand && e.Kind != EvClock {
			break
		}
	}
	if len(reps) < 2 {
		return nil, 0
	}
	sigs := make([]string, len(reps))
	count := map[string]int{}
	for i, r := range reps {
		s := make([]string, len(r))
		for j, e := range r {
			s[j] = signature(e)
		}
		sigs[i] = strings.Join(s, "\x02")
		count[sigs[i]]++
	}
	first := 0
	for i, s := range sigs {
		if count[s] > count[sigs[first]] {
			first = i
		}
	}
	last := first
	for i := first + 1; i < len(sigs); i++ {
		if sigs[i] == sigs[first] {
			last = i
		}
	}
	var out []Repeat
	n := 0
	for _, r := range reps[:first] {
		out = append(out, Repeat{Events: [][]Event{r}})
		n += len(r)
	}
	loop := Repeat{Events: reps[first:], Last: last - first}
	for _, r := range loop.Events {
		n += len(r)
	}
	return append(out, loop), n
}

// collapse cuts the timeline into groups: at each point it takes the block
// of up to maxGroup events that repeats to cover the most events (the
// shortest on a tie), or the single event when nothing repeats.
func collapse(tl []Event) []Repeat {
	sigs := make([]string, len(tl))
	for i, e := range tl {
		sigs[i] = signature(e)
	}
	same := func(i, j, k int) bool { return slices.Equal(sigs[i:i+k], sigs[j:j+k]) }
	var out []Repeat
	for i := 0; i < len(tl); {
		bestK, bestReps := 1, 1
		for k := 1; k <= maxGroup && i+2*k <= len(tl); k++ {
			reps := 1
			for i+(reps+1)*k <= len(tl) && same(i, i+reps*k, k) {
				reps++
			}
			if reps >= 2 && k*reps > bestK*bestReps {
				bestK, bestReps = k, reps
			}
		}
		g := Repeat{}
		for r := range bestReps {
			g.Events = append(g.Events, tl[i+r*bestK:i+(r+1)*bestK])
		}
		g.Last = bestReps - 1
		out = append(out, g)
		i += bestK * bestReps
	}
	return out
}
