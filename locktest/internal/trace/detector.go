package trace

import (
	"slices"
	"sync"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/judge"

	"github.com/locklab/locklab/history"
)

// Detector watches the critical section: who is inside, and who entered
// while someone else was.
type Detector struct {
	Rec      *Recorder
	mu       sync.Mutex
	inside   []string
	overlaps []msg.Msg
}

func (d *Detector) Enter(who string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.Rec.Add(history.Event{Client: who, Kind: history.EvEnter})
	if len(d.inside) > 0 {
		o := judge.Overlap(who, slices.Clone(d.inside))
		d.overlaps = append(d.overlaps, o)
		d.Rec.Add(history.Event{Client: who, Kind: history.EvOverlap, Msg: &o})
	}
	d.inside = append(d.inside, who)
}

func (d *Detector) Leave(who string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, c := range d.inside {
		if c == who {
			d.inside = append(d.inside[:i], d.inside[i+1:]...)
			d.Rec.Add(history.Event{Client: who, Kind: history.EvLeave})
			return
		}
	}
}

// IsInside says whether who is in the critical section.
func (d *Detector) IsInside(who string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Contains(d.inside, who)
}

// FirstOverlap returns the first overlap seen, if any.
func (d *Detector) FirstOverlap() (msg.Msg, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.overlaps) == 0 {
		return msg.Msg{}, false
	}
	return d.overlaps[0], true
}
