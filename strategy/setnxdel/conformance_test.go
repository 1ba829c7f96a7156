package setnxdel_test

import (
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
)

// TestConformance runs the conformance suite on setnxdel and checks every
// verdict against the declaration in package catalog.
func TestConformance(t *testing.T) {
	e, ok := catalog.Lookup("setnxdel")
	if !ok {
		t.Fatal("setnxdel is missing from the catalog")
	}
	locktest.Run(t, e.New, e.Expect)
}
