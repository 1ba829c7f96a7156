// Package zh puts the suite's sentences into Chinese: the reasons of
// package locktest's verdicts, the notes of its timelines and the other
// texts of its events, as the suite wrote them in English.
//
// The suite builds its sentences with fmt.Sprintf from fixed formats and
// fragments (who freed the lock, where an operation was paused, what the
// key showed), so Translate reads a finished sentence back with an ordered
// table of rules: the first rule whose regular expression matches the
// whole sentence rewrites it with its Chinese template. A template copies
// some captured parts as they are (client names, durations, counts, error
// texts, values) and translates the others with the same table, which is
// how fragments nested in a sentence are found. Identifiers, commands,
// keys, property names and the verdicts holds, breaks and n/a are not
// translated.
package zh

import (
	"fmt"
	"github.com/locklab/locklab/internal/msg"
	"maps"
	"regexp"
	"strconv"
)

// rule rewrites a sentence that its expression matches, whole.
type rule struct {
	re *regexp.Regexp
	// tmpl is the Chinese: {n} copies capture n as it is, {n*} is the
	// translation of capture n.
	tmpl string
}

// r builds a rule; the expression is anchored at both ends.
func r(expr, tmpl string) rule {
	return rule{re: regexp.MustCompile(`^(?:` + expr + `)$`), tmpl: tmpl}
}

// Some fragments, as expressions, that several rules share.
const (
	dur    = `(\d+(?:\.\d+)?(?:ns|µs|ms|s|m|h)(?:\d+(?:\.\d+)?(?:ms|s|m))*)` // a time.Duration as %v prints it
	num    = `(-?\d+)`
	client = `([A-Z])`
	node   = `(the server|[a-z]+-\d+)`       // a master as the topology properties name it
	nodes  = `([a-z]+-\d+(?:, [a-z]+-\d+)*)` // masters by name, as a list
)

