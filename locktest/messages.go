package locktest

import "github.com/locklab/locklab/internal/msg"

// Message is what the suite says: an identifier and typed arguments,
// rendered in a language from its catalog of templates.
type Message = msg.Msg

// The harness's messages, which several properties share; each property
// declares its own in its file.
var (
	mBoundaryFirst = msg.Define("boundary.first", msg.K(msg.Op),
		"before the first command of its {0}", "{0}的第一条命令之前")
	mBoundaryAfter = msg.Define("boundary.after", msg.K(msg.Count, msg.Count, msg.Op),
		"after command {0} of {1} of its {2}", "{2}的第 {0} 条命令（共 {1} 条）之后")
	mBoundaryNotReached = msg.Define("boundary.not-reached", msg.K(msg.Client, msg.Op),
		"{0}'s {1} ended before reaching that boundary", "{0} 的{1}在到达这个边界之前就结束了")

	mStaleHolds = msg.Define("stale.holds", msg.K(msg.Value, msg.Duration),
		"K holds {0}, left by a holder that crashed: its TTL ({1}) has passed", "K 的值是 {0}，是一个崩溃的持有者留下的：它的 TTL（{1}）已经过了")
	mStaleGone = msg.Define("stale.gone", msg.K(msg.Duration),
		"K is gone: its holder crashed and the key expired after {0}", "K 已经不在了：持有者崩溃后，键在 {0} 后过期了")
	mLockKeys = msg.Define("suite.lock-keys", msg.K(msg.Text),
		"the lock keeps its state under {0}, not at K: where the suite reads K (its remaining time, whether it is gone), it reads those",
		"这把锁把状态放在 {0} 下，而不是 K 上：测试套件读取 K 的地方（剩余时间、是否已经不在），读的都是这些键")
	mShiftedTimes = msg.Define("suite.shifted-times", msg.K(msg.Client, msg.Duration),
		"{0}'s clock is skewed by {1}, but its lock reads a clock of its own that the suite cannot skew: {0}'s proxy moves every absolute time in its commands by {1} on the way to Redis, as that clock would have",
		"{0} 的时钟偏移了 {1}，但它的锁读的是自己的时钟，测试套件无法让它偏移：{0} 的代理把它命令里的每个绝对时间在发往 Redis 的途中都挪动 {1}，就像那个时钟会做的那样")
	mReadPTTL = msg.Define("suite.reads-pttl", msg.K(msg.Value),
		"the suite reads PTTL K: {0}", "测试套件读取 PTTL K：{0}")
	mStopTopology = msg.Define("suite.stop-topology", msg.K(msg.Text),
		"stopping the topology: {0}", "停止拓扑的服务器时出错：{0}")
	mDisturbed = msg.Define("suite.disturbed", msg.K(msg.Count, msg.Text),
		"run {0} of the check was disturbed: {1}", "第 {0} 次运行受到了干扰：{1}")
	mCleanupPanicked = msg.Define("client.cleanup-panicked", msg.K(msg.Client, msg.Text),
		"{0}: a Cleanup function panicked: {1}", "{0}：一个 Cleanup 函数 panic 了：{1}")

	mUnexpiredNoExpiry = msg.Define("unexpired.no-expiry", nil,
		"K has no expiry, so the lock never expires", "K 没有过期时间，所以这把锁永远不会过期")
	mUnexpiredStill = msg.Define("unexpired.still-there", msg.K(msg.Duration, msg.Duration),
		"K was still there {0} after a TTL of {1} was asked: its expiry was set longer than asked, or pushed back since (by the holder's renewals, or by other clients' commands)",
		"请求 {1} 的 TTL 之后过了 {0}，K 还在：过期时间设得比请求的长，或者后来被推迟了（被持有者的续期，或者被其他客户端的命令）")
	mUnexpiredElsewhere = msg.Define("unexpired.elsewhere", nil,
		"the lock is not at K, and K did not expire", "锁不在 K 上，K 也没有过期")
	mLifeNoExpiry = msg.Define("life-left.no-expiry", nil,
		"K has no expiry: the lock never expires", "K 没有过期时间：这把锁永远不会过期")
	mLifeLeft = msg.Define("life-left.left", msg.K(msg.Duration, msg.Duration, msg.Duration),
		"K still had {0} to live {1} after a TTL of {2} was asked: its expiry was set longer than asked or pushed back since, by the commands the timeline shows",
		"请求 {2} 的 TTL 之后过了 {1}，K 还要 {0} 才过期：过期时间设得比请求的长，或者后来被推迟了，是哪些命令推迟的，看时间线")
	mLifeElsewhere = msg.Define("life-left.elsewhere", nil,
		"the lock is not at K, and did not expire", "锁不在 K 上，也没有过期")

	mLatePaused = msg.Define("late.paused", msg.K(msg.Duration, msg.Duration),
		"A stays paused past its TTL ({0}); B waits up to {1}", "A 一直暂停到 TTL（{0}）过去之后；B 最多等待 {1}")
	mLateResumes = msg.Define("late.resumes", nil, "A resumes", "A 恢复运行")
	mLateSteps   = msg.Define("late.resumes-stepwise", nil,
		"A resumes, one command at a time", "A 恢复运行，一次一条命令")
	mLateStalled = msg.Define("late.stalled", msg.K(msg.Duration, msg.Duration),
		"A is stalled past its TTL ({0}): its commands are held back, its timers run on; B waits up to {1}",
		"A 卡住直到 TTL（{0}）过去：它的命令被扣住不发，它的定时器照常走；B 最多等待 {1}")
	mLateWorks = msg.Define("late.works", msg.K(msg.Duration, msg.Duration),
		"A keeps working past its TTL ({0}); B waits up to {1}", "A 干活超过了 TTL（{0}）；B 最多等待 {1}")
	mLeaseLost = msg.Define("late.lease-lost", msg.K(msg.Client, msg.Text),
		"{0} stops working: its lease is lost ({1})", "{0} 停止工作：它的租约已经丢了（{1}）")
	mFreedDeleted = msg.Define("freed.deleted", msg.K(msg.Sub),
		"{0} deleted K, B's lock: C acquired it while B still held it", "{0}删除了 K，也就是 B 的锁：B 还持有锁，C 就拿到了")
	mFreedStillThere = msg.Define("freed.still-there", nil,
		"C acquired the lock while B still held it, although K was still there: the acquire let a second holder in",
		"B 还持有锁，C 就拿到了，尽管 K 还在：加锁放进了第二个持有者")
	mFreedWhileHeld = msg.Define("freed.while-held", nil,
		"C acquired the lock while B still held it", "B 还持有锁，C 就拿到了")
	mItsRelease     = msg.Define("who.its-release", nil, "its release", "它的释放")
	mThatRelease    = msg.Define("who.that-release", nil, "that release", "这次释放")
	mLateRefreshWho = msg.Define("who.late-refresh", nil, "A's late Refresh", "A 迟到的 Refresh")

	mKeyGone      = msg.Define("key.gone", nil, "K is gone", "K 已经不在了")
	mKeyNoExpiry  = msg.Define("key.no-expiry", nil, "K has no expiry", "K 没有过期时间")
	mKeyExpiresIn = msg.Define("key.expires-in", msg.K(msg.Duration), "K expires in {0}", "K 将在 {0} 后过期")
	mDeleted      = msg.Define("changed.deleted", msg.K(msg.Client),
		"deleted K, {0}'s lock", "删除了 K，也就是 {0} 的锁")
	mOverwrote = msg.Define("changed.overwrote", msg.K(msg.Client),
		"overwrote K, {0}'s lock, with another value", "用另一个值覆盖了 K，也就是 {0} 的锁")
	mExpiryRemoved = msg.Define("changed.expiry-removed", msg.K(msg.Client),
		"removed the expiry of K, {0}'s lock: should {0} die, the lock is never freed", "去掉了 K（{0} 的锁）的过期时间：万一 {0} 死掉，这把锁永远不会放开")
	mExpiryPushed = msg.Define("changed.expiry-pushed", msg.K(msg.Client, msg.Duration, msg.Duration),
		"pushed the expiry of K, {0}'s lock, back from {1} to {2}", "把 K（{0} 的锁）的过期时间从 {1} 推迟到了 {2}")
	mHolderPausedReads = msg.Define("next.holder-paused-reads", msg.K(msg.Client, msg.Sub),
		"{0} is paused; the suite reads K: {1}", "{0} 暂停；测试套件读取 K：{1}")
	mReadsK      = msg.Define("next.reads", msg.K(msg.Sub), "the suite reads K: {0}", "测试套件读取 K：{0}")
	mOpOverReads = msg.Define("next.op-over-reads", msg.K(msg.Op, msg.Sub),
		"A's {0} is over; the suite reads K: {1}", "A 的{0}结束了；测试套件读取 K：{1}")
	mIts        = msg.Define("who.its", nil, "its", "它的")
	mPossessive = msg.Define("who.possessive", msg.K(msg.Client), "{0}'s", "{0} 的")
	mOpDid      = msg.Define("next.op-did", msg.K(msg.Sub, msg.Op, msg.Sub), "{0} {1} {2}", "{0}{1}{2}")
	mOpDidAt    = msg.Define("next.op-did-at", msg.K(msg.Sub, msg.Op, msg.Sub, msg.Ordinal),
		"{0} {1} {2} (its {3} command)", "{0}{1}{2}（它的{3}条命令）")
	mOpDidC = msg.Define("next.op-did-c", msg.K(msg.Sub, msg.Op, msg.Sub, msg.Client),
		"{0} {1} {2}: C acquired it while {3} still held it", "{0}{1}{2}：{3} 还持有锁，C 就拿到了")
	mOpDidAtC = msg.Define("next.op-did-at-c", msg.K(msg.Sub, msg.Op, msg.Sub, msg.Ordinal, msg.Client),
		"{0} {1} {2} (its {3} command): C acquired it while {4} still held it", "{0}{1}{2}（它的{3}条命令）：{4} 还持有锁，C 就拿到了")
	mThirdHolder = msg.Define("next.third-holder", msg.K(msg.Client, msg.Sub, msg.Op),
		"C acquired the lock while {0} held it, with A paused {1}: A's late {2} had let a third holder in",
		"{0} 持有锁时，C 拿到了锁，当时 A 在{1}暂停：A 迟到的{2}放进了第三个持有者")

	mCannotReach = msg.Define("topology.cannot-reach", msg.K(msg.Nodes, msg.Count, msg.Count),
		"A cannot reach {0}: it can lock K on a bare majority ({1} of {2} masters) at most",
		"A 连不上 {0}：它至多只能在刚好过半的主节点上锁住 K（{2} 个主节点中的 {1} 个）")
	mRefusedAsHeld = msg.Define("topology.refused-as-held", nil,
		"it was refused as if held", "它被拒绝了，就像锁有人持有一样")
	mItFailed = msg.Define("topology.it-failed", msg.K(msg.Text), "it failed: {0}", "它失败了：{0}")

	mInterleaving = msg.Define("race.breaks", msg.K(msg.Sub, msg.Count, msg.Sub),
		"{0} (interleaving {1} of their commands): {2}", "{0}（两者命令的第 {1} 种交错）：{2}")
	mRaceHolds = msg.Define("race.holds", msg.K(msg.Count, msg.Sub),
		"in each of the {0} interleavings of two clients' attempts {1}, at most one won",
		"两个客户端{1}加锁，{0} 种交错中的每一种都至多一方成功")
	mOverlapText = msg.Define("overlap", msg.K(msg.Client, msg.Clients),
		"{0} entered while {1} {1|was|were} inside", "{0} 进入时 {1} 还在临界区内")
	mBWaitsTTL = msg.Define("wait.ttl", msg.K(msg.Duration, msg.Duration),
		"B waits up to {0} (TTL {1} + slack)", "B 最多等待 {0}（TTL {1} 加上余量）")
)

