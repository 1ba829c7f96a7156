package getsetcompare_test

import (
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
)

// TestConformance runs the conformance suite on getsetcompare, as document
// 004 writes it and as document 003 does (getsetcompare-003), and checks
// every verdict against the declaration in package catalog.
func TestConformance(t *testing.T) {
	for _, name := range []string{"getsetcompare", "getsetcompare-003"} {
		t.Run(name, func(t *testing.T) {
			e, ok := catalog.Lookup(name)
			if !ok {
				t.Fatalf("%s is missing from the catalog", name)
			}
			locktest.Run(t, e.New, e.Expect)
		})
	}
}
