package watchdel_test

import (
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
)

// TestConformance runs the conformance suite on watchdel and checks every
// verdict against the declaration in package catalog.
func TestConformance(t *testing.T) {
	e, ok := catalog.Lookup("watchdel")
	if !ok {
		t.Fatal("watchdel is missing from the catalog")
	}
	locktest.Run(t, e.New, e.Expect)
}