// boundary names boundary k of an operation of n commands: before its
// first command when k is 0, else after its command k.
func boundary(k, n int, op string) Message {
	if k == 0 {
		return mBoundaryFirst.New(op)
	}
	return mBoundaryAfter.New(k, n, op)
}

// valueArg is a value of the timeline as a message's argument.
func valueArg(a Arg) msg.Arg {
	return msg.Arg{Kind: msg.Value, Value: string(a.Kind), Text: a.Text, Owner: a.Client, Ms: a.Ms}
}

// What a client does, in its events.
var (
	mPaused        = msg.Define("client.paused", msg.K(msg.Sub), "paused {0}", "在{0}暂停")
	mPausedInMulti = msg.Define("client.paused-in-multi", msg.K(msg.Sub),
		"paused {0} (inside MULTI: what it queued runs only at EXEC)", "在{0}暂停（处于 MULTI 之中：已入队的命令要到 EXEC 才执行）")
	mDiesAfter = msg.Define("client.dies-after", msg.K(msg.Count, msg.Text),
		"dies right after its command #{0} ({1}) returns", "在它的第 {0} 条命令（{1}）返回后立刻死掉")
	mCrashHolding       = msg.Define("client.crash-holding", nil, "crashes holding the lock", "持有锁时崩溃")
	mCrashNeverReleases = msg.Define("client.crash-never-releases", nil,
		"crashes while holding the lock; it never releases", "持有锁时崩溃，再也不会释放")
	mCrashInsteadOfRelease = msg.Define("client.crash-instead-of-release", nil,
		"crashes instead of releasing, to see whether the lock expires without it", "没有释放，而是崩溃，看锁没有它时会不会过期")
)

