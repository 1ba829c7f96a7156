package locktest

import (
	"github.com/locklab/locklab/internal/msg"
)

// Message is what the suite says: an identifier and typed arguments,
// rendered in a language from its catalog of templates.
type Message = msg.Msg

// The harness's messages, which several properties share; each property
// declares its own in its file.
var (
	mDisturbed = msg.Define("suite.disturbed", msg.K(msg.Count, msg.Sub),
		"run {0} of the check was disturbed: {1}")
)

// Why a run reached no verdict (run.fail), or was disturbed and runs
// again (run.disturbed, the monitor).
var (
	mFailHung = msg.Define("fail.hung", msg.K(msg.Duration, msg.Text),
		"the watchdog found no verdict after {0}: the strategy hung ({1})")
	mFailNoLogin = msg.Define("fail.no-login", nil,
		"a client sent commands to its proxy without logging in (NOAUTH): a lock logs in with its Client.Password; a program sends AUTH with LOCKLAB_REDIS_PASSWORD first (docs/exec.md)")
	mInconclusive = msg.Define("fail.inconclusive", msg.K(msg.Count, msg.Sub),
		"inconclusive: each of the {0} runs of the check was disturbed; the last: {1}")
	mNoServer = msg.Define("disturbed.no-connection", msg.K(msg.Text),
		"no connection to the server: {0}")
	mPingFailed = msg.Define("disturbed.ping-failed", msg.K(msg.Duration, msg.Text),
		"PING failed after {0}: {1}")
	mPingStalled = msg.Define("disturbed.ping-stalled", msg.K(msg.Duration, msg.Duration),
		"the server stalled: a PING took {0}, more than the {1} a scenario's timing allows")
	mInfoStalled = msg.Define("disturbed.info-stalled", msg.K(msg.Duration, msg.Duration),
		"the server stalled: an INFO stats took {0}, more than the {1} a scenario's timing allows")
	mSuiteStalled = msg.Define("disturbed.suite-stalled", msg.K(msg.Duration, msg.Duration, msg.Duration),
		"the suite itself stalled: {0} passed between two probes of its monitor, which come {1} apart: more than {2} late, which a scenario's timing does not allow")
	mInfoFailed = msg.Define("disturbed.info-failed", msg.K(msg.Text),
		"INFO stats failed: {0}")
	mConnCut = msg.Define("disturbed.connection-cut", msg.K(msg.Text),
		"the server cut a client's connection: {0}")
	mEvicted = msg.Define("disturbed.evicted", msg.K(msg.Count, msg.Text),
		"the server evicted {0} {0|key|keys} during the check (maxmemory-policy {1}): a verdict would be the server's, not the lock's")
)
