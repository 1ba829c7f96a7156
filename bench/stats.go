package bench

import (
	"slices"
	"time"
)

// Durations are latency samples.
type Durations []time.Duration

// Quantile returns the q-quantile (0 ≤ q ≤ 1) by the nearest-rank method,
// or 0 when there are no samples. It sorts d in place.
func (d Durations) Quantile(q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	if !slices.IsSorted(d) {
		slices.Sort(d)
	}
	// Nearest rank: the smallest sample with at least q of all at or below it.
	rank := int(q*float64(len(d)) + 0.999999999)
	rank = min(max(rank, 1), len(d))
	return d[rank-1]
}

// Sum returns the total of the samples.
func (d Durations) Sum() time.Duration {
	var t time.Duration
	for _, x := range d {
		t += x
	}
	return t
}

// us converts a duration to microseconds.
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// f returns a pointer to v, for the figures of a Row that may be absent.
func f(v float64) *float64 { return &v }
