package delsetnx_test

import (
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
)

// TestConformance runs the conformance suite on delsetnx and checks every
// verdict against the declaration in package catalog.
func TestConformance(t *testing.T) {
	e, ok := catalog.Lookup("delsetnx")
	if !ok {
		t.Fatal("delsetnx is missing from the catalog")
	}
	locktest.Run(t, e.New, e.Expect)
}
