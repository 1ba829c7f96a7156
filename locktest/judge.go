package locktest

import (
	"errors"

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
	r.Verdict, r.Message, r.Err = Verdict(d.Verdict), d.Reason, nil
	return r, nil
}

// ErrNoHistory is Judge's for a result without a history: only a break keeps one.
var ErrNoHistory = errors.New("locktest: the result keeps no history to judge")
