package locktest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locklab/locklab/locktest/internal/props"
	"github.com/locklab/locklab/locktest/internal/sim"
	"github.com/locklab/locklab/strategy"
)

// Property names one scenario the suite runs against a strategy.
type Property string

// Floor is the least time a check of p at tm must sleep on TTLs to find v.
func (p Property) Floor(tm Timing, v Verdict) time.Duration {
	d, ok := props.Lookup(string(p))
	if !ok || v == NoVerdict {
		return 0
	}
	f := d.Floor(sim.Timing(tm).WithDefaults())
	if v == Holds {
		return f.Holds
	}
	return f.Any
}

// Properties are those of a lock on one Redis that never fails.
func Properties() []Property {
	return propertiesOf(func(d props.Property) bool { return !d.Topology && d.Kind == "" })
}

// TopologyProperties run on servers of their own; Run checks them when asked.
func TopologyProperties() []Property {
	return propertiesOf(func(d props.Property) bool { return d.Topology && d.Kind == "" })
}

// AllProperties are Properties, then TopologyProperties.
func AllProperties() []Property {
	return propertiesOf(func(d props.Property) bool { return d.Kind == "" })
}

// KindProperties are those of a read-write lock or a semaphore (kind k).
func KindProperties(k strategy.Kind) []Property {
	return propertiesOf(func(d props.Property) bool { return d.Kind == k && k != strategy.Mutex })
}

// propertiesOf lists the properties that keep keeps, in the suite's order.
func propertiesOf(keep func(props.Property) bool) []Property {
	var ps []Property
	for _, id := range props.IDs(keep) {
		ps = append(ps, Property(id))
	}
	return ps
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
