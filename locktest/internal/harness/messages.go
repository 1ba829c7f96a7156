package harness

import (
	"github.com/locklab/locklab/internal/msg"
)

// The harness's messages, which several properties share; each property
// declares its own in its file.
var (
	mBoundaryFirst = msg.Define("boundary.first", msg.K(msg.Op),
		"before the first command of its {0}")
	mBoundaryAfter = msg.Define("boundary.after", msg.K(msg.Count, msg.Count, msg.Op),
		"after command {0} of {1} of its {2}")
	mBoundaryNotReached = msg.Define("boundary.not-reached", msg.K(msg.Client, msg.Op),
		"{0}'s {1} ended before reaching that boundary")
	mStaleHolds = msg.Define("stale.holds", msg.K(msg.Value, msg.Duration),
		"K holds {0}, left by a holder that crashed: its TTL ({1}) has passed")
	mStaleGone = msg.Define("stale.gone", msg.K(msg.Duration),
		"K is gone: its holder crashed and the key expired after {0}")
	mLockKeys = msg.Define("suite.lock-keys", msg.K(msg.Text),
		"the suite reads the lock at {0}, the keys it keeps its state under: where a property asks how long the lock has left or whether it is gone, it reads those keys")
	mReadPTTL = msg.Define("suite.reads-pttl", msg.K(msg.Value),
		"the suite reads PTTL K: {0}")
	mStopTopology = msg.Define("suite.stop-topology", msg.K(msg.Text),
		"stopping the topology: {0}")
	mUnexpiredNoExpiry = msg.Define("unexpired.no-expiry", nil,
		"K has no expiry, so the lock never expires")
	mUnexpiredStill = msg.Define("unexpired.still-there", msg.K(msg.Duration, msg.Duration),
		"K was still there {0} after a TTL of {1} was asked: its expiry was set longer than asked, or pushed back since (by the holder's renewals, or by other clients' commands)")
	mUnexpiredElsewhere = msg.Define("unexpired.elsewhere", nil,
		"the lock is not at K, and K did not expire")
	mLifeNoExpiry = msg.Define("life-left.no-expiry", nil,
		"K has no expiry: the lock never expires")
	mLifeLeft = msg.Define("life-left.left", msg.K(msg.Duration, msg.Duration, msg.Duration),
		"K still had {0} to live {1} after a TTL of {2} was asked: its expiry was set longer than asked or pushed back since, by the commands the timeline shows")
	mLifeElsewhere = msg.Define("life-left.elsewhere", nil,
		"the lock is not at K, and did not expire")
	MsgLatePaused = msg.Define("late.paused", msg.K(msg.Duration, msg.Duration),
		"A stays paused past its TTL ({0}); B waits up to {1}")
	MsgLateResumes = msg.Define("late.resumes", nil, "A resumes")
	mLateSteps     = msg.Define("late.resumes-stepwise", nil,
		"A resumes, one command at a time")
	mLateStalled = msg.Define("late.stalled", msg.K(msg.Duration, msg.Duration),
		"A is stalled past its TTL ({0}): its commands are held back, its timers run on; B waits up to {1}")
	mLateWorks = msg.Define("late.works", msg.K(msg.Duration, msg.Duration),
		"A keeps working past its TTL ({0}); B waits up to {1}")
	mLeaseLost = msg.Define("late.lease-lost", msg.K(msg.Client, msg.Text),
		"{0} stops working: its lease is lost ({1})")
	mFreedDeleted = msg.Define("freed.deleted", msg.K(msg.Client, msg.Op),
		"{0}'s {1} deleted K, B's lock: C acquired it while B still held it")
	mFreedStillThere = msg.Define("freed.still-there", nil,
		"C acquired the lock while B still held it, although K was still there: the acquire let a second holder in")
	mFreedWhileHeld = msg.Define("freed.while-held", nil,
		"C acquired the lock while B still held it")
	mKeyGone      = msg.Define("key.gone", nil, "K is gone")
	mKeyNoExpiry  = msg.Define("key.no-expiry", nil, "K has no expiry")
	mKeyExpiresIn = msg.Define("key.expires-in", msg.K(msg.Duration), "K expires in {0}")
	mRefusedFree  = msg.Define("free.refused", msg.K(msg.Client, msg.Count, msg.Duration, msg.Duration),
		"{0}'s attempt at a free lock was refused, and K is free: {0} tries again {1} {1|time|times}, {2} apart, with a TTL of {3}")
	mHolderPausedReads = msg.Define("next.holder-paused-reads", msg.K(msg.Client, msg.Sub),
		"{0} is paused; the suite reads K: {1}")
	mReadsK      = msg.Define("next.reads", msg.K(msg.Sub), "the suite reads K: {0}")
	mOpOverReads = msg.Define("next.op-over-reads", msg.K(msg.Op, msg.Sub),
		"A's {0} is over; the suite reads K: {1}")
	mAtCommand = msg.Define("next.at-command", msg.K(msg.Sub, msg.Client, msg.Op, msg.Ordinal),
		"{0} (the {3} command of {1}'s {2})")
	mThenC = msg.Define("next.then-c", msg.K(msg.Sub, msg.Client),
		"{0}: C acquired the lock while {1} still held it")
	mThirdHolder = msg.Define("next.third-holder", msg.K(msg.Client, msg.Sub, msg.Op),
		"C acquired the lock while {0} held it, with A paused {1}: A's late {2} had let a third holder in")
	mCannotReach = msg.Define("topology.cannot-reach", msg.K(msg.Nodes, msg.Count, msg.Count),
		"A cannot reach {0}: it can lock K on a bare majority ({1} of {2} masters) at most")
	mRefusedAsHeld = msg.Define("topology.refused-as-held", nil,
		"it was refused as if held")
	mItFailed       = msg.Define("topology.it-failed", msg.K(msg.Text), "it failed: {0}")
	MsgInterleaving = msg.Define("race.breaks", msg.K(msg.Sub, msg.Count, msg.Sub),
		"{0} (interleaving {1} of their commands): {2}")
	mRaceHolds = msg.Define("race.holds", msg.K(msg.Count, msg.Sub),
		"in each of the {0} interleavings of two clients' attempts {1}, at most one won")
)

