package locktest

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/strategy"
)

// Each prop_<id>.go file declares a Property, with its scenario, and
// registers it.

// property is all there is to know about a property, which its file
// registers.
type property struct {
	id string
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
	floor func(timing) floors
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
func register(d property, floor func(timing) floors) {
	d.floor = floor
	broken[d.id] = msg.Define(d.id+".broken", nil, d.breaks)
	for _, o := range table {
		if o.id == d.id || o.order == d.order {
			panic(fmt.Sprintf("locktest: %s and %s both registered at %d", o.id, d.id, d.order))
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

// ids lists the properties that keep keeps, in the suite's order.
func ids(keep func(property) bool) []string {
	var ps []string
	for _, d := range table {
		if keep(d) {
			ps = append(ps, d.id)
		}
	}
	return ps
}

// lookup returns the row of p.
func lookup(id string) (property, bool) {
	for _, d := range table {
		if d.id == id {
			return d, true
		}
	}
	return property{}, false
}

// broken holds each property's message <p>.broken.
var broken = map[string]*msg.Def{}

// describe says in one line what it means that a lock breaks p, for
// example for SafeRelease "a release sent after the holder's TTL ran out
// freed the next holder's lock". It returns no message for an unknown
// property.
func describe(id string) Message {
	if d, ok := broken[id]; ok {
		return d.New()
	}
	return Message{}
}

// scenario runs a property; it calls newRun for each fresh run it needs
// (a fresh key and timeline) and reports the verdict of the last one.
type scenario func(newRun func(suffix string) *run) outcome
