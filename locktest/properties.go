package locktest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Property names one scenario the suite runs against a strategy.
type Property string

// The properties, in the order the suite runs them.
const (
	// Exclusion, the fault-free baseline: two clients race for a free key
	// in every interleaving of their attempts' commands, then many clients
	// contend for it and work well inside the TTL; never two inside at once.
	Exclusion Property = "exclusion"
	// CrashRecovery: the holder crashes after acquiring and never releases;
	// a waiter must get the lock within the TTL plus some slack.
	CrashRecovery Property = "crash-recovery"
	// CrashMidAcquire: a client dies between the commands of its acquire,
	// after each command in turn; a waiter must still get the lock.
	CrashMidAcquire Property = "crash-mid-acquire"
	// StaleTakeoverRace: two waiters find the same expired lock at the same
	// moment; every interleaving of their attempts is tried, and at most one
	// may win. n/a where Redis itself deleted the expired key: then there is
	// no stale lock, only a free key, and exclusion covers that race.
	StaleTakeoverRace Property = "stale-takeover-race"
	// ClockSkew: while the lock is held, a client whose clock runs ahead by
	// more than the TTL tries to acquire it, and must fail.
	ClockSkew Property = "clock-skew"
	// SafeRelease: the holder is paused past its TTL, another client
	// acquires, and the first one's late release must not free the second
	// one's lock. The pause falls before the release and, in turn, at every
	// boundary between its commands.
	SafeRelease Property = "safe-release"
	// DoubleRelease: a client releases twice; a lock acquired in between by
	// someone else must survive.
	DoubleRelease Property = "double-release"
	// HolderOverrun: the holder's work outlasts its TTL while others wait;
	// they must not enter while it is still inside.
	HolderOverrun Property = "holder-overrun"
	// ReleaseFrees (liveness): right after the holder releases, another
	// client's single attempt succeeds, without waiting for the TTL; and a
	// Release that reports success when its command failed has still freed
	// the lock.
	ReleaseFrees Property = "release-frees"
	// LeaseKept: while the holder is alive and not paused, nobody else can
	// acquire before the TTL it asked for has passed. Other clients poll
	// with the holder's TTL and with a much shorter one until the TTL less
	// a tolerance of a tenth of it (at least 20ms).
	LeaseKept Property = "lease-kept"
	// CrashMidRelease: a holder that dies between the commands of its
	// release, at each boundary in turn, leaves a lock that still frees
	// within its TTL.
	CrashMidRelease Property = "crash-mid-release"
	// SafeRefresh: for locks that implement strategy.Refresher, a refresh
	// sent after the lock passed to someone else, paused before it and at
	// each boundary between its commands in turn, must neither claim the
	// lock (Refresh returns an error), nor extend the new holder's lock,
	// nor free it.
	SafeRefresh Property = "safe-refresh"

	// The fixes for the holder that overruns its lease: fencing tokens,
	// checked by the resource, and renewal, which tells the holder when
	// its lease is lost. Each is a property of its own, run on every
	// strategy like the rest.

	// FencedOverrun: the holder is paused past its TTL, another client
	// acquires and writes to a protected resource; the first one's late
	// write, when it wakes up, must be refused. The resource refuses a write whose fencing token is below
	// the highest it has seen; a lock without tokens cannot be protected.
	FencedOverrun Property = "fenced-overrun"
	// RenewedOverrun: a holder whose connection stalls for a third of its
	// TTL keeps its lock; one stalled for three TTLs must learn that its
	// lease is lost (its Lease context is cancelled) before another
	// holder's work begins. Only the holder's commands are held: its
	// process and lease timer run on, so this is a stalled connection, not
	// a GC or VM pause that would freeze the timer too.
	// The detector sees the holder stop when a goroutine wakes on its Lease
	// context, so the lease must end some milliseconds before the key can
	// expire (luatoken's WithLeaseMargin; the catalog gives it 20ms).
	RenewedOverrun Property = "renewed-overrun"

	// The topology properties run on servers each check starts for
	// itself (see Config.Masters): what a lock survives beyond one Redis
	// that never fails.

	// Failover: A acquires on the primary of a primary and replica while
	// the replication link is held; the primary dies, the replica is
	// promoted and the clients are sent to it; B must not acquire while A
	// holds the lock. A lock that grants nothing the replica has not
	// acknowledged (WAIT) holds it, once it is granted with the link
	// carrying on. n/a for a lock over several masters.
	Failover Property = "failover"
	// RestartAmnesia: a master holding A's lock restarts without
	// persistence and comes back empty (after Config.RestartDelay); B must
	// not acquire while A holds the lock. Over several masters, A holds a
	// bare majority and one master of it restarts.
	RestartAmnesia Property = "restart-amnesia"
	// NodeClockJump: a master holding A's lock has its clock jump forward
	// past A's TTL; B must not acquire while A holds the lock by the real
	// clock. Over several masters, A holds a bare majority and the clock
	// of one master of it jumps.
	NodeClockJump Property = "node-clock-jump"
	// MinorityDown: over several masters, with a minority of them down,
	// A acquires, B is refused while A holds the lock, and B acquires once
	// A has released; then C, cut off from one more master, reaches only a
	// minority and must be refused. n/a on one Redis.
	MinorityDown Property = "minority-down"
)