// Boundary names boundary k of an operation of n commands: before its
// first command when k is 0, else after its command k.
func Boundary(k, n int, op string) msg.Msg {
	if k == 0 {
		return mBoundaryFirst.New(op)
	}
	return mBoundaryAfter.New(k, n, op)
}

// What a client does, in its events.
var (
	MsgCrashHolding = msg.Define("client.crash-holding", nil, "crashes holding the lock")
)

// What the late-operation properties (safe-release, safe-refresh,
// renewed-overrun) share.
var (
	MsgNobodyWhilePaused = msg.Define("late.n/a", msg.K(msg.Sub),
		"nobody else acquired the lock while A was paused: {0}")
)

// What the topology properties share.
var (
	mObtainable = msg.Define("topology.obtainable", nil,
		"A releases; C must acquire within A's TTL and the slack")
	mUnobtainable = msg.Define("topology.unobtainable", msg.K(msg.Sub, msg.Duration),
		"after {0}, B was refused while A held the lock, but once A had released it nobody could acquire it for {1}: the lock stayed unobtainable")
)

// What the clock properties (clock-skew, holder-clock) share.
var mNeverReadsClock = msg.Define("clock.n/a", nil,
	"the strategy never reads the client's clock")

// Why a run reached no verdict (run.fail), or was disturbed and runs
// again (run.disturbed, the monitor).
var (
	mFailSuiteConn = msg.Define("fail.suite-connection", msg.K(msg.Text),
		"the suite could not get a connection of its own: {0}")
	mFailSuiteCommand = msg.Define("fail.suite-command", msg.K(msg.Text),
		"a command of the suite's own failed: {0}")
	MsgFailNotFree = msg.Define("fail.not-free", msg.K(msg.Client),
		"{0} could not acquire a free lock")
	mFailOwnClock = msg.Define("fail.own-clock", msg.K(msg.Text),
		"not checked: the lock sends absolute times taken from a clock of its own, which the suite cannot skew ({0}); its strategy can say so with strategy.OwnClock, and a skewed client's proxy then moves those times")
	mFailStuck = msg.Define("fail.scheduler-stuck", msg.K(msg.Duration),
		"the scheduler saw no client move for {0}: a strategy hung between commands")
	mFailTurn = msg.Define("fail.scheduler-turn", msg.K(msg.Client, msg.Duration),
		"{0} did not take its turn in the schedule for {1}")
	mFailTooMany = msg.Define("fail.too-many-interleavings", msg.K(msg.Count),
		"more than {0} interleavings: the attempts are too long to explore")
	// A topology's servers.
	mFailStartMasters = msg.Define("fail.start-masters", msg.K(msg.Text),
		"starting the masters failed: {0}")
	// Disturbances: the machine or the server, not the lock.
	mSlowAttempt = msg.Define("disturbed.slow-attempt", msg.K(msg.Client, msg.Duration, msg.Duration),
		"{0} could not acquire a free lock in an attempt of {1}, more than the {2} a scenario's timing allows")
	mSlowWait = msg.Define("disturbed.slow-wait", msg.K(msg.Client, msg.Duration, msg.Duration, msg.Duration),
		"{0} could not acquire a lock free {1} into its wait: none of its attempts from then on took less than {2} (the slowest {3}): the machine was too slow for the scenario's timing")
	mSlowLease = msg.Define("disturbed.lease-order", msg.K(msg.Client, msg.Client),
		"{0}'s lease had ended when {1} acquired, but the goroutine that heeds it had not run yet: the machine was too slow to order them")
)