// rules is the table, tried in order: a longer or more particular sentence
// comes before a shorter one that would also match it.
var rules = []rule{
	// The scenario's notes.
	r(`\((\d+) earlier events left out\)`, "（前面省略了 {1} 个事件）"),
	r(`stopping the topology: (.+)`, "停止拓扑的服务器时出错：{1}"),
	r(`run (\d+) of the check was disturbed: (.+)`, "第 {1} 次运行受到了服务器的干扰：{2}"),
	r(`the suite reads PTTL K: `+num, "测试套件读取 PTTL K：{1}"),
	r(`B waits up to `+dur+` \(TTL `+dur+` \+ slack\)`, "B 最多等待 {1}（TTL {2} 加上余量）"),
	r(`B waits up to `+dur+` \(A's TTL `+dur+` \+ slack\)`, "B 最多等待 {1}（A 的 TTL {2} 加上余量）"),
	r(`A stays paused past its TTL \(`+dur+`\); B waits up to `+dur, "A 一直暂停到 TTL（{1}）过去之后；B 最多等待 {2}"),
	r(`A is stalled past its TTL \(`+dur+`\): its commands are held back, its timers run on; B waits up to `+dur,
		"A 卡住直到 TTL（{1}）过去：它的命令被扣住不发，它的定时器照常走；B 最多等待 {2}"),
	r(`A keeps working past its TTL \(`+dur+`\); B waits up to `+dur, "A 干活超过了 TTL（{1}）；B 最多等待 {2}"),
	r(`A is paused for `+dur+`, a third of its TTL \(`+dur+`\)`, "A 暂停 {1}，是 TTL（{2}）的三分之一"),
	r(`A is paused for `+dur+`, three times its TTL, while B waits`, "A 暂停 {1}，是 TTL 的三倍，B 在此期间等待"),
	r(`A resumes`, "A 恢复运行"),
	r(`no reply: the connection closed first`, "没有回复：连接先断了"),
	r(`unreachable: the network between them is cut`, "不可达：两者之间的网络断了"),
	r(client+`: a Cleanup function panicked: (.+)`, "{1}：一个 Cleanup 函数 panic 了：{2}"),
	r(`A's next command fails without being sent, as when its connection drops`, "A 的下一条命令还没发出就失败，就像连接断了一样"),
	r(`K holds (.+), left by a holder that crashed: its TTL \(`+dur+`\) has passed`, "K 的值是 {1}，是一个崩溃的持有者留下的：它的 TTL（{2}）已经过了"),
	r(`K is gone: its holder crashed and the key expired after `+dur, "K 已经不在了：持有者崩溃后，键在 {1} 后过期了"),
	r(`resource accepts `+client+`'s write: its lock has no fencing token to check`, "资源接受了 {1} 的写入：它的锁没有 fencing token 可供检查"),
	r(`resource refuses `+client+`'s write: fencing token `+num+` < `+num, "资源拒绝了 {1} 的写入：fencing token {2} < {3}"),
	r(`resource accepts `+client+`'s write with fencing token `+num, "资源接受了 {1} 的写入，fencing token 为 {2}"),
	r(client+` stops working: its lease is lost \((.+)\)`, "{1} 停止工作：它的租约已经丢了（{2}）"),
	r(`(A holds the lock for a TTL of|A refreshed its lock to a TTL of) `+dur+` \(asked at t=`+dur+`\); B polls with the same TTL until t=`+dur+`, then C alone with `+dur+`, until `+dur+` before the TTL ends`,
		"{1*} {2}（在 t={3} 时请求）；B 用同样的 TTL 轮询到 t={4}，之后 C 单独用 {5} 轮询，直到 TTL 结束前 {6}"),
	r(`A holds the lock for a TTL of`, "A 持有锁，TTL 为"),
	r(`A refreshed its lock to a TTL of`, "A 把锁续期到 TTL"),
	r(client+`'s attempt returned only `+dur+` after A's lease began, past its TTL: this run proves nothing`,
		"{1} 的尝试在 A 的租约开始 {2} 后才返回，已经过了 TTL：这一轮什么也证明不了"),
	r(`([A-Z])'s (release|refresh|second release|acquire) ended before reaching that boundary`, "{1} 的{2*}在到达这个边界之前就结束了"),
	r(`A resumes, one command at a time`, "A 恢复运行，一次一条命令"),
	r(`B is paused; the suite reads K: (.+)`, "B 暂停；测试套件读取 K：{1*}"),
	r(`A's (release|refresh|second release) is over; the suite reads K: (.+)`, "A 的{1*}结束了；测试套件读取 K：{2*}"),
	r(`the suite reads K: (.+)`, "测试套件读取 K：{1*}"),
	r(`K is gone`, "K 已经不在了"),
	r(`K has no expiry`, "K 没有过期时间"),
	r(`K expires in `+dur, "K 将在 {1} 后过期"),

	// The events' own texts.
	r(`now = (t0[+-]\d+ms)`, "时钟读数 = {1}"),
	r(`now = (t0[+-]\d+ms) \(clock \+?`+dur+` ahead\)`, "时钟读数 = {1}（时钟快了 {2}）"),
	r(`now = (t0[+-]\d+ms) \(clock `+dur+` behind\)`, "时钟读数 = {1}（时钟慢了 {2}）"),
	r(`lock acquired`, "拿到锁"),
	r(`not acquired`, "没拿到锁"),
	r(`released`, "已释放"),
	r(`refreshed`, "已续期"),
	r(`enters the critical section`, "进入临界区"),
	r(`leaves the critical section`, "离开临界区"),
	r(`crashes holding the lock`, "持有锁时崩溃"),
	r(`crashes while holding the lock; it never releases`, "持有锁时崩溃，再也不会释放"),
	r(`crashes instead of releasing, to see whether the lock expires without it`, "没有释放，而是崩溃，看锁没有它时会不会过期"),
	r(`dies right after its command #(\d+) \((\S+)\) returns`, "在它的第 {1} 条命令（{2}）返回后立刻死掉"),
	r(`paused (.+) \(inside MULTI: what it queued runs only at EXEC\)`, "在{1*}暂停（处于 MULTI 之中：已入队的命令要到 EXEC 才执行）"),
	r(`paused (.+)`, "在{1*}暂停"),
	r(client+` entered while ([A-Z](?:, [A-Z])*) (?:was|were) inside`, "{1} 进入时 {2*} 还在临界区内"),
	r(`([A-Z]), ([A-Z](?:, [A-Z])*)`, "{1}、{2*}"),
	r(client, "{1}"),

	// Where an operation was paused or died.
	r(`before the first command of its (release|refresh|second release|acquire)`, "{1*}的第一条命令之前"),
	r(`after command (\d+) of (\d+) of its (release|refresh|second release|acquire)`, "{3*}的第 {1} 条命令（共 {2} 条）之后"),
	r(`release`, "释放"),
	r(`refresh`, "续期"),
	r(`second release`, "第二次释放"),
	r(`acquire`, "加锁"),

	// exclusion and stale-takeover-race.
	r(`(.+) \(interleaving (\d+) of their commands\): (.+)`, "{1*}（两者命令的第 {2} 种交错）：{3*}"),
	r(`both clients acquired the same free lock`, "两个客户端都拿到了同一把空闲的锁"),
	r(`both waiters found the same stale lock and both took it over`, "两个等待者看到了同一把过期的旧锁，并且都把它抢了过来"),
	r(`A released its lock and at once acquired it again while B made one attempt, and both got it`,
		"A 释放锁后马上又去加锁，同时 B 加锁一次，结果两者都拿到了锁"),
	r(`two clients in the critical section without any fault: (.+)`, "没有任何故障，却有两个客户端同时在临界区内：{1*}"),
	r(`the clients could not take turns: after a release, nobody got the lock for `+dur+`, and `+client+` gave up waiting \(release-frees shows why\)`,
		"客户端无法轮流持锁：锁被释放之后，{1} 内谁也没拿到锁，{2} 不再等待（原因见 release-frees）"),
	r(`no faults, the baseline the other properties build on: every interleaving of two attempts on a free key let one client in; in each of the (\d+) interleavings of a holder's release and new attempt with another client's attempt, at most one got the lock; and (\d+) clients, (\d+) critical sections each, were never two inside`,
		"没有故障，这是其他性质的基线：空闲键上两次加锁的每一种交错都只放进了一个客户端；持有者释放后再次加锁、另一个客户端同时加锁，这两者的 {1} 种交错中，每一种至多一方拿到锁；{2} 个客户端各进入临界区 {3} 次，从来没有两个同时在里面"),
	r(`in each of the (\d+) interleavings of two clients' attempts (on a free key|on a stale lock), at most one won`,
		"两个客户端{2*}加锁，{1} 种交错中的每一种都至多一方成功"),
	r(`on a free key`, "在空闲的键上"),
	r(`on a stale lock`, "在过期的旧锁上"),
	r(`Redis itself deleted the crashed holder's key when its TTL passed: there is no stale lock to take over, only a free key \(exclusion races two acquires on one\)`,
		"TTL 一过，Redis 自己就删掉了崩溃持有者的键：没有可以抢占的旧锁，只有一个空闲的键（空闲键上两次加锁的竞争由 exclusion 检查）"),
	r(`no stale lock to take over: `+dur+` after its holder crashed, nobody could take it over: (.+)`,
		"没有可以抢占的旧锁：持有者崩溃 {1} 之后，仍然没人能抢过来：{2*}"),

	// crash-recovery, crash-mid-acquire, crash-mid-release.
	r(`(.+), and B still could not acquire it `+dur+` later: (.+)`, "{1*}，{2} 之后 B 仍然拿不到锁：{3*}"),
	r(`A crashed holding the lock`, "A 持有锁时崩溃"),
	r(`A refreshed its lock to `+dur+` and crashed`, "A 把锁续期到 {1} 后崩溃"),
	r(`K has no expiry: the lock never expires`, "K 没有过期时间：这把锁永远不会过期"),
	r(`K still had `+dur+` to live `+dur+` after a TTL of `+dur+` was asked: its expiry was set longer than asked or pushed back since, by the commands the timeline shows`,
		"请求 {3} 的 TTL 之后过了 {2}，K 还要 {1} 才过期：过期时间设得比请求的长，或者后来被推迟了，是哪些命令推迟的，看时间线"),
	r(`the lock is not at K, and did not expire`, "锁不在 K 上，也没有过期"),
	r(`B acquired the lock after A crashed holding it, and again after A refreshed it and crashed`,
		"A 持有锁时崩溃后，B 拿到了锁；A 续期后再崩溃，B 也拿到了锁"),
	r(`B acquired the lock after A crashed holding it`, "A 持有锁时崩溃后，B 拿到了锁"),
	r(`A died after command (\d+) of (\d+) of its acquire on a free lock, and B still could not acquire it `+dur+` later`,
		"A 在空闲的锁上加锁，死在第 {1} 条命令（共 {2} 条）之后，{3} 之后 B 仍然拿不到锁"),
	r(`A died after command (\d+) of (\d+) of its acquire on a stale lock, and B still could not acquire it `+dur+` later`,
		"A 在过期的旧锁上加锁，死在第 {1} 条命令（共 {2} 条）之后，{3} 之后 B 仍然拿不到锁"),
	r(`a successful acquire sends a single command, on a free key and on a stale lock: there is no boundary between commands to die at`,
		"不管是在空闲的键上还是在过期的旧锁上，成功的加锁都只发一条命令：命令之间没有可以死掉的地方"),
	r(`wherever A died inside its acquire, B got the lock within the TTL`, "无论 A 死在加锁过程中的哪一步，B 都在 TTL 之内拿到了锁"),
	r(`a release sends (\d+) commands?: there is no boundary between commands to die at`, "释放只发 {1} 条命令：命令之间没有可以死掉的地方"),
	r(`A died (.+), and B still could not acquire the lock `+dur+` later: the half-done release left a lock that does not expire`,
		"A 死在{1*}，{2} 之后 B 仍然拿不到锁：做了一半的释放留下了一把不会过期的锁"),
	r(`wherever A died inside its (\d+)-command release, the lock freed within its TTL`,
		"A 的释放有 {1} 条命令，无论 A 死在哪一步，锁都在 TTL 之内放开了"),

	// clock-skew.
	r(`B took the lock A holds with `+dur+` of its TTL left, without ever reading its clock: the skew played no part`,
		"A 的 TTL 还剩 {1}，B 就拿走了 A 持有的锁，而且从来没读过自己的时钟：与时钟偏差无关"),
	r(`B, its clock `+dur+` ahead, took the lock A holds with `+dur+` of its TTL left`,
		"B 的时钟快了 {1}，在 A 的 TTL 还剩 {2} 时拿走了 A 持有的锁"),
	r(`the strategy never reads the client's clock`, "这个策略从来不读客户端的时钟"),
	r(`B's clock ran `+dur+` ahead and it still could not take A's lock`, "B 的时钟快了 {1}，仍然拿不走 A 的锁"),

	// holder-overrun, fenced-overrun, renewed-overrun.
	r(`A's TTL ran out while it worked: B, polling every `+dur+`, could not acquire the lock, yet trying every `+dur+` with A's TTL it did: B's own failed attempts had kept A's key alive: (.+)`,
		"A 还在干活，TTL 就到期了：B 每 {1} 试一次时拿不到锁，改用 A 的 TTL 每 {2} 试一次却拿到了：是 B 自己失败的加锁一直在给 A 的键续期：{3*}"),
	r(`B tries again with A's TTL \(`+dur+`\), every `+dur+`, for up to `+dur, "B 改用 A 的 TTL（{1}）再试，每 {2} 一次，最多试 {3}"),
	r(`A's TTL ran out while it worked and B acquired the lock: (.+)`, "A 还在干活，TTL 就到期了，B 拿到了锁：{1*}"),
	r(`nobody else acquired the lock while A overran, nor after A died: (.+)`, "A 超时干活期间没人拿到锁，A 死后也没有：{1*}"),
	r(`B did not acquire the lock while A overran its TTL`, "A 干活超过 TTL 期间，B 没有拿到锁"),
	r(`K has no expiry, so the lock never expires`, "K 没有过期时间，所以这把锁永远不会过期"),
	r(`K was still there `+dur+` after a TTL of `+dur+` was asked: its expiry was set longer than asked, or pushed back since \(by the holder's renewals, or by other clients' commands\)`,
		"请求 {2} 的 TTL 之后过了 {1}，K 还在：过期时间设得比请求的长，或者后来被推迟了（被持有者的续期，或者被其他客户端的命令）"),
	r(`the lock is not at K, and K did not expire`, "锁不在 K 上，K 也没有过期"),
	r(`nobody else acquired the lock while A was paused past its TTL: (.+)`, "A 暂停超过 TTL 期间，没有别人拿到锁：{1*}"),
	r(`A's lease had passed to B, yet the resource accepted A's late write after B's`, "A 的租约已经归了 B，资源却在接受 B 的写入之后，又接受了 A 迟到的写入"),
	r(`the resource refused A's late write: its fencing token was older than B's`, "资源拒绝了 A 迟到的写入：它的 fencing token 比 B 的旧"),
	r(`the resource refused A's late write: its fencing token was older than B's, whether A was paused after its acquire, inside it, or ran with its clock `+dur+` ahead or behind`,
		"资源拒绝了 A 迟到的写入：它的 fencing token 比 B 的旧，无论 A 是在加锁之后暂停、在加锁中间暂停，还是时钟快了或慢了 {1}"),
	r(`A was paused (.+) until its TTL ran out, and B acquired and wrote; A then finished its acquire, and the resource accepted A's late write after B's: A's fencing token was drawn after B's, outside the step that took the lock`,
		"A 在{1*}被暂停，直到 TTL 到期，B 拿到锁并写入；A 随后完成了加锁，资源在 B 之后接受了 A 迟到的写入：A 的 fencing token 是在 B 之后、在拿锁的那一步之外取的"),
	r(`with A's clock (-?\S+) off B's, A's lease passed to B, yet the resource accepted A's late write after B's: A's fencing token \((\d+)\), drawn first, was larger than B's \((\d+)\), as a token drawn from a clock is`,
		"A 的时钟与 B 相差 {1}，A 的锁已经转给了 B，资源却在 B 之后接受了 A 迟到的写入：A 的 fencing token（{2}）先取，却比 B 的（{3}）大，从时钟取的令牌就是这样"),
	r(`A lost its lease over a pause of a third of its TTL: (.+)`, "A 只暂停了 TTL 的三分之一就丢了租约：{1}"),
	r(`B acquired the lock right after A's pause of a third of its TTL`, "A 暂停了 TTL 的三分之一，B 随后就拿到了锁"),
	r(`A was paused past its TTL and did not learn it had lost the lock before B began: (.+)`, "A 暂停超过了 TTL，在 B 开始之前并不知道自己已经丢了锁：{1*}"),
	r(`a short pause kept A's lock; over a long one, A's lease was cancelled before B entered`, "短暂停时 A 保住了锁；长暂停时，A 的租约在 B 进入之前就被取消了"),

	// release-frees, safe-release, double-release, safe-refresh.
	r(`A's release of the lock it held failed \((.+)\), and B's attempt right after found it still taken: the lock goes only when its TTL \(`+dur+`\) runs out`,
		"A 释放自己持有的锁失败了（{1}），B 紧接着加锁，发现锁仍被占着：要等 TTL（{2}）到期，锁才会放开"),
	r(`A released its lock, and B's attempt right after found it still taken: the release does not free the lock, which goes only when its TTL \(`+dur+`\) runs out`,
		"A 释放了锁，B 紧接着加锁，却发现锁仍被占着：释放并没有放开锁，要等 TTL（{1}）到期，锁才会放开"),
	r(`after A released, B acquired at once; a release whose command failed said so \((.+)\)`, "A 释放后，B 马上拿到了锁；命令失败的那次释放也如实报了错（{1}）"),
	r(`A's release reported success although its command failed and never reached Redis: B's attempt right after found the lock still taken`,
		"A 的释放命令失败了，根本没到 Redis，释放却报告成功：B 紧接着加锁，发现锁仍被占着"),
	r(`after A released, B acquired at once, even when A's first release command failed`, "A 释放后，B 马上拿到了锁，A 的第一条释放命令失败时也是如此"),
	r(`nobody else acquired the lock while A was paused: (.+)`, "A 暂停期间，没有别人拿到锁：{1*}"),
	r(`A was paused (.+) until its TTL ran out and B acquired; when A resumed, (.+)`, "A 在{1*}被暂停，直到 TTL 到期、B 拿到锁；A 恢复后，{2*}"),
	r(`its Refresh reported success: A would go on working while B holds the lock`, "它的 Refresh 报告成功：B 持有锁时，A 还会接着干活"),
	r(`A was paused (.+) until B acquired; A's late Refresh \(for `+dur+`\) failed, but B's lock now expires in `+dur+`, past the `+dur+` B asked for`,
		"A 在{1*}被暂停，直到 B 拿到锁；A 迟到的 Refresh（续期 {2}）失败了，但 B 的锁现在要 {3} 后才过期，超过了 B 请求的 {4}"),
	r(`A was paused (.+) until B acquired; then (.+)`, "A 在{1*}被暂停，直到 B 拿到锁；然后，{2*}"),
	r(`A was paused (.+) until B acquired; when A resumed, (.+)`, "A 在{1*}被暂停，直到 B 拿到锁；A 恢复后，{2*}"),
	r(`after A's release B acquired; then (.+)`, "A 释放之后 B 拿到了锁；然后，{1*}"),
	r(`its (release|refresh|second release) (.+) \(its (\w+) command\): C acquired it while B still held it`, "它的{1*}{2*}（它的{3*}条命令）：B 还持有锁，C 就拿到了"),
	r(`its (release|refresh|second release) (.+) \(its (\w+) command\)`, "它的{1*}{2*}（它的{3*}条命令）"),
	r(`its (release|refresh|second release) (deleted K, B's lock|overwrote K, B's lock, with another value|removed the expiry of K, B's lock: should B die, the lock is never freed|pushed the expiry of K, B's lock, back from \S+ to \S+)`, "它的{1*}{2*}"),
	r(`deleted K, B's lock`, "删除了 K，也就是 B 的锁"),
	r(`overwrote K, B's lock, with another value`, "用另一个值覆盖了 K，也就是 B 的锁"),
	r(`removed the expiry of K, B's lock: should B die, the lock is never freed`, "去掉了 K（B 的锁）的过期时间：万一 B 死掉，这把锁永远不会放开"),
	r(`pushed the expiry of K, B's lock, back from `+dur+` to `+dur, "把 K（B 的锁）的过期时间从 {1} 推迟到了 {2}"),
	r(`first`, "第一"),
	r(`second`, "第二"),
	r(`third`, "第三"),
	r(`fourth`, "第四"),
	r(`fifth`, "第五"),
	r(`C acquired the lock while B held it, with A paused (.+): A's late (release|refresh|second release) had let a third holder in`,
		"B 持有锁时，C 拿到了锁，当时 A 在{1*}暂停：A 迟到的{2*}放进了第三个持有者"),
	r(`(its release|its second release|that release|A's late Refresh) deleted K, B's lock: C acquired it while B still held it`, "{1*}删除了 K，也就是 B 的锁：B 还持有锁，C 就拿到了"),
	r(`its release`, "它的释放"),
	r(`its second release`, "它的第二次释放"),
	r(`that release`, "这次释放"),
	r(`A's late Refresh`, "A 迟到的 Refresh"),
	r(`C acquired the lock while B still held it, although K was still there: the acquire let a second holder in`,
		"B 还持有锁，C 就拿到了，尽管 K 还在：加锁放进了第二个持有者"),
	r(`C acquired the lock while B still held it`, "B 还持有锁，C 就拿到了"),
	r(`A's late release, paused before its one command until B had acquired, left B's lock in place`,
		"A 迟到的释放在它唯一的命令之前暂停，直到 B 拿到锁，之后没有动 B 的锁"),
	r(`A's late release, paused at each of the (\d+) boundaries of its (\d+)-command release in turn, left B's lock in place`,
		"A 迟到的释放有 {2} 条命令，依次在 {1} 个边界上暂停，每次都没有动 B 的锁"),
	r(`A's release did not free the lock, so nobody can acquire it between A's two releases \(release-frees breaks\)`,
		"A 的释放没有放开锁，所以 A 的两次释放之间没人能拿到锁（release-frees breaks）"),
	r(`after A's second release, (.+)`, "A 第二次释放之后，{1*}"),
	r(`A's second release left B's lock in place`, "A 的第二次释放没有动 B 的锁"),
	r(`A's second release left B's lock in place, whether B was another client or another goroutine of A's`, "A 的第二次释放没有动 B 的锁，无论 B 是另一个客户端，还是 A 自己的另一个 goroutine"),
	r(`A1 and A2 are goroutines of client A, sharing its strategy instance; A1 acquires`, "A1 和 A2 是客户端 A 的两个 goroutine，共用它的方案实例；A1 加锁"),
	r(`A1 releases`, "A1 释放"),
	r(`A2 acquires`, "A2 加锁"),
	r(`A1 releases again`, "A1 再次释放"),
	r(`A1 and A2, two goroutines of client A, share its strategy instance: after A1's release A2 acquired; then A1's second release deleted K, A2's lock: C acquired it while A2 still held it`,
		"A1 和 A2 是客户端 A 的两个 goroutine，共用它的方案实例：A1 释放后 A2 拿到了锁；然后 A1 的第二次释放删除了 K，也就是 A2 的锁：A2 还持有锁，C 就拿到了"),
	r(`A1 and A2, two goroutines of client A, share its strategy instance: after A1's release A2 acquired; then A1's (.+)`,
		"A1 和 A2 是客户端 A 的两个 goroutine，共用它的方案实例：A1 释放后 A2 拿到了锁；然后 A1 的{1*}"),
	r(`A1 and A2, two goroutines of client A, share its strategy instance: after A1's release A2 acquired; after A1's second release, C acquired the lock while A2 still held it`,
		"A1 和 A2 是客户端 A 的两个 goroutine，共用它的方案实例：A1 释放后 A2 拿到了锁；A1 第二次释放之后，A2 还持有锁，C 就拿到了"),
	r(`second release (deleted K, A2's lock|overwrote K, A2's lock, with another value|removed the expiry of K, A2's lock: should A2 die, the lock is never freed)`, "第二次释放{1*}"),
	r(`overwrote K, A2's lock, with another value`, "用另一个值覆盖了 K，也就是 A2 的锁"),
	r(`removed the expiry of K, A2's lock: should A2 die, the lock is never freed`, "去掉了 K（A2 的锁）的过期时间：万一 A2 死掉，这把锁永远不会放开"),
	r(`A's clock ran `+dur+` ahead when it acquired and crashed, and B still could not acquire the lock `+dur+` later: A's clock set the lock's expiry, which outlived the TTL of `+dur+` by the skew`,
		"A 加锁并崩溃时，它的时钟快了 {1}，{2} 之后 B 仍然拿不到锁：锁的过期时间是 A 的时钟定的，比 TTL {3} 多活了这段偏差"),
	r(`A's clock ran `+dur+` behind when it acquired for a TTL of `+dur+`, and B acquired the lock before that TTL had passed, while A was alive and not paused: A's clock set the lock's expiry, which came early by the skew`,
		"A 以 TTL {2} 加锁时，它的时钟慢了 {1}，TTL 还没到 B 就拿到了锁，而 A 还活着、也没有暂停：锁的过期时间是 A 的时钟定的，提前了这段偏差"),
	r(`A, its clock `+dur+` behind, holds the lock for a TTL of `+dur+`; B polls with the same TTL until `+dur+` before its end`,
		"A 的时钟慢了 {1}，以 TTL {2} 持有锁；B 用同样的 TTL 轮询，直到 TTL 结束前 {3}"),
	r(`the lock lived as long as asked with A's clock `+dur+` ahead \(a crashed A's lock freed within its TTL and the slack\) and `+dur+` behind \(nobody got in before its TTL\)`,
		"A 的时钟快了 {1}（崩溃的 A 的锁在 TTL 加余量之内放开了）、慢了 {2}（TTL 到期之前没有人拿到锁）时，锁都活了请求的那么久"),
	r(`A releases; C must acquire within A's TTL and the slack`, "A 释放；C 必须在 A 的 TTL 加上余量之内拿到锁"),
	r(`after (the failover|the restart of .+), B was refused while A held the lock, but once A had released it nobody could acquire it for `+dur+`: the lock stayed unobtainable`,
		"{1*}之后，A 持有锁时 B 被拒绝，但 A 释放之后，{2} 内也没有人能拿到锁：这把锁一直拿不到"),
	r(`the failover`, "故障转移"),
	r(`the restart of (.+)`, "{1*}重启"),
	r(`B could not acquire K in `+dur+` on the promoted replica, which never received A's lock; once A released, C acquired`,
		"B 在 {1} 内没能在被提升的副本上拿到 K，这个副本从没收到 A 的锁；A 释放后，C 拿到了锁"),
	r(`the lock cannot be refreshed: it does not implement strategy.Refresher`, "这把锁不能续期：它没有实现 strategy.Refresher"),
	r(`A's late Refresh, paused before its one command until B had acquired, failed and left B's lock as B took it`,
		"A 迟到的 Refresh 在它唯一的命令之前暂停，直到 B 拿到锁，结果失败了，B 的锁保持 B 拿到时的样子"),
	r(`A's late Refresh, paused at each of the (\d+) boundaries of its (\d+)-command refresh in turn, failed and left B's lock as B took it`,
		"A 迟到的 Refresh 有 {2} 条命令，依次在 {1} 个边界上暂停，每次都失败了，B 的锁保持 B 拿到时的样子"),

	// lease-kept.
	r(client+` acquired the lock `+dur+` after (A asked for a TTL of|A's Refresh asked for a TTL of) `+dur+`: A, alive and not paused, lost its lock at least `+dur+` early`,
		"{3*} {4}，{2} 之后 {1} 就拿到了锁：A 活着，也没有暂停，却至少提前 {5} 丢了锁"),
	r(`A asked for a TTL of`, "A 请求的 TTL 为"),
	r(`A's Refresh asked for a TTL of`, "A 的 Refresh 请求的 TTL 为"),
	r(`nobody acquired the lock while A held it for `+dur+` \(B polled with the same TTL, then C with `+dur+`, until `+dur+` before its end\)`,
		"A 持有锁的 {1} 里没人拿到锁（B 用同样的 TTL 轮询，之后 C 用 {2} 轮询，直到结束前 {3}）"),
	r(`(.+); and again after A refreshed its lock to that TTL`, "{1*}；A 把锁续期到这个 TTL 后再测一遍，也是如此"),
	// failover, restart-amnesia, node-clock-jump, minority-down: the
	// topology properties, on servers of their own. A master is "the
	// server" on one Redis, else its name (master-2), which stays as it is.
	r(`A cannot reach `+nodes+`: it can lock K on a bare majority \(`+num+` of `+num+` masters\) at most`,
		"A 连不上 {1*}：它至多只能在刚好过半的主节点上锁住 K（{3} 个主节点中的 {2} 个）"),
	r(`a lock over `+num+` independent masters fails over to no replica: a master that comes back empty is restart-amnesia`,
		"跨 {1} 个相互独立主节点的锁没有副本可供故障转移：主节点重启后变空的情况由 restart-amnesia 检查"),
	r(`the replication link is held: nothing the primary writes from now on reaches the replica`,
		"复制链路被扣住了：从现在起，主节点写入的任何东西都到不了副本"),
	r(`the replication link carries on`, "复制链路恢复了"),
	r(`A's attempt failed while the replica could not acknowledge it, and succeeded once it could: the lock grants nothing a failover can lose`,
		"副本无法确认时 A 的尝试失败了，副本能确认后就成功了：这把锁不会授出一次故障转移能弄丢的东西"),
	r(`the primary dies before its replica has A's lock; the replica is promoted, and clients are sent to it`,
		"主节点在副本拿到 A 的锁之前死了；副本被提升为主节点，客户端转到它上面"),
	r(`B acquired K on the promoted replica while A still held it: the replica had not received A's lock when the primary died \(Redis replicates asynchronously\), so the failover lost it`,
		"A 还持有锁，B 就在提升为主节点的副本上拿到了 K：主节点死的时候，副本还没收到 A 的锁（Redis 的复制是异步的），所以故障转移把这把锁弄丢了"),
	r(`B could not acquire K in `+dur+` on the promoted replica, which never received A's lock`,
		"B 在 {1} 内没能在提升为主节点的副本上拿到 K，尽管这个副本从来没收到过 A 的锁"),
	r(`A could not acquire K with a minority of the masters out of reach: see minority-down`,
		"少数主节点连不上时，A 拿不到 K：见 minority-down"),
	r(node+` restarts without persistence: it comes back empty, without A's lock`,
		"{1*}不带持久化地重启：它回来时是空的，没有 A 的锁"),
	r(node+` dies; it will come back empty after `+dur+` \(a delayed restart\)`,
		"{1*}宕机了；它会在 {2} 之后空着回来（延迟重启）"),
	r(`B acquired K while A still held it: `+node+` had restarted without persistence and forgotten A's lock`,
		"A 还持有锁，B 就拿到了 K：{1*}不带持久化地重启过，忘掉了 A 的锁"),
	r(`B could not acquire K in `+dur+` while `+node+` stayed down \(a delayed restart of `+dur+`\)`,
		"{2*}保持宕机期间（延迟 {3} 重启），B 在 {1} 内没能拿到 K"),
	r(`B could not acquire K in `+dur+` after `+node+` restarted empty`,
		"{2*}重启后是空的，B 在 {1} 内仍然没能拿到 K"),
	r(node+`: its clock jumps `+dur+` forward \(an NTP step, an administrator\); by it, A's TTL of `+dur+` has passed`,
		"{1*}：它的时钟向前跳了 {2}（NTP 跳变校时，或者管理员改了时间）；按这个时钟，A 的 TTL {3} 已经过去了"),
	r(`B acquired K well inside A's TTL of `+dur+` by the real clock: the clock of `+node+` jumped `+dur+` forward, and it expired A's lock early`,
		"按真实的时间，A 的 TTL {1} 还远没有过去，B 就拿到了 K：{2*}的时钟向前跳了 {3}，提前让 A 的锁过期了"),
	r(`B could not acquire K in `+dur+` after the clock of `+node+` jumped `+dur+` forward`,
		"{2*}的时钟向前跳了 {3} 之后，B 在 {1} 内仍然没能拿到 K"),
	r(`a lock on one Redis has no minority of masters to lose`, "单个 Redis 上的锁没有可以失去的少数主节点"),
	r(nodes+` are down: `+num+` of `+num+` masters answer, a majority`, "{1*}宕机了：{3} 个主节点中有 {2} 个应答，是多数"),
	r(`A could not acquire the free lock with a majority of the masters up: (.+)`, "多数主节点都在运行，A 却拿不到空闲的锁：{1*}"),
	r(`B acquired K while A held it, with `+nodes+` down`, "{1*}宕机时，A 持有锁，B 却拿到了 K"),
	r(client+`'s release failed with a majority of the masters up: (.+)`, "多数主节点都在运行，{1} 的释放却失败了：{2}"),
	r(`B could not acquire K after A released it, with a majority of the masters up: (.+)`, "多数主节点都在运行，A 释放之后 B 却拿不到 K：{1*}"),
	r(`with `+nodes+` down, A acquired, B was refused while A held the lock and got it once A had released, and C, reaching a minority of the masters, was refused`,
		"{1*}宕机时，A 拿到了锁，A 持有锁期间 B 被拒绝，A 释放之后 B 拿到了锁，而只连得上少数主节点的 C 被拒绝了"),
	r(`C cannot reach `+node+` either: it reaches `+num+` of `+num+` masters, a minority`,
		"C 也连不上{1*}：它只连得上 {3} 个主节点中的 {2} 个，是少数"),
	r(`C acquired K reaching only `+num+` of `+num+` masters: a minority granted the lock, so two clients on either side of a partition could each hold it`,
		"C 只连得上 {2} 个主节点中的 {1} 个，却拿到了 K：少数主节点授出了锁，于是网络分区两边的两个客户端可能各自持有它"),
	r(`it was refused as if held`, "它被拒绝了，就像锁有人持有一样"),
	r(`it failed: (.+)`, "它失败了：{1}"),
	r(`the server`, "服务器"),
	r(`([a-z]+-\d+), ([a-z]+-\d+(?:, [a-z]+-\d+)*)`, "{1}、{2*}"),
	r(`([a-z]+-\d+)`, "{1}"),
}

