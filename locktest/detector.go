package locktest

import (
	"slices"
	"sync"

	"github.com/locklab/locklab/locktest/internal/judge"

	"github.com/locklab/locklab/history"
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
	d.rec.add(history.Event{Client: who, Kind: history.EvEnter})
	if len(d.inside) > 0 {
		o := judge.Overlap(who, slices.Clone(d.inside))
		d.overlaps = append(d.overlaps, o)
		d.rec.add(history.Event{Client: who, Kind: history.EvOverlap, Msg: &o})
	}
	d.inside = append(d.inside, who)
}

func (d *detector) leave(who string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, c := range d.inside {
		if c == who {
			d.inside = append(d.inside[:i], d.inside[i+1:]...)
			d.rec.add(history.Event{Client: who, Kind: history.EvLeave})
			return
		}
	}
}

// isInside says whether who is in the critical section.
func (d *detector) isInside(who string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Contains(d.inside, who)
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
