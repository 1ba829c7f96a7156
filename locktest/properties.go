package locktest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Property names one scenario the suite runs against a strategy.
type Property string

// The properties; each prop_*.go file says what its scenario does.
const (
	Exclusion         Property = "exclusion"           // many clients contend; never two inside at once
	CrashRecovery     Property = "crash-recovery"      // a crashed holder's lock frees within TTL plus slack
	CrashMidAcquire   Property = "crash-mid-acquire"   // a client dies between its acquire's commands
	StaleTakeoverRace Property = "stale-takeover-race" // two waiters find the same expired lock
	ClockSkew         Property = "clock-skew"          // a client's clock runs ahead by more than the TTL
	HolderClock       Property = "holder-clock"        // the holder's own clock sets its lock's expiry
	SafeRelease       Property = "safe-release"        // a late release must not free the next holder's lock
	DoubleRelease     Property = "double-release"      // a second release must not free another's lock
	HolderOverrun     Property = "holder-overrun"      // work outlasts the TTL while others wait
	ReleaseFrees      Property = "release-frees"       // a release frees the lock at once (liveness)
	LeaseKept         Property = "lease-kept"          // nobody acquires before the holder's TTL has passed
	CrashMidRelease   Property = "crash-mid-release"   // a holder dies between its release's commands
	SafeRefresh       Property = "safe-refresh"        // a late Refresh must not claim, extend or free
	AcquireFaults     Property = "acquire-faults"      // errors, lost replies and drops inside the acquire
	FencedOverrun     Property = "fenced-overrun"      // a late holder's write must be refused (strategy.Fenced)
	RenewedOverrun    Property = "renewed-overrun"     // a stalled holder learns its lease is lost (strategy.Leased)
	Failover          Property = "failover"            // a replica promoted without the lock (topology)
	RestartAmnesia    Property = "restart-amnesia"     // a master restarts empty (topology)
	NodeClockJump     Property = "node-clock-jump"     // a master's clock jumps past the TTL (topology)
	MinorityDown      Property = "minority-down"       // a minority of the masters is down (topology)
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
	{HolderClock, holderClock, "a holder whose clock ran ahead or behind got a lock that lived longer or shorter than asked", false},
	{SafeRelease, safeRelease, "a release sent after the holder's TTL ran out freed the next holder's lock", false},
	{DoubleRelease, doubleRelease, "a second release freed the lock someone else had acquired in between", false},
	{SafeRefresh, safeRefresh, "a late Refresh claimed, extended or freed the next holder's lock", false},
	{AcquireFaults, acquireFaults, "an acquire whose command met an error reply, a lost reply, a dropped connection or a late reply gave a lock it did not hold, changed the holder's lock, or left a key that outlives its TTL", false},
	{HolderOverrun, holderOverrun, "a holder whose work outlasted its TTL was still inside when the next one entered; every TTL lock without a lease (strategy.Leased) breaks it", false},
	{FencedOverrun, fencedOverrun, "the protected resource accepted a late holder's write after the next holder's; every TTL lock without fencing tokens (strategy.Fenced) breaks it", false},
	{RenewedOverrun, renewedOverrun, "a stalled holder did not learn that its lease was lost before the next holder began; every TTL lock without a lease (strategy.Leased) breaks it", false},
	{Failover, failover, "a failover to a replica that had not received the lock let another client acquire it; every lock on one Redis breaks it", true},
	{RestartAmnesia, restartAmnesia, "a master that restarted without persistence forgot the lock, and another client acquired it", true},
	{NodeClockJump, nodeClockJump, "a master whose clock jumped forward expired the lock early, and another client acquired it", true},
	{MinorityDown, minorityDown, "with a minority of the masters down, the lock did not work or was not exclusive", true},
}

// Properties are those of a lock on one Redis that never fails.
func Properties() []Property { return properties(func(d property) bool { return !d.topology }) }

// TopologyProperties are a failover, a restart, a clock jump and a
// minority of masters down. They start redis-server processes of their own
// and run only when asked: Run(t, f, expect, AllProperties()...).
func TopologyProperties() []Property { return properties(func(d property) bool { return d.topology }) }

// AllProperties are Properties, then TopologyProperties.
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
