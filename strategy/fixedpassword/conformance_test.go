package fixedpassword_test

import (
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
)

// TestConformance runs the conformance suite on fixedpassword and checks every
// verdict against the declaration in package catalog.
func TestConformance(t *testing.T) {
	e, ok := catalog.Lookup("fixedpassword")
	if !ok {
		t.Fatal("fixedpassword is missing from the catalog")
	}
	locktest.Run(t, e.New, e.Expect)
}