// What the late-operation properties (safe-release, safe-refresh,
// renewed-overrun) share.
var (
	mNobodyWhilePaused = msg.Define("late.n/a", msg.K(msg.Sub),
		"nobody else acquired the lock while A was paused: {0}", "A 暂停期间，没有别人拿到锁：{0}")
	mPausedTTLResumed = msg.Define("late.breaks-resumed", msg.K(msg.Sub, msg.Sub),
		"A was paused {0} until its TTL ran out and B acquired; when A resumed, {1}", "A 在{0}被暂停，直到 TTL 到期、B 拿到锁；A 恢复后，{1}")
)

// What the topology properties share.
var (
	mMinorityUnreachable = msg.Define("topology.n/a", nil,
		"A could not acquire K with a minority of the masters out of reach: see minority-down",
		"少数主节点连不上时，A 拿不到 K：见 minority-down")
	mObtainable = msg.Define("topology.obtainable", nil,
		"A releases; C must acquire within A's TTL and the slack", "A 释放；C 必须在 A 的 TTL 加上余量之内拿到锁")
	mUnobtainable = msg.Define("topology.unobtainable", msg.K(msg.Sub, msg.Duration),
		"after {0}, B was refused while A held the lock, but once A had released it nobody could acquire it for {1}: the lock stayed unobtainable",
		"{0}之后，A 持有锁时 B 被拒绝，但 A 释放之后，{1} 内也没有人能拿到锁：这把锁一直拿不到")
)

