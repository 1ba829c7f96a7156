package locktest

import (
	"errors"

	"github.com/locklab/locklab/locktest/internal/judge"
)

// Judge decides r again from its history alone, without Redis, as Check
// decided it: the verdict and reason its Timeline gives. A break keeps
// its history; a result that keeps none (holds, n/a), or whose check
// reached no verdict for reasons outside its history (a disturbed
// server, a hung lock), gives ErrNoHistory.
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

// ErrNoHistory is returned by Judge for a result that keeps no history
// to decide from: only a break keeps one.
var ErrNoHistory = errors.New("locktest: the result keeps no history to judge")
