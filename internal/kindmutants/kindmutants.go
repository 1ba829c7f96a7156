// Package kindmutants tests the conformance suite's properties of
// read-write locks and semaphores, as package mutants does the mutex's:
// a variant is a correct lock of a kind, which must hold every property
// of its kind; a mutant is a variant with one slip that real authors
// make, and the properties that must catch it.
//
// The locks are small Lua designs on Redis's own clock (TIME): a
// read-write lock keeps its writer at K, its readers in the sorted set
// K:readers scored by the expiry of each reader's own lease, and, when
// writers go first, a waiting writer's intent at K:intent; a semaphore
// keeps its permits in the sorted set K, scored by the expiry of each
// holder's lease.
package kindmutants

import (
	"slices"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
)

// Variant is a correct lock of a kind.
type Variant struct {
	Name string
	Kind strategy.Kind
	// Renews says that the variant's holds renew themselves (a watchdog):
	// they do not run out while their holder works on.
	Renews bool
	make   func(c locktest.Client, s slip) (strategy.Strategy, error)
	base   slip
}

// New builds the variant for one simulated client; it is a
// locktest.Factory.
func (v Variant) New(c locktest.Client) (strategy.Strategy, error) { return v.make(c, v.base) }

// Mutant is a variant with one slip.
type Mutant struct {
	// Name identifies the mutant, in kebab case.
	Name string
	// Slip says in a line what the author got wrong.
	Slip string
	// Base names the variant the slip is made in.
	Base string
	// Killers lists every property of its kind that breaks on the mutant
	// and holds on its base (or, a structural one, cannot be staged on
	// it: a clock the base never reads).
	Killers []locktest.Property
	slip    slip
}

// New builds the mutant for one simulated client; it is a
// locktest.Factory.
func (m Mutant) New(c locktest.Client) (strategy.Strategy, error) {
	v, _ := LookupVariant(m.Base)
	return v.make(c, v.base.with(m.slip))
}

// Kind is the kind of lock the mutant is.
func (m Mutant) Kind() strategy.Kind {
	v, _ := LookupVariant(m.Base)
	return v.Kind
}

// slip is what a lock does differently from the correct one; the zero
// slip is none.
type slip struct {
	writersFirst bool // a variant's policy: a waiting writer's intent keeps new readers out
	reentrant    bool // a variant's policy: a holder (strategy.Reentrant) may read while it writes
	watchdog     bool // a variant's policy: a watchdog renews every hold every third of its TTL until its Release
	undeclared   bool // a writers-first variant that does not say so (no strategy.WriterFirst)

	releaseDropsReaders bool // a reader's release deletes K:readers
	refreshCutsReaders  bool // a reader's refresh sets K:readers' expiry to its own TTL
	refreshRenewsAll    bool // a reader's refresh renews every reader's lease
	intentOutlivesWrite bool // a writer that gets in leaves its intent behind
	writerBlocksItself  bool // a writer is refused while any intent stands, its own too
	intentNeverExpires  bool // a refused writer sets its intent without an expiry

	expiryOutright  bool // an acquire or refresh sets K's expiry to its own TTL
	releaseAny      bool // a release removes the oldest permits, not its own
	acquireNSingles bool // TryAcquireN takes n permits one at a time, and keeps them on failure
	givesBack       bool // TryAcquireN takes n permits one at a time, and releases them on failure
	clientClock     bool // leases are scored by the client's clock, not Redis's
	countThenAdd    bool // an acquire counts the permits held, then adds its own in a second script

	joinThenLease  bool // an acquire adds its hold with no lease, then sets the lease in a second script
	parkThenRemove bool // a release parks its hold with no lease, then removes it in a second script
	lastReaderDels bool // the last reader's release deletes K, whoever holds it
	refreshReAdds  bool // a refresh scores its hold with a plain ZADD, which adds it back once gone

	writerCapsReaders bool // a writer refused by readers sets K:readers' expiry to its own TTL
	expireFirst       bool // an acquire sets K's expiry to its own TTL before it counts, refused or not
	releaseSwallows   bool // a release reports success when its command failed
	watchdogOutlives  bool // Release does not stop the hold's watchdog
}

