package props

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest/internal/harness"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// Each prop_<id>.go file declares a Property, with its scenario, and
// registers it.

// Property is all there is to know about a property, which its file
// registers.
type Property struct {
	id string
	// order is its place in the suite's order, which lockcheck's matrix
	// follows and the docs list: ascending, topology properties last.
	order    int
	Scenario Scenario
	// breaks says in a line what it means that a lock breaks p: the
	// English of the message <p>.broken, which register declares (the
	// catalogs translate it); the comment of the constant says what the
	// scenario does.
	breaks string
	// Topology marks the properties that run on servers of their own
	// (see TopologyProperties).
	Topology bool
	// Structural marks a scenario a correct lock may be unable to stage:
	// no boundary inside a one-command acquire or release, no stale key
	// once Redis deleted it, no clock read. Its n/a is no failure of the
	// correct variants the package's tests check.
	Structural bool
	// Floor is what a check of p must sleep waiting on TTLs (Floor).
	Floor func(sim.Timing) floors
	// Kind is the kind of lock p is about: a mutex's (the zero Kind)
	// apply to every lock, a read-write lock's writer and a semaphore's
	// single permit included; the others' only to their own kind
	// (KindProperties), in a grid of their own.
	Kind strategy.Kind
}

// floors are the least times a check of a property must sleep waiting
// on TTLs: any, whatever the verdict; holds, when the lock holds it (any
// included). A lock that breaks a property, or to which it does not
// apply, may end the scenario before most waits, so only the waits made
// before any verdict can be reached count for any. Where a scenario's
// waits depend on the lock, the floor counts one wait, or none where
// even that is not certain.
type floors struct{ Any, Holds time.Duration }

// table is the properties in the suite's order: Properties, Check's
// scenarios and describe read it.
var table []Property

// register adds d, with its floor, to table in its place. A property
// registered twice, or two at one place, is a mistake of the package.
func register(d Property, floor func(sim.Timing) floors) {
	d.Floor = floor
	broken[d.id] = msg.Define(d.id+".broken", nil, d.breaks)
	for _, o := range table {
		if o.id == d.id || o.order == d.order {
			panic(fmt.Sprintf("locktest: %s and %s both registered at %d", o.id, d.id, d.order))
		}
	}
	i, _ := slices.BinarySearchFunc(table, d, func(a, b Property) int {
		return cmp.Or(cmp.Compare(boolRank(a.Topology), boolRank(b.Topology)), cmp.Compare(a.order, b.order))
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

// Ids lists the properties that keep keeps, in the suite's order.
func IDs(keep func(Property) bool) []string {
	var ps []string
	for _, d := range table {
		if keep(d) {
			ps = append(ps, d.id)
		}
	}
	return ps
}

// Lookup returns the row of p.
func Lookup(id string) (Property, bool) {
	for _, d := range table {
		if d.id == id {
			return d, true
		}
	}
	return Property{}, false
}

// broken holds each property's message <p>.broken.
var broken = map[string]*msg.Def{}

// Describe says in one line what it means that a lock breaks p, for
// example for SafeRelease "a release sent after the holder's TTL ran out
// freed the next holder's lock". It returns no message for an unknown
// property.
func Describe(id string) msg.Msg {
	if d, ok := broken[id]; ok {
		return d.New()
	}
	return msg.Msg{}
}

// Scenario runs a property; it calls newRun for each fresh run it needs
// (a fresh key and timeline) and reports the verdict of the last one.
type Scenario func(newRun func(suffix string) *harness.Run) harness.Outcome