// property is one row of the table of properties.
type property struct {
	p        Property
	scenario scenario
	// breaks says in a line what it means that a lock breaks p; the doc
	// comment of the constant says what the scenario does.
	breaks string
	// topology marks the properties that run on servers of their own
	// (see TopologyProperties).
	topology bool
}

// table is the one list of the properties, in the order the suite runs
// them, that lockcheck's matrix follows and the docs list: Properties,
// Check's scenarios and describe all read it.
var table = []property{
	{Exclusion, exclusion, "two clients were inside the critical section at once, without any fault", false},
	{ReleaseFrees, releaseFrees, "a release did not free the lock for the next client's attempt", false},
	{LeaseKept, leaseKept, "another client acquired the lock before the holder's TTL had passed", false},
	{CrashRecovery, crashRecovery, "a holder that crashed left a lock nobody could acquire once its TTL had passed", false},
	{CrashMidAcquire, crashMidAcquire, "a client that died between the commands of its acquire left a lock nobody could acquire", false},
	{CrashMidRelease, crashMidRelease, "a holder that died between the commands of its release left a lock that did not free within its TTL", false},
	{StaleTakeoverRace, staleTakeoverRace, "two waiters both took over the same expired lock", false},
	{ClockSkew, clockSkew, "a client whose clock ran ahead took a lock that was still held", false},
	{SafeRelease, safeRelease, "a release sent after the holder's TTL ran out freed the next holder's lock", false},
	{DoubleRelease, doubleRelease, "a second release freed the lock someone else had acquired in between", false},
	{SafeRefresh, safeRefresh, "a late Refresh claimed, extended or freed the next holder's lock", false},
	{HolderOverrun, holderOverrun, "a holder whose work outlasted its TTL was still inside when the next one entered; every TTL lock without a lease (strategy.Leased) breaks it", false},
	{FencedOverrun, fencedOverrun, "the protected resource accepted a late holder's write after the next holder's; every TTL lock without fencing tokens (strategy.Fenced) breaks it", false},
	{RenewedOverrun, renewedOverrun, "a stalled holder did not learn that its lease was lost before the next holder began; every TTL lock without a lease (strategy.Leased) breaks it", false},
	{Failover, failover, "a failover to a replica that had not received the lock let another client acquire it; every lock on one Redis breaks it", true},
	{RestartAmnesia, restartAmnesia, "a master that restarted without persistence forgot the lock, and another client acquired it", true},
	{NodeClockJump, nodeClockJump, "a master whose clock jumped forward expired the lock early, and another client acquired it", true},
	{MinorityDown, minorityDown, "with a minority of the masters down, the lock did not work or was not exclusive", true},
}

// Properties returns the properties of a lock on one Redis that never
// fails, in the order the suite runs them: the ones Run checks.
func Properties() []Property { return properties(func(d property) bool { return !d.topology }) }

// TopologyProperties returns what a lock survives beyond one Redis that
// never fails: a failover, a restart without persistence, a server's clock
// jump, a minority of masters down. Each check starts servers of its own,
// private redis-server processes on loopback ports (package redistest),
// whatever Redis Config.Addr names, so they need redis-server on PATH
// (and a C compiler, once, for node-clock-jump's clock shim). Run checks
// them only when asked:
//
//	locktest.Run(t, f, expect, locktest.AllProperties()...)
func TopologyProperties() []Property { return properties(func(d property) bool { return d.topology }) }

// AllProperties returns Properties, then TopologyProperties: the rows of
// lockcheck's matrix.
func AllProperties() []Property { return properties(func(property) bool { return true }) }

func properties(keep func(property) bool) []Property {
	var ps []Property
	for _, d := range table {
		if keep(d) {
			ps = append(ps, d.p)
		}
	}
	return ps
}

// lookup returns the row of p.
func lookup(p Property) (property, bool) {
	for _, d := range table {
		if d.p == p {
			return d, true
		}
	}
	return property{}, false
}

// ParseProperty returns the property named s.
func ParseProperty(s string) (Property, error) {
	for _, p := range AllProperties() {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("locktest: unknown property %q", s)
}

// describe says in one line what it means that a lock breaks p, for
// example for SafeRelease "a release sent after the holder's TTL ran out
// freed the next holder's lock". It returns "" for an unknown property.
func describe(p Property) string {
	if d, ok := lookup(p); ok {
		return d.breaks
	}
	return ""
}

// goName returns the Go expression that names p: locktest.CrashMidAcquire
// for "crash-mid-acquire", the constant named by p's words; a property
// that AllProperties does not list is written as a conversion.
func goName(p Property) string {
	if !slices.Contains(AllProperties(), p) {
		return "locktest.Property(" + strconv.Quote(string(p)) + ")"
	}
	var b strings.Builder
	b.WriteString("locktest.")
	for w := range strings.SplitSeq(string(p), "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}
