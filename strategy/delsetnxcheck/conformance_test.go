package delsetnxcheck_test

import (
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
)

// TestConformance runs the conformance suite on delsetnxcheck and checks
// every verdict against the declaration in package catalog, exclusion's
// fault-free break included: the suite's exploration of a holder's
// release and new attempt against a waiter's attempt meets it on every
// run.
func TestConformance(t *testing.T) {
	e, ok := catalog.Lookup("delsetnxcheck")
	if !ok {
		t.Fatal("delsetnxcheck is not in the catalog")
	}
	locktest.Run(t, e.New, e.Expect)
}
