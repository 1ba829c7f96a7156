// Package fold hands the folding of a timeline, the repetitions that
// locktest finds in it (a waiter's failed attempts, a block of commands
// seen again and again), to the packages that draw one, report's
// diagrams, without making it part of locktest's API: locktest registers
// its folding once, at init, and they call it.
package fold

// Repeat is a stretch of a timeline seen len(Events) times in a row, or
// once.
type Repeat[E any] struct {
	Events [][]E // one slice per repetition
	// First and Last are the repetitions to show, merged.
	First, Last int
}

// folder is the registered folding, a func([]E) []Repeat[E].
var folder any

// Register makes f the folding of timelines of E.
func Register[E any](f func([]E) []Repeat[E]) { folder = f }

// Timeline folds tl, in order, with the folding registered for E; it
// panics when none is.
func Timeline[E any](tl []E) []Repeat[E] {
	f, ok := folder.(func([]E) []Repeat[E])
	if !ok {
		panic("fold: no folding registered for this timeline")
	}
	return f(tl)
}