// What the clock properties (clock-skew, holder-clock) share.
var mNeverReadsClock = msg.Define("clock.n/a", nil,
	"the strategy never reads the client's clock", "这个策略从来不读客户端的时钟")

// What events say.
var (
	mClock       = msg.Define("event.clock", msg.K(msg.Value), "now = {0}", "时钟读数 = {0}")
	mClockAhead  = msg.Define("event.clock-ahead", msg.K(msg.Value, msg.Duration), "now = {0} (clock {1} ahead)", "时钟读数 = {0}（时钟快了 {1}）")
	mClockBehind = msg.Define("event.clock-behind", msg.K(msg.Value, msg.Duration), "now = {0} (clock {1} behind)", "时钟读数 = {0}（时钟慢了 {1}）")
	mNoReply     = msg.Define("event.no-reply", nil, "no reply: the connection closed first", "没有回复：连接先断了")
	mUnreachable = msg.Define("event.unreachable", nil,
		"unreachable: the network between them is cut", "不可达：两者之间的网络断了")

	// kindMsg is what an event of each kind says when nothing else does.
	kindMsg = map[EventKind]Message{
		EvAcquired:    msg.Define("event.acquired", nil, "lock acquired", "拿到锁").New(),
		EvNotAcquired: msg.Define("event.not-acquired", nil, "not acquired", "没拿到锁").New(),
		EvReleased:    msg.Define("event.released", nil, "released", "已释放").New(),
		EvRefreshed:   msg.Define("event.refreshed", nil, "refreshed", "已续期").New(),
		EvEnter:       msg.Define("event.enter", nil, "enters the critical section", "进入临界区").New(),
		EvLeave:       msg.Define("event.leave", nil, "leaves the critical section", "离开临界区").New(),
	}
)
