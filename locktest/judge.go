package locktest

import (
	"errors"
	"slices"

	"github.com/locklab/locklab/locktest/internal/judge"
)

// Judge decides r again from its Timeline alone, without Redis, as Check
// and Explore decided it; a result without one (holds, n/a, no verdict for
// a reason outside its history) gives ErrNoHistory.
func Judge(r Result) (Result, error) {
	if len(r.Timeline) == 0 || r.Err != nil {
		return r, ErrNoHistory
	}
	d, err := judge.Mutex(r.Timeline)
	if err != nil {
		return r, err
	}
	m := d.Reason
	if w := r.Message; r.Property == Explored && (w.ID == mExploreBreaks.ID || w.ID == mExploreUnshrunk.ID) && len(w.Args) > 0 && d.Verdict == judge.Breaks {
		// An exploration's reason wraps the judge's with its seed and
		// counts: wrap the judge's again.
		reason := d.Reason
		w.Args = slices.Clone(w.Args)
		w.Args[0].Msg = &reason
		m = w
	}
	r.Verdict, r.Message, r.Err = Verdict(d.Verdict), m, nil
	return r, nil
}

// ErrNoHistory is Judge's for a result without a history: only a break keeps one.
var ErrNoHistory = errors.New("locktest: the result keeps no history to judge")
