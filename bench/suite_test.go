package bench

import (
	"testing"

	"github.com/locklab/locklab/locktest"
)

// TestSuiteFloorCoversEveryProperty: every property has a case of its own
// in suiteFloor, so a new one is not silently given the default 0.
func TestSuiteFloorCoversEveryProperty(t *testing.T) {
	for _, p := range locktest.AllProperties() {
		f, ok := suiteFloorCase(p, suiteTiming)
		if !ok {
			t.Errorf("suiteFloor has no case for %s", p)
		}
		if f.any > f.holds {
			t.Errorf("%s: the floor of any verdict, %v, is above that of holds, %v", p, f.any, f.holds)
		}
	}
}
