package strategy

import "strconv"

// OpError reports a failed Redis command: which strategy sent what for which
// key. It unwraps to the cause (a network error, a redis.Error such as
// WRONGTYPE, ErrBadValue, a context error).
type OpError struct {
	Strategy string // package name, e.g. "getset"
	Op       string // the command or step, e.g. "GETSET"
	Key      string
	Err      error
}

func (e *OpError) Error() string {
	return e.Strategy + ": " + e.Op + " " + strconv.Quote(e.Key) + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *OpError) Unwrap() error { return e.Err }