// Translate returns s in Chinese, and whether a rule translated it; s
// comes back as it is when none does.
func Translate(s string) (string, bool) {
	out, i := translate(s, nil)
	if i < 0 {
		return s, false
	}
	return msg.Space(out), true
}

// translate tries the rules in order and returns the translation and the
// index of the rule that made it, or -1. A rule whose template translates
// a capture that no rule translates does not apply. When used is not nil,
// the rules that made the translation, its fragments' included, are added
// to it.
func translate(s string, used map[int]bool) (string, int) {
	for i, ru := range rules {
		m := ru.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		var mine map[int]bool
		if used != nil {
			mine = map[int]bool{i: true}
		}
		if out, ok := expand(ru.tmpl, m, mine); ok {
			maps.Copy(used, mine)
			return out, i
		}
	}
	return "", -1
}

var placeholder = regexp.MustCompile(`\{(\d+)(\*?)\}`)

// expand fills tmpl with the captures m.
func expand(tmpl string, m []string, used map[int]bool) (string, bool) {
	ok := true
	out := placeholder.ReplaceAllStringFunc(tmpl, func(p string) string {
		sub := placeholder.FindStringSubmatch(p)
		i, _ := strconv.Atoi(sub[1])
		if i >= len(m) {
			panic(fmt.Sprintf("zh: template %q refers to capture %d", tmpl, i))
		}
		if sub[2] == "" {
			return m[i]
		}
		t, j := translate(m[i], used)
		ok = ok && j >= 0
		return t
	})
	return out, ok
}
