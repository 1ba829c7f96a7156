package leasecheck

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
)

// Row is one strategy's check of one property: what the suite's judge
// said, and what porcupine says of the same run's histories.
type Row struct {
	Strategy  string
	Property  locktest.Property
	Histories int // the run's histories porcupine decided
	Ops       int // their operations
	// Porcupine is the run's verdict: illegal if any history is, with
	// the first illegal one's reason.
	Porcupine Verdict
	Illegal   []string  // the keys of the illegal histories
	Rejected  []History // the illegal histories themselves
	// Witness is the shortest illegal prefix of the first illegal
	// history (see Witness).
	Witness []Op
	// Judge is the Result's verdict; Rejudged the judge's again on the
	// history saved as lockcheck -format json saves it, for a result that
	// keeps one ("" otherwise).
	Judge    locktest.Verdict
	Rejudged locktest.Verdict
	Reason   string // the judge's reason
	// Recorded and Timeline are porcupine's verdicts on the lock calls
	// of the run that broke, as the recorder saw them and as the
	// suite's timeline has them (its critical section left out): the
	// same when the recorder reads what the suite does. Nil when the
	// result keeps no timeline.
	Recorded, Timeline *Verdict
	Err                error         // why the check or the re-judging failed
	Elapsed            time.Duration // porcupine's time on the run's histories
	Skipped            bool          // the recorder could not wrap the strategy: only a break's timeline was checked
}

// Agree is "yes" when porcupine finds the run legal exactly when the
// judge says it holds, "no" when not, and "-" when the judge gave no
// verdict to compare with (n/a, an error) or porcupine none.
func (r Row) Agree() string {
	switch {
	case r.Err != nil, r.Porcupine.Unknown, r.Histories == 0:
		return "-"
	case r.Judge == locktest.Holds && r.Porcupine.Legal, r.Judge == locktest.Breaks && !r.Porcupine.Legal:
		return "yes"
	case r.Judge == locktest.Holds, r.Judge == locktest.Breaks:
		return "no"
	}
	return "-"
}

// Strategies are the catalog's columns, Redlock's on the private
// masters the suite starts for it.
func Strategies() []catalog.Entry { return catalog.Strategies() }

// Properties are the exclusion property and those whose breaks are
// exclusion's: a second holder, or a lock nobody frees.
func Properties() []locktest.Property {
	return []locktest.Property{locktest.Exclusion, "holder-overrun", "safe-release", "double-release", "crash-recovery"}
}

// CheckProperty runs p on the entry's strategy with cfg (its Addr, a Key
// prefix, and login; the entry's factory, timing and key are set here), recording
// every run, and decides each history with porcupine within timeout.
func CheckProperty(ctx context.Context, cfg locktest.Config, e catalog.Entry, p locktest.Property, timeout time.Duration) Row {
	cfg = e.Config(cfg)
	cfg.Key += ":" + e.Name // a lock that never expires must not stand in the next strategy's way
	rec := NewRecorder()
	cfg.New = rec.Wrap(cfg.New)
	res := locktest.Check(ctx, cfg, p)
	row := Row{Strategy: e.Name, Property: p, Judge: res.Verdict, Reason: res.Reason(), Skipped: rec.Skipped()}
	if res.Err != nil {
		row.Err = res.Err
	}
	hs := rec.Histories(tolerance(res.Granularity))
	saved, err := saveAndLoad(res)
	if err != nil {
		row.Err = err
	}
	if h := FromResult(saved); h != nil {
		// The suite's own timeline of the run that broke: it has the
		// critical section too, and takes the place of the recorder's.
		for i := range hs {
			if hs[i].Key == h.Key {
				// Both readings of the run's lock calls, decided apart:
				// where the suite keeps a timeline, it vouches for the
				// recorder, which alone reads the runs that hold.
				lockOnly := *h
				lockOnly.Ops = slices.DeleteFunc(slices.Clone(h.Ops), func(op Op) bool { return op.Kind == Enter || op.Kind == Leave })
				rec, tl := Check(hs[i], timeout), Check(lockOnly, timeout)
				row.Recorded, row.Timeline = &rec, &tl
				hs = append(hs[:i], hs[i+1:]...)
				break
			}
		}
		hs = append(hs, *h)
		if res.Err == nil {
			j, err := locktest.Judge(saved)
			if err != nil {
				row.Err = fmt.Errorf("judging the saved history again: %w", err)
			}
			row.Rejudged = j.Verdict
		}
	}
	row.Porcupine.Legal = true
	for _, h := range hs {
		v := Check(h, timeout)
		row.Histories++
		row.Ops += v.Ops
		row.Elapsed += v.Elapsed
		row.Porcupine.Unknown = row.Porcupine.Unknown || v.Unknown
		if !v.Legal {
			if row.Porcupine.Legal {
				row.Porcupine.Legal, row.Porcupine.Broken = false, v.Broken
			}
			if len(row.Illegal) == 0 {
				row.Witness = Witness(h, timeout)
			}
			row.Illegal, row.Rejected = append(row.Illegal, h.Key), append(row.Rejected, h)
		}
	}
	row.Porcupine.Ops, row.Porcupine.Elapsed = row.Ops, row.Elapsed
	return row
}

// saveAndLoad returns res as lockcheck -format json saves it and
// -judge reads it back.
func saveAndLoad(res locktest.Result) (locktest.Result, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return res, err
	}
	var out locktest.Result
	if err := json.Unmarshal(b, &out); err != nil {
		return res, err
	}
	return out, nil
}

// Faithful says whether the recorder's reading of the run that broke got
// the verdict the suite's timeline gets, when there is one to compare.
func (r Row) Faithful() bool {
	return r.Recorded == nil || r.Recorded.String() == r.Timeline.String()
}
