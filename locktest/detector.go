package locktest

import (
	"slices"
	"sync"
)

// detector watches the critical section: who is inside, and who entered
// while someone else was.
type detector struct {
	rec      *recorder
	mu       sync.Mutex
	inside   []string
	overlaps []Message
}

func (d *detector) enter(who string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rec.add(Event{Client: who, Kind: EvEnter, Text: "enters the critical section"})
	if len(d.inside) > 0 {
		args := []Arg{{Kind: ArgClient, Text: who}, {Kind: ArgText, Text: " entered while "}}
		for i, c := range d.inside {
			if i > 0 {
				args = append(args, Arg{Kind: ArgText, Text: ", "})
			}
			args = append(args, Arg{Kind: ArgClient, Text: c})
		}
		args = append(args, Arg{Kind: ArgText, Text: " was inside"})
		o := joinArgs(args, "")
		d.overlaps = append(d.overlaps, mOverlapText.New(who, slices.Clone(d.inside)))
		d.rec.add(Event{Client: who, Kind: EvOverlap, Text: o, TextArgs: args})
	}
	d.inside = append(d.inside, who)
}

func (d *detector) leave(who string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, c := range d.inside {
		if c == who {
			d.inside = append(d.inside[:i], d.inside[i+1:]...)
			d.rec.add(Event{Client: who, Kind: EvLeave, Text: "leaves the critical section"})
			return
		}
	}
}

// firstOverlap returns the first overlap seen, if any.
func (d *detector) firstOverlap() (Message, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.overlaps) == 0 {
		return Message{}, false
	}
	return d.overlaps[0], true
}
