package delsetnxcheck_test

import (
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
)

// TestConformance runs the conformance suite on delsetnxcheck and checks
// every verdict against the declaration in package catalog.
func TestConformance(t *testing.T) {
	e, ok := catalog.Lookup("delsetnxcheck")
	if !ok {
		t.Fatal("delsetnxcheck is missing from the catalog")
	}
	locktest.Run(t, e.New, e.Expect)
}
