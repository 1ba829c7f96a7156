package getsetexpire_test

import (
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
)

// TestConformance runs the conformance suite on getsetexpire and checks
// every verdict against the declaration in package catalog.
func TestConformance(t *testing.T) {
	e, ok := catalog.Lookup("getsetexpire")
	if !ok {
		t.Fatal("getsetexpire is missing from the catalog")
	}
	locktest.Run(t, e.New, e.Expect)
}