// with is s with the slips of t added.
func (s slip) with(t slip) slip {
	s.writersFirst = s.writersFirst || t.writersFirst
	s.reentrant = s.reentrant || t.reentrant
	s.watchdog = s.watchdog || t.watchdog
	s.undeclared = s.undeclared || t.undeclared
	s.releaseDropsReaders = s.releaseDropsReaders || t.releaseDropsReaders
	s.refreshCutsReaders = s.refreshCutsReaders || t.refreshCutsReaders
	s.refreshRenewsAll = s.refreshRenewsAll || t.refreshRenewsAll
	s.intentOutlivesWrite = s.intentOutlivesWrite || t.intentOutlivesWrite
	s.writerBlocksItself = s.writerBlocksItself || t.writerBlocksItself
	s.intentNeverExpires = s.intentNeverExpires || t.intentNeverExpires
	s.expiryOutright = s.expiryOutright || t.expiryOutright
	s.releaseAny = s.releaseAny || t.releaseAny
	s.acquireNSingles = s.acquireNSingles || t.acquireNSingles
	s.givesBack = s.givesBack || t.givesBack
	s.clientClock = s.clientClock || t.clientClock
	s.countThenAdd = s.countThenAdd || t.countThenAdd
	s.joinThenLease = s.joinThenLease || t.joinThenLease
	s.parkThenRemove = s.parkThenRemove || t.parkThenRemove
	s.lastReaderDels = s.lastReaderDels || t.lastReaderDels
	s.refreshReAdds = s.refreshReAdds || t.refreshReAdds
	s.writerCapsReaders = s.writerCapsReaders || t.writerCapsReaders
	s.expireFirst = s.expireFirst || t.expireFirst
	s.releaseSwallows = s.releaseSwallows || t.releaseSwallows
	s.watchdogOutlives = s.watchdogOutlives || t.watchdogOutlives
	return s
}

var variants = []Variant{
	{Name: "rw-readers-first", Kind: strategy.ReadWrite, make: newRW},
	{Name: "rw-writers-first", Kind: strategy.ReadWrite, make: newRW, base: slip{writersFirst: true}},
	// Writers first, as a lock written outside the project may be
	// without declaring its intent: the suite finds the policy.
	{Name: "rw-writers-first-undeclared", Kind: strategy.ReadWrite, make: newRW, base: slip{writersFirst: true, undeclared: true}},
	{Name: "rw-reentrant", Kind: strategy.ReadWrite, make: newRW, base: slip{reentrant: true}},
	{Name: "semaphore", Kind: strategy.Semaphore, make: newSemaphore},
	{Name: "rw-watchdog", Kind: strategy.ReadWrite, make: newRW, base: slip{watchdog: true}, Renews: true},
	{Name: "semaphore-watchdog", Kind: strategy.Semaphore, make: newSemaphore, base: slip{watchdog: true}, Renews: true},
}

