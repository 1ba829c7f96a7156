package locktest

import "github.com/locklab/locklab/internal/msg"

// SafeRelease: the holder is paused past its TTL, another client
// acquires, and the first one's late release must leave the second one's
// lock as it was (see nexthold.go). The pause falls before the release
// and, in turn, at every boundary between its commands.

// safeRelease: at each boundary of its release in turn, A is paused until
// its TTL has passed and B has acquired; then A finishes its release, and C
// checks whether B's lock survived. A lock that renews itself runs out too:
// its renewals are paused with A.
func safeRelease(newRun func(string) *run) Result {
	n := countOps(newRun).release
	var last *run
	for k := range max(n, 1) {
		r, a, b, c, la := lateHolder(newRun, k)
		last = r
		p := a.pauseInside(k, n, "release", func() { a.release(la) })
		if !p.reached {
			r.shutdown()
			continue
		}
		lb, held, broke, why := takeoverWhilePaused(r, p, b, c)
		if lb == nil {
			return r.notApplicable(mNobodyWhilePaused.New(why))
		}
		if !broke.IsZero() {
			return r.breaks(mPausedTTLResumed.New(boundary(k, n, "release"), broke))
		}
		freed := whoFreed(r, held, "release")
		if c.tryAcquire(r.tm.Long) != nil {
			return r.breaks(mPausedTTLResumed.New(boundary(k, n, "release"), freed))
		}
		r.shutdown()
	}
	if n <= 1 {
		return last.holds(mSafeReleaseOne.New())
	}
	return last.holds(mSafeReleaseHolds.New(n, n))
}

// safe-release's messages.
var (
	mSafeReleaseOne = msg.Define("safe-release.holds-one", nil,
		"A's late release, paused before its one command until B had acquired, left B's lock in place")
	mSafeReleaseHolds = msg.Define("safe-release.holds", msg.K(msg.Count, msg.Count),
		"A's late release, paused at each of the {0} boundaries of its {1}-command release in turn, left B's lock in place")

	// The table of the docs: what the scenario does, and what must hold.
	_ = msg.Define("safe-release.scenario", nil,
		"the holder A is paused past its TTL (before its release, then at each boundary between the release's commands in turn), and B acquires; then A's release goes on one command at a time, with B paused: the suite reads K (its value and its `PTTL`) before and after each command, and C tries to acquire at each boundary")
	_ = msg.Define("safe-release.must", nil,
		"B's lock stays as B took it: not deleted, not overwritten, its expiry neither removed nor pushed back; C never gets in")
)
