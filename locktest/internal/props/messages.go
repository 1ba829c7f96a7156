package props

import (
	"github.com/locklab/locklab/internal/msg"
)

// The harness's messages, which several properties share; each property
// declares its own in its file.
var (
	mBWaitsTTL = msg.Define("wait.ttl", msg.K(msg.Duration, msg.Duration),
		"B waits up to {0} (TTL {1} + slack)")
)

// What a client does, in its events.
var (
	mCrashNeverReleases = msg.Define("client.crash-never-releases", nil,
		"crashes while holding the lock; it never releases")
	mCrashInsteadOfRelease = msg.Define("client.crash-instead-of-release", nil,
		"crashes instead of releasing, to see whether the lock expires without it")
)

// What the late-operation properties (safe-release, safe-refresh,
// renewed-overrun) share.
var (
	mPausedTTLResumed = msg.Define("late.breaks-resumed", msg.K(msg.Sub, msg.Sub),
		"A was paused {0} until its TTL ran out and B acquired; when A resumed, {1}")
)

// What the topology properties share.
var (
	mMinorityUnreachable = msg.Define("topology.n/a", nil,
		"A could not acquire K with a minority of the masters out of reach: see minority-down")
)

// Why a run reached no verdict (run.fail), or was disturbed and runs
// again (run.disturbed, the monitor).
var (
	mFailNotFreeErr = msg.Define("fail.not-free-error", msg.K(msg.Client, msg.Text),
		"{0} could not acquire a free lock: {1}")
	mFailRefresh = msg.Define("fail.refresh", msg.K(msg.Client, msg.Text),
		"{0}: the Refresh of the lock it had just acquired failed: {1}")
	mFailStartReplicated = msg.Define("fail.start-replicated", msg.K(msg.Text),
		"starting a primary and its replica failed: {0}")
	mFailKill = msg.Define("fail.kill", msg.K(msg.Node, msg.Text),
		"killing {0} failed: {1}")
	mFailRestart = msg.Define("fail.restart", msg.K(msg.Node, msg.Text),
		"starting {0} again failed: {1}")
	mFailKillPrimary = msg.Define("fail.kill-primary", msg.K(msg.Text),
		"killing the primary failed: {0}")
	mFailPromote = msg.Define("fail.promote", msg.K(msg.Text),
		"promoting the replica failed: {0}")
	mFailMoveClock = msg.Define("fail.move-clock", msg.K(msg.Node, msg.Text),
		"moving {0}'s clock failed: {1}")
)
