package locktest

// Verdict is the outcome of a property for a strategy.
type Verdict string

// The verdicts.
const (
	Holds         Verdict = "holds"
	Breaks        Verdict = "breaks"
	NotApplicable Verdict = "n/a"
	NoVerdict     Verdict = "error" // Result.Err says why
)
