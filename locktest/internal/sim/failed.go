package sim

import (
	"errors"

	"github.com/locklab/locklab/internal/msg"
)

// Failed is an error of the suite that is a message: why a run reached
// no verdict, or was disturbed. Its text is the message in English, then
// detail (a stack); Check puts the message in Result.Message, so that a
// report says it in its language. It matches the errors it wraps.
type Failed struct {
	M      msg.Msg
	detail string
	wraps  []error
}

// Failure returns m as an error that matches wraps.
func Failure(m msg.Msg, wraps ...error) error { return &Failed{M: m, wraps: wraps} }

func (f *Failed) Error() string   { return f.M.String() + f.detail }
func (f *Failed) Unwrap() []error { return f.wraps }

// MessageOf says err as a message: a failure's own, else its text as it
// is (an error of Redis, of the strategy, of the environment).
func MessageOf(err error) msg.Msg {
	var f *Failed
	if errors.As(err, &f) && f.Error() == err.Error() {
		return f.M
	}
	return mErrText.New(err.Error())
}

var mErrText = msg.Define("error.text", msg.K(msg.Text), "{0}")
