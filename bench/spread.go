package bench

import (
	"fmt"
	"slices"
)

// Spread is a figure measured once per round: the rounds' values, their
// median, and the lowest and the highest of them.
type Spread struct {
	Rounds []float64 `json:"rounds"`
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
}

// spreadOf summarises the rounds' values; the median of an even count is
// the mean of the middle two.
func spreadOf(rounds []float64) Spread {
	if len(rounds) == 0 {
		return Spread{}
	}
	s := slices.Sorted(slices.Values(rounds))
	sp := Spread{Rounds: slices.Clone(rounds), Median: s[len(s)/2], Min: s[0], Max: s[len(s)-1]}
	if len(s)%2 == 0 {
		sp.Median = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return sp
}

// Text prints the median and, in brackets, the range, each with format.
func (s Spread) Text(format string) string {
	if len(s.Rounds) == 0 {
		return "–"
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", s.Median, s.Min, s.Max)
}

// Overlaps reports whether the ranges of two spreads overlap: then no
// difference between them was measured.
func (s Spread) Overlaps(o Spread) bool { return s.Min <= o.Max && o.Min <= s.Max }

// spreadRatio is a / b as a ratio of medians, or "no difference measured"
// when their ranges overlap.
func spreadRatio(a, b Spread) string {
	if len(a.Rounds) == 0 || len(b.Rounds) == 0 || b.Median == 0 {
		return "–"
	}
	if a.Overlaps(b) {
		return "no difference measured"
	}
	return fmt.Sprintf("%.2f×", a.Median/b.Median)
}
