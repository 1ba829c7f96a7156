package locktest

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// Each prop_<id>.go file declares a Property, with its scenario, and
// registers it.

// Property names one scenario the suite runs against a strategy.
type Property string

// property is all there is to know about a property, which its file
// registers.
type property struct {
	p Property
	// order is its place in the suite's order, which lockcheck's matrix
	// follows and the docs list: ascending, topology properties last.
	order    int
	scenario scenario
	// breaks says in a line what it means that a lock breaks p: the
	// English of the message <p>.broken, which register declares (the
	// catalogs translate it); the comment of the constant says what the
	// scenario does.
	breaks string
	// topology marks the properties that run on servers of their own
	// (see TopologyProperties).
	topology bool
	// structural marks a scenario a correct lock may be unable to stage:
	// no boundary inside a one-command acquire or release, no stale key
	// once Redis deleted it, no clock read. Its n/a is no failure of the
	// correct variants the package's tests check.
	structural bool
	// floor is what a check of p must sleep waiting on TTLs (Floor).
	floor func(Timing) floors
	// kind is the kind of lock p is about: a mutex's (the zero Kind)
	// apply to every lock, a read-write lock's writer and a semaphore's
	// single permit included; the others' only to their own kind
	// (KindProperties), in a grid of their own.
	kind strategy.Kind
}

// floors are the least times a check of a property must sleep waiting
// on TTLs: any, whatever the verdict; holds, when the lock holds it (any
// included). A lock that breaks a property, or to which it does not
// apply, may end the scenario before most waits, so only the waits made
// before any verdict can be reached count for any. Where a scenario's
// waits depend on the lock, the floor counts one wait, or none where
// even that is not certain.
type floors struct{ any, holds time.Duration }

// table is the properties in the suite's order: Properties, Check's
// scenarios and describe read it.
var table []property

// register adds d, with its floor, to table in its place. A property
// registered twice, or two at one place, is a mistake of the package.
func register(d property, floor func(Timing) floors) {
	d.floor = floor
	broken[d.p] = msg.Define(string(d.p)+".broken", nil, d.breaks)
	for _, o := range table {
		if o.p == d.p || o.order == d.order {
			panic(fmt.Sprintf("locktest: %s and %s both registered at %d", o.p, d.p, d.order))
		}
	}
	i, _ := slices.BinarySearchFunc(table, d, func(a, b property) int {
		return cmp.Or(cmp.Compare(boolRank(a.topology), boolRank(b.topology)), cmp.Compare(a.order, b.order))
	})
	table = slices.Insert(table, i, d)
}

// boolRank puts false before true.
func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Floor is the least time a check of p at timing tm must sleep on TTLs
// when it finds v, which no speed-up of the suite can remove.
func (p Property) Floor(tm Timing, v Verdict) time.Duration {
	d, ok := lookup(p)
	if !ok || v == NoVerdict {
		return 0
	}
	f := d.floor(tm.withDefaults())
	if v == Holds {
		return f.holds
	}
	return f.any
}

// Properties are those of a lock on one Redis that never fails.
func Properties() []Property {
	return properties(func(d property) bool { return !d.topology && d.kind == "" })
}

// TopologyProperties are a failover, a restart, a clock jump and a
// minority down, on servers of their own; Run checks them when asked.
func TopologyProperties() []Property {
	return properties(func(d property) bool { return d.topology && d.kind == "" })
}

// AllProperties are Properties, then TopologyProperties.
func AllProperties() []Property { return properties(func(d property) bool { return d.kind == "" }) }

// KindProperties are the properties of a read-write lock
// (strategy.ReadWrite) or a semaphore (strategy.Semaphore), which the
// mutex's (AllProperties) do not list.
func KindProperties(k strategy.Kind) []Property {
	return properties(func(d property) bool { return d.kind == k && k != strategy.Mutex })
}

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
	all := AllProperties()
	for _, k := range []strategy.Kind{strategy.ReadWrite, strategy.Semaphore} {
		all = append(all, KindProperties(k)...)
	}
	for _, p := range all {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("locktest: unknown property %q", s)
}

// broken holds each property's message <p>.broken.
var broken = map[Property]*msg.Def{}

// describe says in one line what it means that a lock breaks p, for
// example for SafeRelease "a release sent after the holder's TTL ran out
// freed the next holder's lock". It returns no message for an unknown
// property.
func describe(p Property) Message {
	if d, ok := broken[p]; ok {
		return d.New()
	}
	return Message{}
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