var mutants = []Mutant{
	{
		Name: "rw-release-drops-readers", Base: "rw-readers-first",
		Slip:    "a reader's release deletes the readers' set, as a mutex's deletes its key",
		Killers: []locktest.Property{locktest.ReaderLeaseIndependence, locktest.ReaderDoubleRelease, locktest.WriterProgress},
		slip:    slip{releaseDropsReaders: true},
	},
	{
		Name: "rw-refresh-cuts-readers", Base: "rw-readers-first",
		Slip:    "a reader's refresh sets the readers' set to live its own TTL (Redisson issue 2144's shape, in the watchdog)",
		Killers: []locktest.Property{locktest.ReaderLeaseIndependence},
		slip:    slip{refreshCutsReaders: true},
	},
	{
		Name: "rw-refresh-renews-every-reader", Base: "rw-readers-first",
		Slip:    "a reader's refresh renews every reader's lease, crashed ones included (Redisson pull request 7098)",
		Killers: []locktest.Property{locktest.ReaderLeaseIndependence},
		slip:    slip{refreshRenewsAll: true},
	},
	{
		Name: "rw-intent-outlives-write", Base: "rw-writers-first",
		Slip:    "a writer that gets in does not delete its intent: readers wait out its TTL",
		Killers: []locktest.Property{locktest.ReaderLeaseIndependence, locktest.WriterProgress},
		slip:    slip{intentOutlivesWrite: true},
	},
	{
		Name: "rw-intent-never-expires", Base: "rw-writers-first",
		Slip:    "a refused writer's intent is set without an expiry: a writer that gives up keeps every reader out for good",
		Killers: []locktest.Property{locktest.WriterProgress},
		slip:    slip{intentNeverExpires: true},
	},
	{
		Name: "rw-undeclared-intent-never-expires", Base: "rw-writers-first-undeclared",
		Slip:    "as rw-intent-never-expires, on a lock that does not declare its writer intent: the suite waits 10 s for it before it calls the intent stuck",
		Killers: []locktest.Property{locktest.WriterProgress},
		slip:    slip{intentNeverExpires: true},
	},
	{
		Name: "rw-writer-blocks-itself", Base: "rw-writers-first",
		Slip:    "a writer's acquire refuses while an intent stands, as a reader's does, its own intent included",
		Killers: []locktest.Property{locktest.ReadSharing, locktest.ReaderCrashRecovery, locktest.ReaderLeaseIndependence, locktest.ReaderSafeRelease, locktest.ReaderSafeRefresh, locktest.ReaderFaults, locktest.WriterProgress},
		slip:    slip{writerBlocksItself: true},
	},
	{
		Name: "rw-read-join-then-lease", Base: "rw-readers-first",
		Slip:    "a reader's acquire joins the readers with no lease, and sets its lease in a second script: a reader that dies between them is one forever",
		Killers: []locktest.Property{locktest.ReaderCrashMidAcquire, locktest.ReaderFaults},
		slip:    slip{joinThenLease: true},
	},
	{
		Name: "rw-release-park-then-remove", Base: "rw-readers-first",
		Slip:    "a reader's release first parks its member with no lease, so that no refresh revives it, and removes it in a second script",
		Killers: []locktest.Property{locktest.ReaderCrashMidRelease},
		slip:    slip{parkThenRemove: true},
	},
	{
		Name: "rw-last-reader-deletes-k", Base: "rw-readers-first",
		Slip:    "the release that leaves no reader deletes K, as a shared key's last unlock does, without asking whose K it is",
		Killers: []locktest.Property{locktest.ReaderSafeRelease, locktest.ReaderDoubleRelease},
		slip:    slip{lastReaderDels: true},
	},
	{
		Name: "rw-refresh-re-adds", Base: "rw-readers-first",
		Slip:    "a reader's refresh scores its member with a plain ZADD and never asks whether it is still there: a late one adds it back",
		Killers: []locktest.Property{locktest.ReaderSafeRefresh},
		slip:    slip{refreshReAdds: true},
	},
	{
		Name: "semaphore-refresh-re-adds", Base: "semaphore",
		Slip:    "a refresh scores its permit with a plain ZADD and never asks whether it is still there: a late one takes it back, room or not",
		Killers: []locktest.Property{locktest.PermitSafeRefresh},
		slip:    slip{refreshReAdds: true},
	},
	{
		Name: "rw-reentrant-read-unlock-deletes-write", Base: "rw-reentrant",
		Slip:    "the read unlock that leaves no reader deletes K, the holder's own write lock included (Redisson issue 891)",
		Killers: []locktest.Property{locktest.ReaderSafeRelease, locktest.ReaderDoubleRelease, locktest.ReaderReentrant},
		slip:    slip{lastReaderDels: true},
	},
	{
		Name: "semaphore-join-then-lease", Base: "semaphore",
		Slip:    "an acquire adds its permit with no lease, and sets the lease in a second script: a holder that dies between them keeps it forever",
		Killers: []locktest.Property{locktest.PermitCrashMidAcquire, locktest.PermitFaults},
		slip:    slip{joinThenLease: true},
	},
	{
		Name: "semaphore-release-park-then-remove", Base: "semaphore",
		Slip:    "a release first parks its permit with no lease, so that no refresh revives it, and removes it in a second script",
		Killers: []locktest.Property{locktest.PermitCrashMidRelease, locktest.PermitFaults},
		slip:    slip{parkThenRemove: true},
	},
	{
		Name: "semaphore-expiry-outright", Base: "semaphore",
		Slip:    "an acquire sets the whole set's expiry to its own TTL, as a mutex's sets its key's",
		Killers: []locktest.Property{locktest.PermitLeaseIndependence},
		slip:    slip{expiryOutright: true},
	},
	{
		Name: "semaphore-release-any", Base: "semaphore",
		Slip:    "a release removes the oldest permits, whoever holds them, as if permits were anonymous",
		Killers: []locktest.Property{locktest.PermitReleaseExact},
		slip:    slip{releaseAny: true},
	},
	{
		Name: "semaphore-acquire-n-singles", Base: "semaphore",
		Slip:    "TryAcquireN takes its permits one at a time and keeps those it got when one is refused",
		Killers: []locktest.Property{locktest.MultiAcquireAtomic},
		slip:    slip{acquireNSingles: true},
	},
	{
		Name: "semaphore-acquire-n-gives-back", Base: "semaphore",
		Slip:    "TryAcquireN takes its permits one at a time and, when one is refused, gives back those it got: it keeps nothing, but two acquires of all the permits at once can each take some and both be refused",
		Killers: []locktest.Property{locktest.MultiAcquireAtomic},
		slip:    slip{givesBack: true},
	},
	{
		Name: "semaphore-count-then-add", Base: "semaphore",
		Slip:    "an acquire counts the permits held in one script and adds its own in another, a check-then-act split",
		Killers: []locktest.Property{locktest.PermitBound, locktest.MultiAcquireAtomic},
		slip:    slip{countThenAdd: true},
	},
	{
		Name: "semaphore-client-clock", Base: "semaphore",
		Slip:    "leases are scored by each client's own clock (redis-semaphore, Redisson's permit-expirable semaphore)",
		Killers: []locktest.Property{locktest.PermitSkew},
		slip:    slip{clientClock: true},
	},
	{
		Name: "rw-writer-caps-readers", Base: "rw-readers-first",
		Slip:    "a writer refused by readers sets the readers' set to live its own TTL, so that they cannot keep it waiting longer: a short-lived writer's attempt cuts the readers' leases",
		Killers: []locktest.Property{locktest.ReaderLeaseKept},
		slip:    slip{writerCapsReaders: true},
	},
	{
		Name: "semaphore-expire-first", Base: "semaphore",
		Slip:    "an acquire sets the set's expiry to its own TTL before it counts the permits, so that a refused attempt, or a shorter one, cuts the holders' leases",
		Killers: []locktest.Property{locktest.PermitLeaseKept, locktest.PermitLeaseIndependence},
		slip:    slip{expireFirst: true},
	},
	{
		Name: "rw-release-swallows-errors", Base: "rw-readers-first",
		Slip:    "a release ignores the error of its script and reports success, as a deferred unlock that drops its error does",
		Killers: []locktest.Property{locktest.ReaderReleaseFrees},
		slip:    slip{releaseSwallows: true},
	},
	{
		Name: "semaphore-release-swallows-errors", Base: "semaphore",
		Slip:    "a release ignores the error of its script and reports success, as a deferred unlock that drops its error does",
		Killers: []locktest.Property{locktest.PermitReleaseFrees},
		slip:    slip{releaseSwallows: true},
	},
	{
		Name: "rw-watchdog-outlives-release", Base: "rw-watchdog",
		Slip:    "a hold's watchdog renews on a context of its own, which Release never cancels: it renews after the release until a renewal finds the hold gone, and for good after a release that failed (Redisson pull request 7251)",
		Killers: []locktest.Property{locktest.ReaderFaults, locktest.ReaderRenewAfterRelease},
		slip:    slip{watchdogOutlives: true},
	},
	{
		Name: "semaphore-watchdog-outlives-release", Base: "semaphore-watchdog",
		Slip:    "a permit's watchdog renews on a context of its own, which Release never cancels: it renews after the release until a renewal finds the permit gone, and for good after a release that failed",
		Killers: []locktest.Property{locktest.PermitFaults, locktest.PermitRenewAfterRelease},
		slip:    slip{watchdogOutlives: true},
	},
}

// Variants returns the correct locks.
func Variants() []Variant { return slices.Clone(variants) }

// Mutants returns the corpus.
func Mutants() []Mutant { return slices.Clone(mutants) }

// LookupVariant returns the variant named name.
func LookupVariant(name string) (Variant, bool) {
	i := slices.IndexFunc(variants, func(v Variant) bool { return v.Name == name })
	if i < 0 {
		return Variant{}, false
	}
	return variants[i], true
}
