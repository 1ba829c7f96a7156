package locktest

import (
	"errors"

	"github.com/locklab/locklab/internal/msg"
)

// failed is an error of the suite that is a message: why a run reached
// no verdict, or was disturbed. Its text is the message in English, then
// detail (a stack); Check puts the message in Result.Message, so that a
// report says it in its language. It matches the errors it wraps.
type failed struct {
	m      Message
	detail string
	wraps  []error
}

// failure returns m as an error that matches wraps.
func failure(m Message, wraps ...error) error { return &failed{m: m, wraps: wraps} }

func (f *failed) Error() string   { return f.m.String() + f.detail }
func (f *failed) Unwrap() []error { return f.wraps }

// messageOf says err as a message: a failure's own, else its text as it
// is (an error of Redis, of the strategy, of the environment).
func messageOf(err error) Message {
	var f *failed
	if errors.As(err, &f) && f.Error() == err.Error() {
		return f.m
	}
	return mErrText.New(err.Error())
}

var mErrText = msg.Define("error.text", msg.K(msg.Text), "{0}")
