package sim

import (
	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
)

// The harness's messages, which several properties share; each property
// declares its own in its file.
var (
	mShiftedTimes = msg.Define("suite.shifted-times", msg.K(msg.Client, msg.Duration),
		"{0}'s clock is skewed by {1}, but its lock reads a clock of its own that the suite cannot skew: {0}'s proxy moves every absolute time in its commands by {1} on the way to Redis, as that clock would have")
	mCleanupPanicked = msg.Define("client.cleanup-panicked", msg.K(msg.Client, msg.Text),
		"{0}: a Cleanup function panicked: {1}")
)

// ValueArg is a value of the timeline as a message's argument.
func ValueArg(a history.Arg) msg.Arg {
	return msg.Arg{Kind: msg.Value, Value: string(a.Kind), Text: a.Text, Owner: a.Client, Ms: a.Ms}
}

// What a client does, in its events.
var (
	mPaused        = msg.Define("client.paused", msg.K(msg.Sub), "paused {0}")
	mPausedInMulti = msg.Define("client.paused-in-multi", msg.K(msg.Sub),
		"paused {0} (inside MULTI: what it queued runs only at EXEC)")
	mDiesAfter = msg.Define("client.dies-after", msg.K(msg.Count, msg.Text),
		"dies right after its command #{0} ({1}) returns")
)

// What events say.
var (
	mClock       = msg.Define("event.clock", msg.K(msg.Value), "now = {0}")
	mClockAhead  = msg.Define("event.clock-ahead", msg.K(msg.Value, msg.Duration), "now = {0} (clock {1} ahead)")
	mClockBehind = msg.Define("event.clock-behind", msg.K(msg.Value, msg.Duration), "now = {0} (clock {1} behind)")
	mNoReply     = msg.Define("event.no-reply", nil, "no reply: the connection closed first")
	mUnreachable = msg.Define("event.unreachable", nil,
		"unreachable: the network between them is cut")
)

// Why a run reached no verdict (run.fail), or was disturbed and runs
// again (run.disturbed, the monitor).
var (
	mFailProxy = msg.Define("fail.proxy", msg.K(msg.Client, msg.Text),
		"{0}: the suite's proxy failed: {1}")
	MsgFailFactory = msg.Define("fail.factory", msg.K(msg.Client, msg.Text),
		"{0}: the factory failed: {1}")
	mFailNilStrategy = msg.Define("fail.nil-strategy", msg.K(msg.Client),
		"{0}: the factory returned a nil Strategy and no error")
	mFailPanicked = msg.Define("fail.panicked", msg.K(msg.Client, msg.Text, msg.Text),
		"{0}: {1} panicked: {2}")
	MsgFailWatchdog = msg.Define("fail.watchdog", msg.K(msg.Text),
		"the watchdog stopped the run: {0}")
	mFailNeither = msg.Define("fail.neither", msg.K(msg.Client),
		"{0}: TryAcquire returned neither a lock nor an error")
	mFailUnexpected = msg.Define("fail.unexpected", msg.K(msg.Client, msg.Op, msg.Text),
		"{0}'s {1} failed with an unexpected error: {2}")
	mFailUnseen = msg.Define("fail.unseen", msg.K(msg.Client),
		"{0}: acquire returned a lock, but no command of the client has crossed its proxy (Client.Addr; LOCKLAB_REDIS_ADDR for a program): the lock reaches Redis some other way, where the suite cannot see or steer it")
)
